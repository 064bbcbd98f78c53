"""Submitting, running, cancelling and resuming research tasks."""

from __future__ import annotations

import logging

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import transaction

from researchapp.models import Corpus, Event, Finding, ResearchTask, StaleTransition, SubQuestion
from researchapp.pipeline import runner
from researchapp.pipeline.followup import followup_queries
from researchapp.pipeline.types import FindingStatus
from researchapp.providers import registry
from researchapp.providers.base import ProviderError
from researchapp.services.queue import enqueue

log = logging.getLogger(__name__)
Status = ResearchTask.Status


class TransientStageError(Exception):
    """A provider failed in a way a retry may fix; Celery retries the stage with backoff."""


def validate_question(question: str) -> str:
    question = (question or "").strip()
    limit = settings.RESEARCH["QUESTION_MAX_CHARS"]
    if not question:
        raise ValidationError("The question is empty. Type what you want researched.", code="empty")
    if len(question) > limit:
        raise ValidationError(
            f"The question is {len(question):,} characters long; the limit is {limit:,}. "
            "Shorten it to the question itself and keep background material in the corpus.",
            code="too_long",
        )
    return question


def task_submit(
    *,
    owner,
    question: str,
    depth: str = ResearchTask.Depth.QUICK,
    corpus: Corpus | None = None,
    recency_days: int | None = None,
    auto_approve: bool = False,
    search_provider: str | None = None,
    engine: str | None = None,
) -> ResearchTask:
    question = validate_question(question)
    conf = settings.RESEARCH
    search_provider = search_provider or conf["SEARCH_PROVIDER"]
    engine = engine or conf["ENGINE"]
    if corpus is None and search_provider == "local":
        corpus = Corpus.objects.filter(name=conf["DEFAULT_CORPUS"]).first()
    with transaction.atomic():
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
            stage="submitted",
            kind=Event.Kind.PROGRESS,
            actor=owner,
            message=f"Submitted ({engine} engine, {search_provider} search).",
        )
        enqueue("plan_task", task.pk)
    return task


def task_fail(task: ResearchTask, *, stage: str, reason: str) -> None:
    if task.can_move_to(Status.FAILED):
        task.transition(
            Status.FAILED,
            stage=stage,
            message=f"Failed while {stage}: {reason}",
            failed_stage=stage,
            failure_reason=reason,
        )


def run_stage(task_id: int, stage: str, body, *, final_attempt: bool = True) -> None:
    """Run one stage body; turn its failure into a failed task with the reason, or a retry.

    A retryable provider error is retried by Celery until the last attempt, which fails the task
    (resumable) instead of losing it.
    """
    task = ResearchTask.objects.get(pk=task_id)
    try:
        body(task)
    except StaleTransition:
        log.info("task %s moved on while %s ran; nothing to do", task_id, stage)
    except ProviderError as error:
        task.refresh_from_db()
        if error.retryable and not final_attempt:
            Event.objects.create(
                task=task,
                stage=stage,
                kind=Event.Kind.WARNING,
                message=f"{error.message} (retrying)",
                data={"code": error.code},
            )
            raise TransientStageError(error.message) from error
        task_fail(task, stage=stage, reason=error.message)
    except Exception as error:  # the task must never vanish: record why, keep what it had
        log.exception("stage %s of task %s failed", stage, task_id)
        task.refresh_from_db()
        task_fail(task, stage=stage, reason=f"{type(error).__name__}: {error}")


# --- stages -------------------------------------------------------------------------------------


def stage_plan(task: ResearchTask) -> None:
    if task.status == Status.SUBMITTED:
        registry.check_configuration(search=task.search_provider, engine=task.engine)
        task.transition(Status.PLANNING, stage="planning", message="Planning sub-questions.")
    if task.status != Status.PLANNING:
        return
    plan = runner.run_plan(task)
    task.transition(
        Status.AWAITING_PLAN_REVIEW,
        stage="planning",
        message=f"Plan v{plan.version} ready: {plan.subquestions.count()} sub-questions ({plan.intent}).",
        data={"plan": plan.pk},
    )
    if task.auto_approve:
        from researchapp.services.plans import plan_approve

        plan_approve(plan=plan, actor=None, note="auto-approved")


def enqueue_collection(task: ResearchTask, subquestion_ids: list[int]) -> None:
    for subquestion_id in subquestion_ids:
        enqueue("collect_task", task.pk, subquestion_id, task.round)


def stage_collect(task: ResearchTask, subquestion_id: int, round: int) -> None:
    if task.status != Status.COLLECTING or round != task.round:
        return
    subquestion = runner.approved_subquestions(task)
    subquestion = next((sq for sq in subquestion if sq.pk == subquestion_id), None)
    if subquestion is None:
        return
    runner.run_collect(task, subquestion, round)
    collection_maybe_finish(task)


