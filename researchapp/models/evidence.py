from __future__ import annotations

from django.conf import settings
from django.db import models


class EvidenceMismatch(ValueError):
    """A quote that is not exactly its snapshot's text at its offsets: never stored."""


class Evidence(models.Model):
    """A verbatim passage: ``source.text[start:end] == quote``, checked before every save."""

    task = models.ForeignKey("researchapp.ResearchTask", on_delete=models.CASCADE, related_name="evidence")
    source = models.ForeignKey("researchapp.Source", on_delete=models.PROTECT, related_name="evidence")
    subquestion = models.ForeignKey(
        "researchapp.SubQuestion", on_delete=models.CASCADE, related_name="evidence"
    )
    start = models.PositiveIntegerField()
    end = models.PositiveIntegerField()
    quote = models.TextField()
    snapshot_sha256 = models.CharField(max_length=64)
    score = models.FloatField(default=0.0, help_text="Rank among the sub-question's passages (BM25 share).")
    # How much of what is asked the passage holds (0..1): the salient terms of its sub-question and
    # of the question (entities, options, the asked-for attribute), weighted by rarity.
    relevance = models.FloatField(default=0.0)
    question_relevance = models.FloatField(default=0.0)
    matched_terms = models.JSONField(
        default=list, blank=True, help_text="The salient terms the passage holds."
    )
    # False for the closest passages kept when nothing cleared the relevance bar: shown under
    # "what was searched" on a [证据不足] item, never as support for anything.
    clears_bar = models.BooleanField(default=True)
    round = models.PositiveSmallIntegerField(default=1)
    # A passage that did not clear the relevance bar but disagrees with one that did: stored as the
    # other side of that disagreement (the passage it disagrees with), so both reach the analyst.
    paired_with = models.ForeignKey(
        "self", null=True, blank=True, on_delete=models.SET_NULL, related_name="other_sides"
    )
    # The analyst who selected this passage by hand at the evidence gate; empty for the pipeline's.
    added_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["subquestion", "-score", "id"]
        verbose_name_plural = "evidence"
        constraints = [
            models.CheckConstraint(
                condition=models.Q(start__gte=0) & models.Q(end__gt=models.F("start")),
                name="evidence_span_valid",
            ),
            models.UniqueConstraint(
                fields=["source", "subquestion", "start", "end"], name="evidence_unique_span"
            ),
        ]

    def __str__(self) -> str:
        return f"E{self.pk}"

    def save(self, *args, **kwargs):
        source = self.source
        if source.text[self.start : self.end] != self.quote:
            raise EvidenceMismatch(f"quote does not match source {source.pk} at [{self.start}:{self.end}]")
        self.snapshot_sha256 = source.sha256
        super().save(*args, **kwargs)

    @property
    def label(self) -> str:
        return f"E{self.pk}"

    def verify(self, snapshot: str | None = None, snapshot_sha256: str | None = None) -> bool:
        text = self.source.text if snapshot is None else snapshot
        digest = self.source.sha256 if snapshot_sha256 is None else snapshot_sha256
        return text[self.start : self.end] == self.quote and digest == self.snapshot_sha256
