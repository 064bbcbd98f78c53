"""The harness every stage runs in: its job's lease, retries of transient errors, failures recorded.

``run_stage`` claims the job's lease, runs the stage's step (``services.stages``) while a heartbeat
keeps the lease alive, and turns what went wrong into a Celery retry (a provider's retryable error,
a busy database) or a failed task with its reason. A failure that cannot even be recorded leaves
the lease to expire, and the sweeper runs the stage again.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from contextlib import nullcontext

from django.db import DatabaseError, connection

from researchapp.core.messages import Message, english, gettext_noop, message, stage_word
from researchapp.models import Event, ResearchTask, Stage, StaleState
from researchapp.models.job import DATABASE_BUSY
from researchapp.providers.base import ProviderError
from researchapp.services import leases

log = logging.getLogger(__name__)
Status = ResearchTask.Status


class TransientStageError(Exception):
    """A provider or the database failed in a way a retry may fix; Celery retries with backoff."""


# Tries of the failure handler itself, seconds apart: a task must not stay "running" with no reason
# only because the database was busy at the moment its failure was recorded.
FAILURE_RECORD_DELAYS = (0.5, 2.0, 5.0)


def task_fail(task: ResearchTask, *, stage: Stage, reason: str | Message) -> None:
    """Fail the task with ``reason`` (a stored message, or English from a provider that gave none)."""
    if task.can_move_to(Status.FAILED):
        said = reason if isinstance(reason, dict) else {}
        task.transition(
            Status.FAILED,
            stage=stage,
            message=message(
                gettext_noop("Failed while %(stage)s: %(reason)s"), stage=stage_word(stage), reason=reason
            ),
            failed_stage=stage,
            failure_reason=english(said) if said else reason,
            failure_said=said,
        )


def record_failure(task_id: int, *, stage: Stage, reason: str | Message) -> None:
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
            retrying = message(gettext_noop("%(reason)s (retrying)"), reason=error.said or error.message)
            _warn(task_id, stage, retrying, code=error.code)
            raise TransientStageError(error.message) from error
        record_failure(task_id, stage=stage, reason=error.said or error.message)
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
            message(
                gettext_noop("Waiting for the database while %(stage)s: %(reason)s; retrying."),
                stage=stage_word(stage),
                reason=reason,
            ),
            code="database_busy",
        )
        raise TransientStageError(reason) from error
    except Exception as error:  # the task must never vanish: record why, keep what it had
        _record_unexpected(task_id, stage, error)


def _record_unexpected(task_id: int, stage: Stage, error: Exception) -> None:
    log.exception("stage %s of task %s failed", stage, task_id)
    record_failure(task_id, stage=stage, reason=f"{type(error).__name__}: {error}")


def _warn(task_id: int, stage: Stage, said: Message, *, code: str) -> None:
    """A warning on the task's page, if the database takes it (it may be what is failing)."""
    try:
        Event.objects.create(
            task_id=task_id, stage=stage, kind=Event.Kind.WARNING, message=said, data={"code": code}
        )
    except DatabaseError as error:
        log.warning("task %s: could not record a warning: %s", task_id, error)
