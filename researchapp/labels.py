"""The words pages use for the ledger's states, translated (the stored keys never reach a page)."""

from __future__ import annotations

from datetime import datetime

from django.utils import timezone
from django.utils.translation import gettext_lazy as _
from django.utils.translation import ngettext

from researchapp.models import ResearchTask

Status = ResearchTask.Status

STATUS_LABELS = {
    Status.SUBMITTED: _("Submitted"),
    Status.PLANNING: _("Planning"),
    Status.AWAITING_PLAN_REVIEW: _("Plan review"),
    Status.COLLECTING: _("Collecting"),
    Status.ANALYSING: _("Analysing"),
    Status.AWAITING_EVIDENCE_REVIEW: _("Evidence review"),
    Status.WRITING: _("Writing"),
    Status.AWAITING_REPORT_REVIEW: _("Report review"),
    Status.APPROVED: _("Approved"),
    Status.FAILED: _("Failed"),
    Status.CANCELLED: _("Cancelled"),
}

DEPTH_LABELS = {ResearchTask.Depth.QUICK: _("Quick"), ResearchTask.Depth.DEEP: _("Deep")}


def status_label(status: str) -> str:
    """A task status as people say it ("Plan review", not ``awaiting_plan_review``)."""
    return str(STATUS_LABELS.get(status, status))


def waited(since: datetime | None, now: datetime | None = None) -> str:
    """How long something has waited, in the largest unit that fits: "just now", "5 min", "3 h", "2 days"."""
    if since is None:
        return ""
    seconds = max(0, int(((now or timezone.now()) - since).total_seconds()))
    if seconds < 60:
        return str(_("just now"))
    minutes, hours, days = seconds // 60, seconds // 3600, seconds // 86400
    if hours < 1:
        return ngettext("%(n)d minute", "%(n)d minutes", minutes) % {"n": minutes}
    if days < 1:
        return ngettext("%(n)d hour", "%(n)d hours", hours) % {"n": hours}
    return ngettext("%(n)d day", "%(n)d days", days) % {"n": days}
