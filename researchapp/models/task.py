from __future__ import annotations

from typing import Any

from django.conf import settings
from django.db import models, transaction
from django.utils import timezone


class IllegalTransition(Exception):
    """The status machine has no such move."""


class StaleTransition(Exception):
    """Someone else moved the task first: the compare-and-set touched no row."""


class ResearchTaskQuerySet(models.QuerySet):
    def visible_to(self, user) -> ResearchTaskQuerySet:
        from researchapp.permissions import is_analyst

        if is_analyst(user):
            return self
        return self.filter(owner=user)


class ResearchTask(models.Model):
    class Status(models.TextChoices):
        SUBMITTED = "submitted"
        PLANNING = "planning"
        AWAITING_PLAN_REVIEW = "awaiting_plan_review", "awaiting plan review"
        COLLECTING = "collecting"
        ANALYSING = "analysing"
        AWAITING_EVIDENCE_REVIEW = "awaiting_evidence_review", "awaiting evidence review"
        WRITING = "writing"
        AWAITING_REPORT_REVIEW = "awaiting_report_review", "awaiting report review"
        APPROVED = "approved"
        FAILED = "failed"
        CANCELLED = "cancelled"

    class Depth(models.TextChoices):
        QUICK = "quick"
        DEEP = "deep"

    S = Status
    # The one table of legal moves. Every status change goes through ``transition``.
    TRANSITIONS: dict[str, frozenset[str]] = {
        S.SUBMITTED: frozenset({S.PLANNING, S.FAILED, S.CANCELLED}),
        S.PLANNING: frozenset({S.AWAITING_PLAN_REVIEW, S.FAILED, S.CANCELLED}),
        S.AWAITING_PLAN_REVIEW: frozenset({S.COLLECTING, S.PLANNING, S.CANCELLED}),
        S.COLLECTING: frozenset({S.ANALYSING, S.FAILED, S.CANCELLED}),
        # analysing may start a follow-up round by itself when evidence is thin and rounds remain
        S.ANALYSING: frozenset({S.AWAITING_EVIDENCE_REVIEW, S.WRITING, S.COLLECTING, S.FAILED, S.CANCELLED}),
        S.AWAITING_EVIDENCE_REVIEW: frozenset({S.WRITING, S.COLLECTING, S.CANCELLED}),
        S.WRITING: frozenset({S.AWAITING_REPORT_REVIEW, S.FAILED, S.CANCELLED}),
        S.AWAITING_REPORT_REVIEW: frozenset({S.APPROVED, S.WRITING, S.CANCELLED}),
        S.FAILED: frozenset({S.PLANNING, S.COLLECTING, S.ANALYSING, S.WRITING, S.CANCELLED}),
        S.APPROVED: frozenset(),
        S.CANCELLED: frozenset(),
    }
    RUNNING = frozenset({S.SUBMITTED, S.PLANNING, S.COLLECTING, S.ANALYSING, S.WRITING})
    AWAITING = frozenset({S.AWAITING_PLAN_REVIEW, S.AWAITING_EVIDENCE_REVIEW, S.AWAITING_REPORT_REVIEW})
    FINISHED = frozenset({S.APPROVED, S.CANCELLED})

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

    failed_stage = models.CharField(max_length=32, blank=True)
    failure_reason = models.TextField(blank=True)

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
    def is_running(self) -> bool:
        return self.status in self.RUNNING

    @property
    def is_awaiting_review(self) -> bool:
        return self.status in self.AWAITING

    @property
    def is_finished(self) -> bool:
        return self.status in self.FINISHED

    def can_move_to(self, status: str) -> bool:
        return status in self.TRANSITIONS[self.status]

    def transition(
        self,
        to: str,
        *,
        actor=None,
        stage: str = "",
        message: str = "",
        data: dict[str, Any] | None = None,
        **fields: Any,
    ) -> None:
        """Move to ``to`` if the move is legal and nobody moved the task first; log an event.

        ``fields`` are written in the same UPDATE (e.g. ``failure_reason``), so the new status
        and what explains it are never seen apart.
        """
        from researchapp.models.event import Event

        source = self.status
        if to not in self.TRANSITIONS[source]:
            raise IllegalTransition(f"task {self.pk}: {source} → {to} is not a legal move")
        now = timezone.now()
        if to in self.FINISHED:
            fields.setdefault("finished_at", now)
        with transaction.atomic():
            moved = (
                type(self)
                .objects.filter(pk=self.pk, status=source)
                .update(status=to, updated_at=now, **fields)
            )
            if moved != 1:
                raise StaleTransition(f"task {self.pk} is no longer {source}")
            Event.objects.create(
                task=self,
                stage=stage or to,
                kind=Event.Kind.TRANSITION,
                message=message or f"{source} → {to}",
                data={"from": source, "to": to, **(data or {})},
                actor=actor,
            )
        self.status = to
        self.updated_at = now
        for name, value in fields.items():
            setattr(self, name, value)
