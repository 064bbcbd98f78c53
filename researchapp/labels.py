"""Words for pages: a stored task status in its translated label, and how long something has waited."""

from __future__ import annotations

from datetime import datetime

from django.utils import timezone
from django.utils.translation import gettext_lazy as _
from django.utils.translation import ngettext

from researchapp.models import ResearchTask


def status_label(status: str) -> str:
    """A task status stored as a string (an event's from/to, a gate) in the words its choice gives.

    A task itself says ``task.get_status_display()``; a value that is no longer a status is shown as stored.
    """
    try:
        return str(ResearchTask.Status(status).label)
    except ValueError:
        return status


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
