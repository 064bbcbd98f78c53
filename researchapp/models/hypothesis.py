"""Hypotheses: claims the engine proposes after the first round, tested against stored evidence."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _

from researchapp.core.enums import HypothesisStance, HypothesisStatus
from researchapp.models.status import Decidable, StatusMachine


class Hypothesis(StatusMachine, Decidable):
    # The stored values are core's (the pipeline proposes hypotheses without Django); the labels, the pages'.
    class Status(models.TextChoices):
        OPEN = HypothesisStatus.OPEN.value, _("open")
        ACCEPTED = HypothesisStatus.ACCEPTED.value, _("accepted")
        REJECTED = HypothesisStatus.REJECTED.value, _("rejected")

    # The status machine's table, as every model with a status has one (see models.status). Every
    # move is an analyst's verdict: a verdict can be turned or reopened later, and keeping an open
    # hypothesis open is a verdict too (recorded, with its note); stating a verdict it already has
    # is not a move.
    TRANSITIONS = {
        Status.OPEN: frozenset({Status.OPEN, Status.ACCEPTED, Status.REJECTED}),
        Status.ACCEPTED: frozenset({Status.OPEN, Status.REJECTED}),
        Status.REJECTED: frozenset({Status.OPEN, Status.ACCEPTED}),
    }

    task = models.ForeignKey("researchapp.ResearchTask", on_delete=models.CASCADE, related_name="hypotheses")
    key = models.CharField(max_length=200, help_text="Stable per proposer input, so re-runs upsert.")
    statement = models.TextField()
    supports_if = models.TextField(help_text="What evidence would support it.")
    refutes_if = models.TextField(help_text="What evidence would refute it.")
    status = models.CharField(max_length=16, choices=Status.choices, default=HypothesisStatus.OPEN.value)
    decided_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL)
    decided_at = models.DateTimeField(null=True, blank=True)
    note = models.TextField(blank=True)
    # Bumped on every decision: a decision names the version it saw, so two analysts cannot both win.
    version = models.PositiveIntegerField(default=1)
    proposed_by = models.CharField(max_length=32, blank=True, help_text='"extractive" or "model".')
    created_at = models.DateTimeField(auto_now_add=True)
    evidence = models.ManyToManyField(
        "researchapp.Evidence", through="HypothesisEvidence", related_name="hypotheses"
    )

    class Meta:
        ordering = ["task", "id"]
        verbose_name_plural = "hypotheses"
        constraints = [models.UniqueConstraint(fields=["task", "key"], name="hypothesis_unique_key")]

    def __str__(self) -> str:
        return self.statement[:80]

    def event_task_id(self) -> int:
        return self.task_id

    def describe(self) -> str:
        return f"hypothesis {self.pk}"


class HypothesisEvidence(models.Model):
    hypothesis = models.ForeignKey(Hypothesis, on_delete=models.CASCADE, related_name="links")
    evidence = models.ForeignKey(
        "researchapp.Evidence", on_delete=models.CASCADE, related_name="hypothesis_links"
    )
    stance = models.CharField(max_length=8, choices=[(s.value, s.value) for s in HypothesisStance])

    class Meta:
        ordering = ["hypothesis", "stance", "id"]
        constraints = [
            models.UniqueConstraint(fields=["hypothesis", "evidence"], name="hypothesisevidence_unique")
        ]

    def __str__(self) -> str:
        return f"hypothesis {self.hypothesis_id} {self.stance} E{self.evidence_id}"
