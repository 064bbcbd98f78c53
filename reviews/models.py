from __future__ import annotations

from django.conf import settings
from django.db import models


class ReviewDecision(models.Model):
    """Who decided what about which object, when, and which version of it they were looking at."""

    class ObjectType(models.TextChoices):
        PLAN = "plan"
        FINDING = "finding"
        REPORT = "report"

    task = models.ForeignKey("researchapp.ResearchTask", on_delete=models.CASCADE, related_name="decisions")
    reviewer = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL)
    object_type = models.CharField(max_length=16, choices=ObjectType.choices)
    object_id = models.PositiveBigIntegerField()
    decision = models.CharField(max_length=32)
    note = models.TextField(blank=True)
    version_seen = models.PositiveIntegerField(default=1)
    at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-at", "-id"]
        indexes = [models.Index(fields=["object_type", "object_id"])]

    def __str__(self) -> str:
        return f"{self.reviewer} {self.decision} {self.object_type} {self.object_id}"
