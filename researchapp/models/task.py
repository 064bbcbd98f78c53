from __future__ import annotations

from datetime import timedelta
from typing import Any

from django.conf import settings
from django.db import models
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from researchapp.message_text import message_text
from researchapp.models.status import StaleState, StatusMachine
from researchapp.permissions import is_analyst


class Stage(models.TextChoices):
    """The pipeline's working stages; each is also the status of a task while it runs."""

    PLANNING = "planning"
    COLLECTING = "collecting"
    ANALYSING = "analysing"
    WRITING = "writing"


class Gate(models.TextChoices):
    """Where a task waits for a person; each is also the status of a task while it waits."""

    PLAN_REVIEW = "awaiting_plan_review", "plan review"
    EVIDENCE_REVIEW = "awaiting_evidence_review", "evidence review"
    REPORT_REVIEW = "awaiting_report_review", "report review"


# What a decision at a gate is told once the task has left it (moved on, or been cancelled).
GATE_LEFT = {
    Gate.PLAN_REVIEW: _("The task is %(status)s; its plan is not under review."),
    Gate.EVIDENCE_REVIEW: _("The task is %(status)s; its evidence is not under review."),
    Gate.REPORT_REVIEW: _("The task is %(status)s; its report is not under review."),
}


class ResearchTaskQuerySet(models.QuerySet):
    def visible_to(self, user) -> ResearchTaskQuerySet:
        if is_analyst(user):
            return self
        return self.filter(owner=user)


