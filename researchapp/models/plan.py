from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _

from researchapp.models.status import Decidable, StatusMachine


class PlanQuerySet(models.QuerySet):
    def approved(self) -> PlanQuerySet:
        return self.filter(status=Plan.Status.APPROVED)

    def latest_version(self) -> Plan | None:
        return self.order_by("-version").first()


class Plan(StatusMachine, Decidable):
    """One version of a task's plan. Only a draft can be edited; approving freezes it."""

    class Status(models.TextChoices):
        DRAFT = "draft", _("Draft")
        APPROVED = "approved", _("Approved")
        REJECTED = "rejected", _("Rejected")

    # The status machine's table, as every model with a status has one (see models.status); a plan's
    # moves are decisions at its gate, so each state it can reach is final.
    TRANSITIONS = {
        Status.DRAFT: frozenset({Status.APPROVED, Status.REJECTED}),
        Status.APPROVED: frozenset(),
        Status.REJECTED: frozenset(),
    }
    # ``version`` names the plan among its task's versions: a decision does not move it on.
    COUNTS_DECISIONS = False
    UNDECIDED = {"status": Status.DRAFT}

    task = models.ForeignKey("researchapp.ResearchTask", on_delete=models.CASCADE, related_name="plans")
    version = models.PositiveSmallIntegerField()
    intent = models.CharField(max_length=32)
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.DRAFT)
    feedback = models.TextField(blank=True, help_text="The rejection note that led to the next version.")
    engine = models.CharField(max_length=32, blank=True)
    # Why the plan is not the engine's own, e.g. the model's plan was rejected twice: shown at the gate.
    engine_note = models.TextField(blank=True)
    # What the rejection's feedback did to this version, edit by edit (applied, already there, not
    # understood): stored messages (``core.messages``) the plan gate shows in the reader's language.
    revision_notes = models.JSONField(default=list, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    decided_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL)
    decided_at = models.DateTimeField(null=True, blank=True)

    objects = PlanQuerySet.as_manager()

    class Meta:
        ordering = ["task", "-version"]
        constraints = [models.UniqueConstraint(fields=["task", "version"], name="plan_unique_version")]

    def __str__(self) -> str:
        return f"plan v{self.version} of task {self.task_id}"

    @property
    def is_editable(self) -> bool:
        return self.status == self.Status.DRAFT

    def event_task_id(self) -> int:
        return self.task_id

    def describe(self) -> str:
        return f"plan v{self.version}"


class SubQuestion(models.Model):
    plan = models.ForeignKey(Plan, on_delete=models.CASCADE, related_name="subquestions")
    order = models.PositiveSmallIntegerField(default=0)
    text = models.TextField()
    rationale = models.TextField(blank=True)
    queries = models.JSONField(default=list)
    # Queries of the latest follow-up round (made by the pipeline; the approved plan stays as it was).
    followup_queries = models.JSONField(default=list, blank=True)
    # The round this sub-question is due to be collected for, and the last one that finished
    # (0 = never collected). A follow-up round raises ``due_round`` for thin sub-questions only.
    # What a cheap probe search found before the plan was approved: whether the corpus (or the web)
    # seems to cover this sub-question, e.g. {"status": "uncovered", "message": "...", "hits": 0}.
    coverage = models.JSONField(default=dict, blank=True)
    due_round = models.PositiveSmallIntegerField(default=1)
    collected_round = models.PositiveSmallIntegerField(default=0)
    # Where collecting it is, for the task page while it runs: {"state": "searching" | "fetching" |
    # "selecting" | "done", "done": pages opened, "total": pages to open, "round": n, "sources": n}.
    # Written by the collect stage as it moves, at most about once a second within a state.
    progress = models.JSONField(default=dict, blank=True)
    sources = models.ManyToManyField("researchapp.Source", blank=True, related_name="subquestions")

    class Meta:
        ordering = ["plan", "order", "id"]

    def __str__(self) -> str:
        return self.text[:80]
