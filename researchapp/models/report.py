from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _

from researchapp.models.status import Decidable, StatusMachine


class ImmutableReport(Exception):
    """An approved report never changes."""


class ReportDraftQuerySet(models.QuerySet):
    def current(self) -> ReportDraft | None:
        """The latest version: the one an analyst reviews, or the one that was approved."""
        return self.order_by("-version").first()


class ReportDraft(StatusMachine, Decidable):
    class Status(models.TextChoices):
        CHECKED = "checked", _("Checked")  # passed every mechanical check; awaiting an analyst
        FAILED_CHECKS = "failed_checks", _("Failed checks")  # a revision follows, or the task fails
        APPROVED = "approved", _("Approved")
        SENT_BACK = "sent_back", _("Sent back")

    # The status machine's table, as every model with a status has one (see models.status); a
    # report draft's moves are decisions at its gate, so each state it can reach is final.
    TRANSITIONS = {
        Status.CHECKED: frozenset({Status.APPROVED, Status.SENT_BACK}),
        Status.FAILED_CHECKS: frozenset(),
        Status.APPROVED: frozenset(),
        Status.SENT_BACK: frozenset(),
    }
    # ``version`` names the draft among its task's versions: a decision does not move it on. Only an
    # approval records who decided.
    COUNTS_DECISIONS = False
    DECIDED_BY = "approved_by"
    UNDECIDED = {"status": Status.CHECKED}

    task = models.ForeignKey("researchapp.ResearchTask", on_delete=models.CASCADE, related_name="drafts")
    version = models.PositiveSmallIntegerField()
    write_pass = models.PositiveSmallIntegerField(default=1)
    revision = models.PositiveSmallIntegerField(default=1)
    markdown = models.TextField()
    claims = models.JSONField(default=list, help_text="[{text, evidence_ids, section}]")
    # What every export renders (pipeline.report.document): the Markdown above is the writer's record.
    document = models.JSONField(default=dict, blank=True, help_text="The report's structure, as written.")
    check_issues = models.JSONField(
        default=list, help_text="[{code, message, claim_index, claim, evidence_ids, figure}]"
    )
    status = models.CharField(max_length=16, choices=Status.choices)
    engine = models.CharField(max_length=32, blank=True)
    # Why the draft is not the task engine's own, e.g. the model's draft was rejected twice: shown in
    # the report's method section.
    engine_note = models.TextField(blank=True)
    feedback = models.TextField(blank=True, help_text="The analyst's comments when sent back.")
    # Comments attached to sentences when sent back: [{anchor, sentence, comment}] (anchors as the
    # report page numbers its sentences, "s1", "s2", …; the sentence's text is kept with each).
    sentence_comments = models.JSONField(default=list, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    approved_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL
    )
    approved_at = models.DateTimeField(null=True, blank=True)

    objects = ReportDraftQuerySet.as_manager()

    class Meta:
        ordering = ["task", "-version"]
        constraints = [
            models.UniqueConstraint(fields=["task", "version"], name="reportdraft_unique_version"),
            models.UniqueConstraint(
                fields=["task", "write_pass", "revision"], name="reportdraft_unique_pass"
            ),
        ]

    def __str__(self) -> str:
        return f"report v{self.version} of task {self.task_id}"

    def save(self, *args, **kwargs):
        if self.pk and type(self).objects.filter(pk=self.pk, status=self.Status.APPROVED).exists():
            raise ImmutableReport(f"report {self.pk} is approved and cannot change")
        super().save(*args, **kwargs)

    def event_task_id(self) -> int:
        return self.task_id

    def describe(self) -> str:
        return f"report v{self.version}"

    @property
    def cited_evidence_ids(self) -> list[int]:
        seen: dict[int, None] = {}
        for claim in self.claims:
            for evidence_id in claim["evidence_ids"]:
                seen.setdefault(int(evidence_id), None)
        return list(seen)