class ResearchTask(StatusMachine):
    # The labels are the words pages use for each state ("Plan review", not ``awaiting_plan_review``).
    class Status(models.TextChoices):
        SUBMITTED = "submitted", _("Submitted")
        PLANNING = "planning", _("Planning")
        AWAITING_PLAN_REVIEW = "awaiting_plan_review", _("Plan review")
        COLLECTING = "collecting", _("Collecting")
        ANALYSING = "analysing", _("Analysing")
        AWAITING_EVIDENCE_REVIEW = "awaiting_evidence_review", _("Evidence review")
        WRITING = "writing", _("Writing")
        AWAITING_REPORT_REVIEW = "awaiting_report_review", _("Report review")
        APPROVED = "approved", _("Approved")
        FAILED = "failed", _("Failed")
        CANCELLED = "cancelled", _("Cancelled")

    class Depth(models.TextChoices):
        QUICK = "quick", _("Quick")
        DEEP = "deep", _("Deep")

    # The one table of legal moves. Every status change goes through ``transition``.
    TRANSITIONS: dict[str, frozenset[str]] = {
        Status.SUBMITTED: frozenset({Status.PLANNING, Status.FAILED, Status.CANCELLED}),
        Status.PLANNING: frozenset({Status.AWAITING_PLAN_REVIEW, Status.FAILED, Status.CANCELLED}),
        Status.AWAITING_PLAN_REVIEW: frozenset({Status.COLLECTING, Status.PLANNING, Status.CANCELLED}),
        Status.COLLECTING: frozenset({Status.ANALYSING, Status.FAILED, Status.CANCELLED}),
        # analysing may start a follow-up round by itself when evidence is thin and rounds remain
        Status.ANALYSING: frozenset(
            {
                Status.AWAITING_EVIDENCE_REVIEW,
                Status.WRITING,
                Status.COLLECTING,
                Status.FAILED,
                Status.CANCELLED,
            }
        ),
        Status.AWAITING_EVIDENCE_REVIEW: frozenset({Status.WRITING, Status.COLLECTING, Status.CANCELLED}),
        Status.WRITING: frozenset({Status.AWAITING_REPORT_REVIEW, Status.FAILED, Status.CANCELLED}),
        Status.AWAITING_REPORT_REVIEW: frozenset({Status.APPROVED, Status.WRITING, Status.CANCELLED}),
        Status.FAILED: frozenset(
            {Status.PLANNING, Status.COLLECTING, Status.ANALYSING, Status.WRITING, Status.CANCELLED}
        ),
        Status.APPROVED: frozenset(),
        Status.CANCELLED: frozenset(),
    }
    RUNNING = frozenset(
        {Status.SUBMITTED, Status.PLANNING, Status.COLLECTING, Status.ANALYSING, Status.WRITING}
    )
    AWAITING = frozenset(
        {Status.AWAITING_PLAN_REVIEW, Status.AWAITING_EVIDENCE_REVIEW, Status.AWAITING_REPORT_REVIEW}
    )
    FINISHED = frozenset({Status.APPROVED, Status.CANCELLED})
    STALL_GRACE_SECONDS = 60

    question = models.TextField()
    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="research_tasks"
    )
    status = models.CharField(max_length=32, choices=Status.choices, default=Status.SUBMITTED, db_index=True)
    depth = models.CharField(max_length=8, choices=Depth.choices, default=Depth.QUICK)
    recency_days = models.PositiveIntegerField(null=True, blank=True)
    corpus = models.ForeignKey("researchapp.Corpus", null=True, blank=True, on_delete=models.PROTECT)
    search_provider = models.CharField(max_length=32)
    engine = models.CharField(max_length=32)
    auto_approve = models.BooleanField(default=False)

    max_rounds = models.PositiveSmallIntegerField(default=2)
    max_sources = models.PositiveSmallIntegerField(default=8)
    max_revisions = models.PositiveSmallIntegerField(default=2)
    round = models.PositiveSmallIntegerField(default=1)
    write_pass = models.PositiveSmallIntegerField(default=0, help_text="How many times writing began.")

    llm_tokens_in = models.PositiveIntegerField(default=0)
    llm_tokens_out = models.PositiveIntegerField(default=0)
    searches = models.PositiveIntegerField(default=0)
    pages_opened = models.PositiveIntegerField(default=0)

    failed_stage = models.CharField(max_length=32, choices=Stage.choices, blank=True)
    failure_reason = models.TextField(blank=True)
    # The reason as a stored message (``core.messages``), shown in each reader's language; the English
    # ``failure_reason`` for a reason that came without one.
    failure_said = models.JSONField(default=dict, blank=True)

    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    objects = ResearchTaskQuerySet.as_manager()

    class Meta:
        ordering = ["-created_at", "-id"]
        indexes = [models.Index(fields=["owner", "-created_at"])]

    def __str__(self) -> str:
        return f"#{self.pk} {self.question[:60]}"

    @property
    def failure_text(self) -> str:
        """Why the task failed, in the active language."""
        return message_text(self.failure_said, self.failure_reason)

    @property
    def is_running(self) -> bool:
        return self.status in self.RUNNING

    @property
    def is_stalled(self) -> bool:
        """Running, yet no stage job is queued or running for it: nothing will move it on by itself.

        (A job is written with every move into a running status, so this happens only to a task
        whose job was lost some other way, e.g. a headless run whose process died.)
        """
        recently = timezone.now() - timedelta(seconds=self.STALL_GRACE_SECONDS)
        return (
            self.is_running
            and self.updated_at < recently
            and not self.jobs.filter(finished_at__isnull=True).exists()
        )

    @property
    def is_awaiting_review(self) -> bool:
        return self.status in self.AWAITING

    @property
    def is_finished(self) -> bool:
        return self.status in self.FINISHED

    @property
    def rounds_left(self) -> int:
        """Collection rounds this task may still start (first round included in ``max_rounds``)."""
        return max(0, self.max_rounds - self.round)

    def refuse_unless_at(self, gate: Gate) -> None:
        """``StaleState`` if the task, as loaded, no longer waits at ``gate`` for a decision."""
        if self.status != gate:
            raise StaleState(GATE_LEFT[gate] % {"status": self.get_status_display()})

    def event_task_id(self) -> int:
        return self.pk

    def describe(self) -> str:
        return f"task {self.pk}"

    def transition_fields(self, to: str) -> dict[str, Any]:
        now = timezone.now()
        return {"updated_at": now, **({"finished_at": now} if to in self.FINISHED else {})}
