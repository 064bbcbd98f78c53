"""Reads for the review side: the queue of tasks waiting at a gate, and one task's audit trail."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from django.db.models import Count, Q

from researchapp import selectors
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
    decisions = (
        ReviewDecision.objects.filter(task=task).select_related("reviewer").order_by("-at", "-id")[:limit]
    )
    events = (
        Event.objects.filter(
            task=task, kind__in=[Event.Kind.TRANSITION, Event.Kind.DECISION, Event.Kind.ERROR]
        )
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
        AuditEntry(
            at=e.at,
            who=e.actor.get_username() if e.actor else "system",
            what=e.kind,
            stage=e.stage,
            message=e.message,
        )
        for e in events
    ]
    return sorted(entries, key=lambda entry: entry.at)[-limit:]


@dataclass(frozen=True)
class ReviewQueue:
    plans: list[ResearchTask]
    evidence: list[ResearchTask]
    reports: list[ResearchTask]
    waiting: dict[str, int]  # status → how many tasks wait there, shown or not

    @property
    def total(self) -> int:
        return sum(self.waiting.values())

    @property
    def plans_waiting(self) -> int:
        return self.waiting[ResearchTask.Status.AWAITING_PLAN_REVIEW]

    @property
    def evidence_waiting(self) -> int:
        return self.waiting[ResearchTask.Status.AWAITING_EVIDENCE_REVIEW]

    @property
    def reports_waiting(self) -> int:
        return self.waiting[ResearchTask.Status.AWAITING_REPORT_REVIEW]


QUEUE_LENGTH = 25  # per gate: the oldest waits first; the rest are counted, not listed


def review_queue_for(user) -> ReviewQueue:
    """The tasks waiting for an analyst, oldest wait first, grouped by gate (four queries)."""
    Status = ResearchTask.Status
    awaiting = ResearchTask.objects.visible_to(user).filter(status__in=ResearchTask.AWAITING)
    waiting = awaiting.aggregate(
        **{status: Count("pk", filter=Q(status=status)) for status in ResearchTask.AWAITING}
    )
    groups = {
        status: list(
            selectors.with_counts(awaiting.filter(status=status).select_related("owner")).order_by(
                "updated_at", "id"
            )[:QUEUE_LENGTH]
        )
        for status in ResearchTask.AWAITING
    }
    return ReviewQueue(
        plans=groups[Status.AWAITING_PLAN_REVIEW],
        evidence=groups[Status.AWAITING_EVIDENCE_REVIEW],
        reports=groups[Status.AWAITING_REPORT_REVIEW],
        waiting=waiting,
    )
