"""Submitting, cancelling and resuming research tasks."""

from __future__ import annotations

from django.conf import settings
from django.contrib.auth.models import User
from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils.translation import gettext as _

from researchapp.core.messages import engine_word, gettext_noop, message, stage_word
from researchapp.core.text import is_blank, visible_text
from researchapp.models import Corpus, Event, ResearchTask, Stage
from researchapp.pipeline import runner
from researchapp.services.dispatch import Job, enqueue
from researchapp.services.quota import quota_check
from researchapp.services.rounds import collection_enqueue

Status = ResearchTask.Status


def validate_question(question: str) -> str:
    # Bidirectional controls and zero-width spaces are left out; a question of nothing else is empty.
    question = visible_text(question or "").strip()
    limit = settings.RESEARCH["QUESTION_MAX_CHARS"]
    if is_blank(question):
        raise ValidationError(_("The question is empty. Type what you want researched."), code="empty")
    if len(question) > limit:
        raise ValidationError(
            _(
                "The question is %(length)s characters long; the limit is %(limit)s. "
                "Shorten it to the question itself and keep background material in the corpus."
            )
            % {"length": f"{len(question):,}", "limit": f"{limit:,}"},
            code="too_long",
        )
    return question


def task_submit(
    *,
    owner: User,
    question: str,
    depth: str = ResearchTask.Depth.QUICK,
    corpus: Corpus | None = None,
    recency_days: int | None = None,
    auto_approve: bool = False,
    search_provider: str | None = None,
    engine: str | None = None,
    quota: bool = True,
) -> ResearchTask:
    """A new task and its planning job. ``quota``: hold the owner to their submission limits
    (``services.quota``); the server's own command line (``manage.py research``) does not."""
    question = validate_question(question)
    conf = settings.RESEARCH
    search_provider = search_provider or conf["SEARCH_PROVIDER"]
    engine = engine or conf["ENGINE"]
    if corpus is None and search_provider == "local":
        corpus = Corpus.objects.filter(name=conf["DEFAULT_CORPUS"]).first()
    with transaction.atomic():
        if quota:
            quota_check(owner)
        task = ResearchTask.objects.create(
            question=question,
            owner=owner,
            depth=depth,
            corpus=corpus,
            recency_days=recency_days,
            auto_approve=auto_approve,
            search_provider=search_provider,
            engine=engine,
            max_rounds=conf["MAX_ROUNDS"],
            max_sources=conf["MAX_SOURCES_PER_SUBQUESTION"],
            max_revisions=conf["MAX_REVISIONS"],
        )
        Event.objects.create(
            task=task,
            stage=Status.SUBMITTED,
            kind=Event.Kind.PROGRESS,
            actor=owner,
            message=message(
                gettext_noop("Submitted (%(engine)s engine, %(search)s search)."),
                engine=engine_word(engine),
                search=engine_word(search_provider),
            ),
        )
        enqueue(Job.PLAN, task.pk)
    return task


def task_cancel(*, task: ResearchTask, actor: User | None) -> None:
    task.transition(
        Status.CANCELLED, actor=actor, stage=task.status, message=message(gettext_noop("Cancelled."))
    )


def task_resume(*, task: ResearchTask, actor: User | None) -> None:
    """Restart a failed task at the stage that failed, or a stalled one at the stage it is in.

    Stalled: running, yet no stage job is queued or running for it (see ``ResearchTask.is_stalled``).
    What the task had stored is reused. The task row is locked, so two resumes make one job.
    """
    with transaction.atomic():
        ResearchTask.objects.select_for_update().filter(pk=task.pk).first()
        task.refresh_from_db()
        if task.status == Status.FAILED:
            stage = Stage(task.failed_stage) if task.failed_stage in Stage.values else Stage.PLANNING
            task.transition(
                Status(stage.value),
                actor=actor,
                stage=stage,
                message=message(gettext_noop("Resumed at %(stage)s."), stage=stage_word(stage)),
                failed_stage="",
                failure_reason="",
                failure_said={},
            )
        elif task.is_stalled:
            stage = Stage(task.status) if task.status in Stage.values else Stage.PLANNING
            Event.decision(
                task_id=task.pk,
                stage=stage,
                actor=actor,
                message=message(
                    gettext_noop("Resumed at %(stage)s: no stage was queued or running for the task."),
                    stage=stage_word(stage),
                ),
                data={},
            )
        else:
            raise ValidationError(_("Only a failed or stalled task can be resumed."))
        stage_enqueue(task, stage)


def stage_enqueue(task: ResearchTask, stage: Stage) -> None:
    """Queue the job(s) that run ``stage`` for the task, skipping what it already finished."""
    if stage == Stage.PLANNING:
        enqueue(Job.PLAN, task.pk)
    elif stage == Stage.COLLECTING:
        pending = [sq.pk for sq in runner.approved_subquestions(task) if sq.collected_round < sq.due_round]
        collection_enqueue(task, pending)
        if not pending:
            enqueue(Job.FINISH_COLLECTION, task.pk)
    elif stage == Stage.ANALYSING:
        enqueue(Job.ANALYSE, task.pk)
    else:
        enqueue(Job.WRITE, task.pk)
