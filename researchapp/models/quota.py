from __future__ import annotations

from django.conf import settings
from django.db import models


class SubmissionQuota(models.Model):
    """One person's own submission limits, set by an administrator over the site's settings.

    Each limit left blank is the site's (``RESEARCH_QUOTA_*``); 0 means no limit for this person.
    """

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="submission_quota"
    )
    tasks_in_flight = models.PositiveIntegerField(
        null=True,
        blank=True,
        help_text="Tasks running or waiting for review at once. Blank: the site's; 0: none.",
    )
    tasks_per_day = models.PositiveIntegerField(
        null=True, blank=True, help_text="Tasks submitted in any 24 hours. Blank: the site's; 0: no limit."
    )
    tokens_per_day = models.PositiveBigIntegerField(
        null=True,
        blank=True,
        help_text="Model tokens (in + out) in any 24 hours. Blank: the site's; 0: no limit.",
    )
    note = models.CharField(max_length=300, blank=True, help_text="Why this person's limits differ.")

    def __str__(self) -> str:
        return f"submission limits of {self.user}"
