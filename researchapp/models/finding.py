from __future__ import annotations

from django.conf import settings
from django.db import models

from researchapp.core.enums import INSUFFICIENT_MARK, FindingStatus, Resolution, Stance
from researchapp.models.status import Decidable


class FindingQuerySet(models.QuerySet):
    def needing_review(self) -> FindingQuerySet:
        return self.filter(
            status__in=[FindingStatus.CONFLICT, FindingStatus.INSUFFICIENT], resolution=Resolution.NONE
        )


class Finding(Decidable):
    Status = models.TextChoices("Status", [(s.name, s.value) for s in FindingStatus])
    Resolution = models.TextChoices(
        "Resolution", [("NONE", ""), *((r.name, r.value) for r in Resolution if r.value)]
    )

    task = models.ForeignKey("researchapp.ResearchTask", on_delete=models.CASCADE, related_name="findings")
    subquestion = models.ForeignKey(
        "researchapp.SubQuestion", on_delete=models.CASCADE, related_name="findings"
    )
    key = models.CharField(max_length=200, help_text="Stable per analysis input, so re-runs upsert.")
    round = models.PositiveSmallIntegerField(default=1)
    status = models.CharField(max_length=16, choices=Status.choices)
    statement = models.TextField()
    # The words of the statement that answer the sub-question ("1,000,000,000"), as the reader read
    # them: the report states them first. "" for conflicts, gaps and findings nobody read for one.
    answer = models.CharField(max_length=500, blank=True, default="")
    confidence = models.CharField(max_length=8, blank=True)
    resolution = models.CharField(max_length=16, choices=Resolution.choices, blank=True, default="")
    resolution_note = models.TextField(blank=True)
    resolved_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL
    )
    resolved_at = models.DateTimeField(null=True, blank=True)
    # Bumped on every decision: a decision names the version it saw, so two analysts cannot both win.
    version = models.PositiveIntegerField(default=1)
    evidence = models.ManyToManyField(
        "researchapp.Evidence", through="FindingEvidence", related_name="findings"
    )
    # A derived finding (deep mode's ``calculate``): the code, each input (name, evidence id, which
    # number of its quote, value) and the result, so the report shows it and the checker re-reads it.
    calculation = models.JSONField(default=dict, blank=True)
    # A conflict's kind ("number", "date", "entity", "negation"), the spans of each linked quote that
    # differ ({"<evidence id>": [[start, end], ...]}, offsets into the quote), the judges' reason and
    # which judges said so: what the evidence gate highlights, and what no report states as fact.
    disagreement = models.JSONField(default=dict, blank=True)

    objects = FindingQuerySet.as_manager()

    DECIDED_BY = "resolved_by"
    # An item is decided once (a dropped citation leaves it undecided, at its next version).
    UNDECIDED = {"resolution": ""}

    class Meta:
        ordering = ["subquestion__order", "id"]
        constraints = [models.UniqueConstraint(fields=["subquestion", "key"], name="finding_unique_key")]

    def __str__(self) -> str:
        return self.statement[:80]

    @property
    def needs_review(self) -> bool:
        return self.status in (FindingStatus.CONFLICT, FindingStatus.INSUFFICIENT) and not self.resolution

    @property
    def display_statement(self) -> str:
        """The statement without the [证据不足] mark the analyser writes at its start: pages that show
        an item's status write the mark themselves, once. The same characters anywhere else (a
        source's sentence that begins with them) are text and are shown."""
        if self.status != FindingStatus.INSUFFICIENT:
            return self.statement
        return self.statement.removeprefix(INSUFFICIENT_MARK).strip()


class FindingEvidence(models.Model):
    finding = models.ForeignKey(Finding, on_delete=models.CASCADE, related_name="links")
    evidence = models.ForeignKey(
        "researchapp.Evidence", on_delete=models.CASCADE, related_name="finding_links"
    )
    stance = models.CharField(
        max_length=16, choices=[(s.value, s.value) for s in Stance], default=Stance.SUPPORTS
    )
    kept = models.BooleanField(default=True, help_text="False once an analyst picked the other side.")

    class Meta:
        ordering = ["finding", "stance", "-evidence__score"]
        constraints = [models.UniqueConstraint(fields=["finding", "evidence"], name="findingevidence_unique")]

    def __str__(self) -> str:
        return f"finding {self.finding_id} {self.stance} E{self.evidence_id}"