def collection_maybe_finish(task: ResearchTask) -> None:
    """Move on to analysis once every sub-question of the round is collected (exactly once)."""
    task.refresh_from_db()
    if task.status != Status.COLLECTING or not runner.collection_complete(task):
        return
    try:
        task.transition(
            Status.ANALYSING, stage="collecting", message=f"Collection round {task.round} complete."
        )
    except StaleTransition:
        return  # a sibling sub-question's task moved it first
    enqueue("analyse_task", task.pk)


def start_followup_round(task: ResearchTask, subquestion_ids: list[int], *, stage: str, reason: str) -> None:
    """Collect again, with new queries, for the sub-questions whose evidence is thin."""
    next_round = task.round + 1
    with transaction.atomic():
        for subquestion in SubQuestion.objects.filter(pk__in=subquestion_ids):
            queries = followup_queries(runner.subquestion_value(subquestion), round=next_round)
            SubQuestion.objects.filter(pk=subquestion.pk).update(
                followup_queries=list(queries), due_round=next_round
            )
        task.transition(
            Status.COLLECTING,
            stage=stage,
            round=next_round,
            message=f"Follow-up round {next_round} for {len(subquestion_ids)} sub-questions: {reason}",
            data={"subquestions": subquestion_ids},
        )
        enqueue_collection(task, subquestion_ids)


def auto_followup_applies(task: ResearchTask) -> bool:
    mode = settings.RESEARCH["AUTO_FOLLOWUP"]
    return mode == "always" or (mode == "live" and task.search_provider != "local")


def thin_subquestions(task: ResearchTask) -> list[int]:
    """Sub-questions of this round whose every finding is [证据不足]."""
    statuses: dict[int, set[str]] = {}
    for subquestion_id, status in Finding.objects.filter(task=task, round=task.round).values_list(
        "subquestion_id", "status"
    ):
        statuses.setdefault(subquestion_id, set()).add(status)
    return sorted(sq for sq, found in statuses.items() if found == {FindingStatus.INSUFFICIENT})


def stage_analyse(task: ResearchTask) -> None:
    if task.status != Status.ANALYSING:
        return
    runner.run_analyse(task)
    thin = thin_subquestions(task)
    if thin and task.round < task.max_rounds and auto_followup_applies(task):
        start_followup_round(task, thin, stage="analysing", reason="too little evidence")
        return
    from researchapp.services.findings import evidence_gate

    evidence_gate(task)


def stage_write(task: ResearchTask) -> None:
    if task.status != Status.WRITING:
        return
    draft = runner.run_write(task)
    if draft.status == draft.Status.FAILED_CHECKS:
        problems = "; ".join(issue["message"] for issue in draft.check_issues[:3])
        task_fail(
            task,
            stage="writing",
            reason=f"quality_failed: draft v{draft.version} still fails its checks after "
            f"{draft.revision} attempts: {problems}",
        )
        return
    task.transition(
        Status.AWAITING_REPORT_REVIEW,
        stage="writing",
        message=f"Report draft v{draft.version} passed every check.",
        data={"draft": draft.pk},
    )
    if task.auto_approve:
        from researchapp.services.reports import report_approve

        report_approve(draft=draft, actor=None, note="auto-approved")


# --- cancel and resume --------------------------------------------------------------------------

RESUMABLE = {
    "planning": Status.PLANNING,
    "collecting": Status.COLLECTING,
    "analysing": Status.ANALYSING,
    "writing": Status.WRITING,
}


def task_cancel(*, task: ResearchTask, actor) -> None:
    task.transition(Status.CANCELLED, actor=actor, stage=task.status, message="Cancelled.")


def task_resume(*, task: ResearchTask, actor) -> None:
    """Restart a failed task at the stage that failed; what it had stored is reused."""
    if task.status != Status.FAILED:
        raise ValidationError("Only a failed task can be resumed.")
    stage = task.failed_stage if task.failed_stage in RESUMABLE else "planning"
    with transaction.atomic():
        task.transition(
            RESUMABLE[stage],
            actor=actor,
            stage=stage,
            message=f"Resumed at {stage}.",
            failed_stage="",
            failure_reason="",
        )
        if stage == "planning":
            enqueue("plan_task", task.pk)
        elif stage == "collecting":
            pending = [
                sq.pk for sq in runner.approved_subquestions(task) if sq.collected_round < sq.due_round
            ]
            enqueue_collection(task, pending)
            if not pending:
                enqueue("finish_collection_task", task.pk)
        elif stage == "analysing":
            enqueue("analyse_task", task.pk)
        else:
            enqueue("write_task", task.pk)
