"""Reads for the review side: the audit trail of one task."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from researchapp.models import Event, ResearchTask
from reviews.models import ReviewDecision

AUDIT_LENGTH = 500


@dataclass(frozen=True)
class AuditEntry:
    at: datetime
    who: str
    what: str  # "decision" or an event kind
    stage: str
    message: str


def audit_trail(task: ResearchTask, limit: int = AUDIT_LENGTH) -> list[AuditEntry]:
    """Review decisions and the task's transitions and decisions, oldest first, in two queries."""
    decisions = ReviewDecision.objects.filter(task=task).select_related("reviewer").order_by("-at", "-id")[:limit]
    events = (
        Event.objects.filter(task=task, kind__in=[Event.Kind.TRANSITION, Event.Kind.DECISION, Event.Kind.ERROR])
        .select_related("actor")
        .order_by("-id")[:limit]
    )
    entries = [
        AuditEntry(
            at=d.at,
            who=d.reviewer.get_username() if d.reviewer else "—",
            what="review",
            stage=d.object_type,
            message=(
                f"{d.decision.replace('_', ' ')} {d.object_type} {d.object_id} (saw version {d.version_seen})"
                + (f": {d.note}" if d.note else "")
            ),
        )
        for d in decisions
    ]
    entries += [
        AuditEntry(at=e.at, who=e.actor.get_username() if e.actor else "system", what=e.kind, stage=e.stage,
                   message=e.message)
        for e in events
    ]
    return sorted(entries, key=lambda entry: entry.at)[-limit:]
