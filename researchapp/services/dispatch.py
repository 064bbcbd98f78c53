"""Stage jobs go through an outbox: a row written in the caller's transaction, relayed to the broker.

``enqueue`` writes a ``StageJob`` row in the same transaction as the status change that makes the
job necessary; once it commits, ``relay`` publishes it. A broker that is down only delays the job:
the row stays unsent (with the reason) and the sweeper's relay sends it when the broker is back.
Nothing the transaction decided is lost, and a rolled-back transaction sends nothing.

Inside ``inline()``, jobs are queued in memory instead and ``drain`` runs them in this process one
after another: the ``research`` command uses it to run a task to the end without a worker.
"""

from __future__ import annotations

import contextvars
import logging
from collections import deque
from collections.abc import Iterable, Iterator
from contextlib import contextmanager

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from researchapp.core.messages import gettext_noop, message
from researchapp.models import Event, Job, StageJob

__all__ = ["Job", "celery_task", "drain", "enqueue", "inline", "relay", "relay_unsent"]

log = logging.getLogger(__name__)

# Job priorities on the Redis broker (``job_priority``); its transport keeps one list per step.
NEW_WORK = 3
LAST_PRIORITY = 9

_inline: contextvars.ContextVar[deque | None] = contextvars.ContextVar("inline_queue", default=None)


def celery_task(job: str):
    """The Celery task object that runs ``job``.

    The one function-level import of the project: ``researchapp.tasks`` imports the services
    (each Celery task calls one), so importing it at the top of this module would be a cycle.
    """
    from researchapp import tasks

    return {
        Job.PLAN: tasks.plan_task,
        Job.COLLECT: tasks.collect_task,
        Job.FINISH_COLLECTION: tasks.finish_collection_task,
        Job.ANALYSE: tasks.analyse_task,
        Job.WRITE: tasks.write_task,
    }[Job(job)]


def enqueue(job: Job, *args: int) -> None:
    """Ask for ``job`` (its first argument is the task id) once the current transaction commits."""
    queue = _inline.get()
    if queue is not None:
        # Inline jobs run on this connection after the caller returns, so they see its writes;
        # each stage checks the task's status first, so one queued by a rolled-back call is a no-op.
        queue.append((job, args))
        return
    row = StageJob.objects.create(task_id=args[0], kind=job, args=list(args))
    if settings.RESEARCH["RELAY_ON_COMMIT"]:
        # robust: what committed stays committed; a relay that fails here is the sweeper's to redo
        transaction.on_commit(lambda: relay([row.pk]), robust=True)


def relay(job_ids: Iterable[int]) -> int:
    """Publish these jobs if they are still unsent; returns how many went.

    Each row is locked while its message is published (``skip_locked``: a concurrent relay of the
    same row skips it), and marked sent only once the broker took it. The first broker failure
    stops the relay: the rest would fail the same way, and the sweeper tries again.
    """
    sent = 0
    for job_id in job_ids:
        with transaction.atomic():
            job = (
                StageJob.objects.select_for_update(skip_locked=True, of=("self",))
                .select_related("task")
                .filter(pk=job_id, sent_at__isnull=True, finished_at__isnull=True)
                .first()
            )
            if job is None:
                continue
            try:
                celery_task(job.kind).apply_async(
                    args=job.args, kwargs={"job_id": job.pk}, retry=False, priority=job_priority(job)
                )
            except Exception as error:  # noqa: BLE001 - any failure to publish leaves the job in the outbox
                _record_send_failure(job, error)
                return sent
            StageJob.objects.filter(pk=job.pk).update(
                sent_at=timezone.now(), sends=job.sends + 1, send_error=""
            )
            sent += 1
    return sent


def job_priority(job: StageJob) -> int:
    """Where the job goes in its queue: 0 is taken first, ``LAST_PRIORITY`` last (Redis's order).

    1. Decided work before new work: a new submission's planning starts at ``NEW_WORK``; every other
       job (collection after an approved plan, writing after the evidence review, planning again
       after a rejection, the stages that follow) at 0.
    2. Fair shares: each doubling of the owner's jobs already waiting in the broker puts this one a
       step further back (1 waiting: +1, 2-3: +2, 4-7: +3, ...), so a hundred submissions of one
       person queue behind everyone else's first few, and their own still run in order.

    Brokers without priorities (the embedded profile's filesystem transport) ignore it.
    """
    new_work = job.kind == Job.PLAN and not job.task.plans.exists()
    waiting = StageJob.objects.waiting().filter(task__owner_id=job.task.owner_id).count()
    return min(LAST_PRIORITY, (NEW_WORK if new_work else 0) + waiting.bit_length())


def relay_unsent(limit: int = 500) -> int:
    """Publish every job still in the outbox, oldest first (the sweeper's first step)."""
    return relay(list(StageJob.objects.unsent().order_by("id").values_list("pk", flat=True)[:limit]))


def _record_send_failure(job: StageJob, error: Exception) -> None:
    reason = f"{type(error).__name__}: {error}"[:500]
    log.warning("job %s stays in the outbox: the broker refused it (%s)", job.pk, reason)
    StageJob.objects.filter(pk=job.pk).update(send_error=reason)
    if not job.send_error:  # say it once per job, not on every relay attempt
        Event.objects.create(
            task_id=job.task_id,
            stage=job.task.status if job.task_id else "",
            kind=Event.Kind.WARNING,
            message=message(
                gettext_noop(
                    "The message broker cannot be reached; the job is kept and will be sent when it is back "
                    "(%(reason)s)."
                ),
                reason=reason,
            ),
            data={"job": job.pk, "code": "broker_unreachable"},
        )


@contextmanager
def inline() -> Iterator[deque]:
    queue: deque = deque()
    token = _inline.set(queue)
    try:
        yield queue
    finally:
        _inline.reset(token)


def drain(queue: deque) -> int:
    """Run queued jobs in order until none is left; returns how many ran."""
    ran = 0
    while queue:
        job, args = queue.popleft()
        celery_task(job).apply(args=args)
        ran += 1
    return ran
