"""Running the pipeline's stages: each Celery task calls one of these through ``run_stage``."""

from __future__ import annotations

import logging
from collections.abc import Callable

from django.db import transaction

from researchapp.models import Event, ResearchTask, Stage, StaleState
from researchapp.pipeline import runner
from researchapp.providers import registry
from researchapp.providers.base import ProviderError
from researchapp.services.dispatch import Job, enqueue
from researchapp.services.evidence_gate import evidence_gate
from researchapp.services.plan_gate import plan_approve
from researchapp.services.report_gate import report_approve
from researchapp.services.rounds import auto_followup_applies, start_followup_round, thin_subquestions

log = logging.getLogger(__name__)
Status = ResearchTask.Status


class TransientStageError(Exception):
    """A provider failed in a way a retry may fix; Celery retries the stage with backoff."""


def task_fail(task: ResearchTask, *, stage: Stage, reason: str) -> None:
    if task.can_move_to(Status.FAILED):
        task.transition(
            Status.FAILED,
            stage=stage,
            message=f"Failed while {stage}: {reason}",
            failed_stage=stage,
            failure_reason=reason,
        )


def run_stage(
    task_id: int, stage: Stage, body: Callable[[ResearchTask], None], *, final_attempt: bool = True
) -> None:
    """Run one stage body; turn its failure into a failed task with the reason, or a retry.

    A retryable provider error is retried by Celery until the last attempt, which fails the task
    (resumable) instead of losing it.
    """
    task = ResearchTask.objects.get(pk=task_id)
    try:
        body(task)
    except StaleState:
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


def stage_plan(task: ResearchTask) -> None:
    if task.status == Status.SUBMITTED:
        registry.check_configuration(search=task.search_provider, engine=task.engine)
        task.transition(Status.PLANNING, stage=Stage.PLANNING, message="Planning sub-questions.")
    if task.status != Status.PLANNING:
        return
    plan = runner.run_plan(task)
    coverage = runner.run_probe(task, plan)
    uncovered = sum(not c.covered for c in coverage)
    message = f"Plan v{plan.version} ready: {plan.subquestions.count()} sub-questions ({plan.intent})."
    if coverage and uncovered == len(coverage):
        message += (
            " The sources do not seem to cover this question: no sub-question found a relevant passage."
        )
    elif uncovered:
        message += f" {uncovered} of {len(coverage)} sub-questions found no relevant passage."
    task.transition(
        Status.AWAITING_PLAN_REVIEW,
        stage=Stage.PLANNING,
        message=message,
        data={"plan": plan.pk, "uncovered": uncovered},
    )
    if task.auto_approve:
        plan_approve(plan=plan, actor=None, note="auto-approved")


def stage_collect(task: ResearchTask, subquestion_id: int, round_no: int) -> None:
    if task.status != Status.COLLECTING or round_no != task.round:
        return
    subquestion = next((sq for sq in runner.approved_subquestions(task) if sq.pk == subquestion_id), None)
    if subquestion is None:
        return
    runner.run_collect(task, subquestion, round_no)
    collection_maybe_finish(task)


def collection_maybe_finish(task: ResearchTask) -> None:
    """Move on to analysis once every sub-question of the round is collected (exactly once)."""
    task.refresh_from_db()
    if task.status != Status.COLLECTING or not runner.collection_complete(task):
        return
    try:
        with transaction.atomic():
            task.transition(
                Status.ANALYSING, stage=Stage.COLLECTING, message=f"Collection round {task.round} complete."
            )
            enqueue(Job.ANALYSE, task.pk)
    except StaleState:
        return  # a sibling sub-question's task moved it first


def stage_analyse(task: ResearchTask) -> None:
    if task.status != Status.ANALYSING:
        return
    runner.run_analyse(task)
    thin = thin_subquestions(task)
    if thin and task.rounds_left and auto_followup_applies(task):
        start_followup_round(task, thin, stage=Stage.ANALYSING, reason="too little evidence")
        return
    evidence_gate(task)


def stage_write(task: ResearchTask) -> None:
    if task.status != Status.WRITING:
        return
    draft = runner.run_write(task)
    if draft.status == draft.Status.FAILED_CHECKS:
        problems = "; ".join(issue["message"] for issue in draft.check_issues[:3])
        task_fail(
            task,
            stage=Stage.WRITING,
            reason=f"quality_failed: draft v{draft.version} still fails its checks after "
            f"{draft.revision} attempts: {problems}",
        )
        return
    message = f"Report draft v{draft.version} passed every check."
    task.transition(
        Status.AWAITING_REPORT_REVIEW, stage=Stage.WRITING, message=message, data={"draft": draft.pk}
    )
    if task.auto_approve:
        report_approve(draft=draft, actor=None, note="auto-approved")
