"""The sweeper: nothing sent is lost, no stage whose worker died is left hanging.

Run every ``SWEEP_SECONDS`` by Celery beat in production (``tasks.sweep_task``) and by the embedded
profile's ``devserver`` (``manage.py sweep --every``). Each sweep:

1. sends again every job whose lease expired (its worker died, or could not reach the database),
   up to ``MAX_STAGE_RESTARTS`` times; past that, fails the task with the reason (it can be resumed);
2. sends again a job the broker accepted but no worker started for ``RESEND_UNSTARTED_SECONDS`` (a
   message lost with a worker that had taken it from a broker without redelivery, such as the
   filesystem transport), a few times at most: a queue with no worker listening is shown on the
   task's page, not flooded;
3. relays the outbox: every job not yet accepted by the broker (it was down).

Why leases rather than the broker's own redelivery: Redis hands an unacknowledged message back only
after its visibility timeout (``CELERY_VISIBILITY_TIMEOUT``, an hour: it must outlast the longest
stage, or a healthy run would be duplicated), and the filesystem transport never does. A lease
expires after ``LEASE_SECONDS`` (two minutes; the heartbeat beats every ``HEARTBEAT_SECONDS``), so a
dead worker's stage runs again within about ``LEASE_SECONDS + SWEEP_SECONDS``.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from datetime import timedelta

from django.conf import settings
from django.db import transaction
from django.db.models import F
from django.utils import timezone

from researchapp.models import Event, ResearchTask, StageJob, StaleState
from researchapp.services.dispatch import relay_unsent
from researchapp.services.leases import lease_seconds
from researchapp.services.stage_harness import task_fail

log = logging.getLogger(__name__)
MAX_UNSTARTED_RESENDS = 3


@dataclass
class SweepReport:
    restarted: list[int] = field(default_factory=list)  # job ids sent again after their lease expired
    failed: list[int] = field(default_factory=list)  # task ids failed after too many restarts
    resent: int = 0  # jobs sent again that no worker had started
    relayed: int = 0  # outbox rows the broker accepted


def sweep() -> SweepReport:
    report = SweepReport()
    for job_id in StageJob.objects.lease_expired(lease_seconds()).values_list("pk", flat=True):
        restart_expired(job_id, report)
    report.resent = resend_unstarted()
    report.relayed = relay_unsent()
    if report.restarted or report.failed or report.resent or report.relayed:
        log.info("sweep: %s", report)
    return report


def restart_expired(job_id: int, report: SweepReport) -> None:
    """Send the job again, or fail its task once it has been restarted ``MAX_STAGE_RESTARTS`` times."""
    limit = settings.RESEARCH["MAX_STAGE_RESTARTS"]
    with transaction.atomic():
        job = (
            StageJob.objects.select_for_update(skip_locked=True, of=("self",))
            .lease_expired(lease_seconds())
            .select_related("task")
            .filter(pk=job_id)
            .first()
        )
        if job is None:
            return  # its worker beat again, or another sweeper took it
        task, what = job.task, job.describe()
        last_beat = timezone.localtime(job.heartbeat_at).strftime("%H:%M:%S")
        if task.status not in ResearchTask.RUNNING:
            StageJob.objects.filter(pk=job.pk).update(finished_at=timezone.now())
            return
        if job.expiries >= limit:
            StageJob.objects.filter(pk=job.pk).update(finished_at=timezone.now())
            reason = (
                f"the worker running {what} stopped {job.expiries + 1} times without finishing it "
                f"(last heartbeat {last_beat}{f'; {job.retry_reason}' if job.retry_reason else ''}). "
                "Check the workers and the database, then resume."
            )
            try:
                task_fail(task, stage=job.stage, reason=reason)
            except StaleState:
                return
            report.failed.append(task.pk)
            return
        StageJob.objects.filter(pk=job.pk).update(
            started_at=None, heartbeat_at=None, sent_at=None, expiries=F("expiries") + 1
        )
        Event.objects.create(
            task=task,
            stage=job.stage,
            kind=Event.Kind.WARNING,
            message=f"The worker running {what} stopped answering (last heartbeat {last_beat}); "
            f"it runs again (restart {job.expiries + 1} of {limit}).",
            data={"job": job.pk, "code": "lease_expired"},
        )
        report.restarted.append(job.pk)


def resend_unstarted() -> int:
    cutoff = timezone.now() - timedelta(seconds=settings.RESEARCH["RESEND_UNSTARTED_SECONDS"])
    stale = StageJob.objects.waiting().filter(sent_at__lt=cutoff, sends__lte=MAX_UNSTARTED_RESENDS)
    return stale.update(sent_at=None)
