"""A stage job: the outbox row that becomes a broker message, and the lease of the worker running it.

Written in the same transaction as the status change that makes the job necessary, so a job exists
exactly when the task needs one, whatever happens to the broker afterwards. Its life is told by
timestamps rather than a status (no analyst ever sees or moves a job; the task's status machine is
what the audit log follows):

    created ─relayed→ sent ─a worker claims it→ running (heartbeat) ─→ finished
                 ↑                                  │ lease expired (worker died): the sweeper
                 └──────────────────────────────────┘ sends it again, up to a limit

A broker outage leaves a job unsent (``sent_at`` empty, ``send_error`` saying why) until the relay
succeeds; a worker that dies leaves it running with a heartbeat that stops, which the sweeper sees.
"""

from __future__ import annotations

from datetime import timedelta

from django.db import models
from django.utils import timezone

from researchapp.models.plan import SubQuestion
from researchapp.models.task import Stage


class Job(models.TextChoices):
    """What a stage job runs; each kind is one Celery task (``services.dispatch.celery_task``)."""

    PLAN = "plan"
    COLLECT = "collect"  # one sub-question of one round: (task id, sub-question id, round)
    FINISH_COLLECTION = "finish_collection"
    ANALYSE = "analyse"
    WRITE = "write"


# How a retry after a busy database starts its reason (``StageJob.retry_reason``), so the task page
# can tell waiting for the database from waiting to retry a provider.
DATABASE_BUSY = "the database is busy"

STAGE_OF_JOB = {
    Job.PLAN: Stage.PLANNING,
    Job.COLLECT: Stage.COLLECTING,
    Job.FINISH_COLLECTION: Stage.COLLECTING,
    Job.ANALYSE: Stage.ANALYSING,
    Job.WRITE: Stage.WRITING,
}


class StageJobQuerySet(models.QuerySet):
    def open(self) -> StageJobQuerySet:
        return self.filter(finished_at__isnull=True)

    def unsent(self) -> StageJobQuerySet:
        return self.open().filter(sent_at__isnull=True)

    def waiting(self) -> StageJobQuerySet:
        """Sent to the broker, not taken by any worker yet."""
        return self.open().filter(sent_at__isnull=False, started_at__isnull=True)

    def running(self) -> StageJobQuerySet:
        return self.open().filter(started_at__isnull=False)

    def lease_expired(self, lease_seconds: float) -> StageJobQuerySet:
        return self.running().filter(heartbeat_at__lt=timezone.now() - timedelta(seconds=lease_seconds))


class StageJob(models.Model):
    task = models.ForeignKey("researchapp.ResearchTask", on_delete=models.CASCADE, related_name="jobs")
    kind = models.CharField(max_length=32, choices=Job.choices)
    args = models.JSONField(default=list, help_text="The Celery task's positional arguments (ids).")
    created_at = models.DateTimeField(auto_now_add=True)
    # outbox
    sent_at = models.DateTimeField(null=True, blank=True, help_text="When the broker last accepted it.")
    sends = models.PositiveSmallIntegerField(default=0, help_text="How many times it was sent.")
    send_error = models.TextField(blank=True, help_text="Why the last send failed (broker down).")
    # lease
    started_at = models.DateTimeField(null=True, blank=True, help_text="When a worker took it (this run).")
    heartbeat_at = models.DateTimeField(null=True, blank=True)
    runs = models.PositiveSmallIntegerField(default=0, help_text="How many times a worker started it.")
    expiries = models.PositiveSmallIntegerField(
        default=0, help_text="How many times its lease expired and the sweeper sent it again."
    )
    retry_reason = models.TextField(blank=True, help_text="Why its last run is being retried.")
    finished_at = models.DateTimeField(null=True, blank=True)

    objects = StageJobQuerySet.as_manager()

    class Meta:
        ordering = ["id"]
        indexes = [
            models.Index(fields=["task", "finished_at"]),
            models.Index(
                fields=["sent_at"], name="stagejob_open_by_sent", condition=models.Q(finished_at__isnull=True)
            ),
        ]

    def __str__(self) -> str:
        return f"{self.kind}{self.args} of task {self.task_id}"

    @property
    def is_open(self) -> bool:
        return self.finished_at is None

    @property
    def stage(self) -> Stage:
        return STAGE_OF_JOB[Job(self.kind)]

    def describe(self) -> str:
        """How messages name the job: sub-questions as the page numbers them, never by internal id."""
        if self.kind == Job.COLLECT and len(self.args) > 1:
            order = SubQuestion.objects.filter(pk=self.args[1]).values_list("order", flat=True).first()
            if order is not None:
                return f"collection for Sub-question {order + 1}"
        return f"the {self.stage.value} stage"
