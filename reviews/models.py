"""The review side's rows: decisions (the audit), claims on queue items, and each person's preferences."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils import timezone


class ReviewDecision(models.Model):
    """Who decided what about which object, when, and which version of it they were looking at.

    ``events`` are the Event rows the decision wrote through the research services (the plan's and
    the task's moves, a plan edit with its diff): the audit shows them as this decision's one line.
    """

    class ObjectType(models.TextChoices):
        PLAN = "plan"
        FINDING = "finding"
        REPORT = "report"
        HYPOTHESIS = "hypothesis"

    task = models.ForeignKey("researchapp.ResearchTask", on_delete=models.CASCADE, related_name="decisions")
    reviewer = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL)
    object_type = models.CharField(max_length=16, choices=ObjectType.choices)
    object_id = models.PositiveBigIntegerField()
    decision = models.CharField(max_length=32)
    note = models.TextField(blank=True)
    version_seen = models.PositiveIntegerField(default=1)
    at = models.DateTimeField(auto_now_add=True)
    events = models.ManyToManyField("researchapp.Event", blank=True, related_name="review_decisions")

    class Meta:
        ordering = ["-at", "-id"]
        indexes = [models.Index(fields=["object_type", "object_id"])]

    def __str__(self) -> str:
        return f"{self.reviewer} {self.decision} {self.object_type} {self.object_id}"


class ClaimQuerySet(models.QuerySet):
    def live(self) -> ClaimQuerySet:
        return self.filter(expires_at__gt=timezone.now())


class Claim(models.Model):
    """One analyst's hold on one queue item (a task's plan or report, or one finding) until it expires.

    Claims have no status: a row whose ``expires_at`` has passed is no claim and is replaced by the
    next one taken; releasing or deciding the item deletes the row. The partial unique constraints
    make "two analysts claim one item" a database conflict, so exactly one of them gets it.
    """

    task = models.ForeignKey("researchapp.ResearchTask", on_delete=models.CASCADE, related_name="claims")
    object_type = models.CharField(max_length=16, choices=ReviewDecision.ObjectType.choices)
    finding = models.ForeignKey("researchapp.Finding", null=True, blank=True, on_delete=models.CASCADE)
    analyst = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="claims")
    claimed_at = models.DateTimeField(default=timezone.now)
    expires_at = models.DateTimeField()

    objects = ClaimQuerySet.as_manager()

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["task", "object_type"], condition=Q(finding__isnull=True), name="claim_one_per_gate"
            ),
            models.UniqueConstraint(
                fields=["finding"], condition=Q(finding__isnull=False), name="claim_one_per_finding"
            ),
        ]

    def __str__(self) -> str:
        item = f"finding {self.finding_id}" if self.finding_id else self.object_type
        return f"{self.analyst} claims {item} of task {self.task_id} until {self.expires_at:%H:%M}"


class UserPreference(models.Model):
    """What one person chose: the language and time zone of the pages, and which emails they get.

    Blank language and time zone mean "as the browser asks" and the site's time zone.
    """

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, primary_key=True, related_name="preference"
    )
    language = models.CharField(max_length=16, blank=True, choices=settings.LANGUAGES)
    time_zone = models.CharField(max_length=64, blank=True)
    email_when_waiting = models.BooleanField(
        default=True, help_text="Email this analyst when a task reaches a review gate."
    )
    email_when_failed = models.BooleanField(default=True, help_text="Email the owner when their task fails.")
    email_when_report_decided = models.BooleanField(
        default=True, help_text="Email the owner when their task's report is approved or sent back."
    )

    def __str__(self) -> str:
        return f"preferences of {self.user}"
