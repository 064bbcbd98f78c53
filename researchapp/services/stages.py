"""Running the pipeline's stages: each Celery task calls one of these through ``run_stage``."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from contextlib import nullcontext

from django.db import DatabaseError, connection, transaction

from researchapp.models import Event, ResearchTask, Stage, StaleState
from researchapp.models.job import DATABASE_BUSY
from researchapp.pipeline import runner
from researchapp.pipeline.runner import wiring
from researchapp.pipeline.runner.hypotheses import run_hypotheses
from researchapp.providers.base import ProviderError
from researchapp.services import leases
from researchapp.services.dispatch import Job, enqueue
from researchapp.services.evidence_gate import evidence_gate
from researchapp.services.plan_gate import plan_approve
from researchapp.services.report_gate import report_approve
from researchapp.services.rounds import (
    auto_followup_applies,
    reopen_empty_followups,
    start_followup_round,
    thin_subquestions,
)

log = logging.getLogger(__name__)
Status = ResearchTask.Status


class TransientStageError(Exception):
    """A provider or the database failed in a way a retry may fix; Celery retries with backoff."""


# Tries of the failure handler itself, seconds apart: a task must not stay "running" with no reason
# only because the database was busy at the moment its failure was recorded.
FAILURE_RECORD_DELAYS = (0.5, 2.0, 5.0)


def task_fail(task: ResearchTask, *, stage: Stage, reason: str) -> None:
    if task.can_move_to(Status.FAILED):
        task.transition(
            Status.FAILED,
            stage=stage,
            message=f"Failed while {stage}: {reason}",
            failed_stage=stage,
            failure_reason=reason,
        )


def record_failure(task_id: int, *, stage: Stage, reason: str) -> None:
    """``task_fail`` that survives a busy database: retried a few times, each on a fresh task row.

    If every try fails, the error propagates; the stage's lease then expires and the sweeper runs
    the stage again (see ``services.sweeper``), so the task is never left running with no way on.
    """
    for delay in (*FAILURE_RECORD_DELAYS, None):
        try:
            task_fail(ResearchTask.objects.get(pk=task_id), stage=stage, reason=reason)
            return
        except StaleState:
            continue  # the task moved between our read and our write: read it again
        except DatabaseError as error:
            if delay is None or not leases.transient_database_error(error):
                raise
            drop_broken_connection()
            time.sleep(delay)


def drop_broken_connection() -> None:
    """A connection the error broke must not be reused by the retry (outside a caller's transaction)."""
    if not connection.in_atomic_block:
        connection.close_if_unusable_or_obsolete()


def run_stage(
    task_id: int,
    stage: Stage,
    body: Callable[[ResearchTask], None],
    *,
    final_attempt: bool = True,
    job_id: int | None = None,
) -> None:
    """Run one stage body under its job's lease; turn a failure into a failed task, or a retry.

    1. Claim the job's lease (``job_id`` is None when the job runs inline, without a broker);
       nothing to do if the job is finished or another worker's lease on it is alive.
    2. Run the body while a side thread beats the lease's heartbeat.
    3. Done, or failed with its reason recorded: the job is finished. A transient error (provider
       or database) is retried by Celery with backoff. A database that stays busy past the last
       retry, or that cannot even record the failure, leaves the lease to expire: the sweeper runs
       the stage again, up to its limit, then fails the task with the reason.
    """
    try:
        lease = leases.claim(job_id) if job_id is not None else None
    except DatabaseError as error:
        if leases.transient_database_error(error):
            raise TransientStageError(f"{DATABASE_BUSY}: {error}") from error
        raise
    if job_id is not None and lease is None:
        log.info("job %s of task %s is finished or running elsewhere; nothing to do", job_id, task_id)
        return
    with lease.heartbeat() if lease else nullcontext():
        try:
            _run_body(task_id, stage, body, final_attempt=final_attempt)
        except TransientStageError as error:
            if lease:
                _quietly(lease.release, reason=str(error))
            raise
        except DatabaseError:
            log.exception(
                "stage %s of task %s: the database stayed busy; the sweeper will retry", stage, task_id
            )
            return
        if lease:
            _quietly(lease.finish)


def _quietly(action: Callable[..., None], **kwargs) -> None:
    """Bookkeeping of a lease that may fail on a busy database: the lease's expiry covers it."""
    try:
        action(**kwargs)
    except DatabaseError as error:
        log.warning("lease bookkeeping failed: %s", error)


def _run_body(
    task_id: int, stage: Stage, body: Callable[[ResearchTask], None], *, final_attempt: bool
) -> None:
    try:
        task = ResearchTask.objects.get(pk=task_id)
        body(task)
    except StaleState:
        log.info("task %s moved on while %s ran; nothing to do", task_id, stage)
    except ProviderError as error:
        if error.retryable and not final_attempt:
            _warn(task_id, stage, f"{error.message} (retrying)", code=error.code)
            raise TransientStageError(error.message) from error
        record_failure(task_id, stage=stage, reason=error.message)
    except DatabaseError as error:
        if not leases.transient_database_error(error):
            _record_unexpected(task_id, stage, error)
            return
        drop_broken_connection()
        reason = f"{DATABASE_BUSY} ({type(error).__name__}: {str(error).strip()[:200]})"
        if final_attempt:
            raise  # run_stage leaves the lease to expire; the sweeper tries again later
        _warn(
            task_id,
            stage,
            f"Waiting for the database while {stage}: {reason}; retrying.",
            code="database_busy",
        )
        raise TransientStageError(reason) from error
    except Exception as error:  # the task must never vanish: record why, keep what it had
        _record_unexpected(task_id, stage, error)


def _record_unexpected(task_id: int, stage: Stage, error: Exception) -> None:
    log.exception("stage %s of task %s failed", stage, task_id)
    record_failure(task_id, stage=stage, reason=f"{type(error).__name__}: {error}")


def _warn(task_id: int, stage: Stage, message: str, *, code: str) -> None:
    """A warning on the task's page, if the database takes it (it may be what is failing)."""
    try:
        Event.objects.create(
            task_id=task_id, stage=stage, kind=Event.Kind.WARNING, message=message, data={"code": code}
        )
    except DatabaseError as error:
        log.warning("task %s: could not record a warning: %s", task_id, error)


def stage_plan(task: ResearchTask) -> None:
    if task.status == Status.SUBMITTED:
        wiring.check_configuration(task)
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
    if task.depth == ResearchTask.Depth.DEEP:
        runner.run_deep(task, subquestion, round_no)
    else:
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
    if task.depth == ResearchTask.Depth.DEEP and task.round == 1:
        run_hypotheses(task, round_no=1)  # deep mode: hypotheses to test, proposed after round one
    reopen_empty_followups(task)
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
