"""Reads for the review side: each gate's page, the queue of tasks waiting at a gate, the audit trail."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

from django.db.models import Count, Prefetch, Q
from django.shortcuts import get_object_or_404

from researchapp import selectors
from researchapp.core.enums import FindingStatus, Stance
from researchapp.models import (
    Event,
    Evidence,
    Finding,
    FindingEvidence,
    Plan,
    ReportDraft,
    ResearchTask,
    SubQuestion,
)
from reviews.models import ReviewDecision

AUDIT_LENGTH = 500


# --- plan -----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class PlanReview:
    task: ResearchTask
    plan: Plan | None
    subquestions: list[SubQuestion]
    earlier: list[Plan]  # earlier versions, newest first, with the feedback that replaced them

    @property
    def uncovered(self) -> int:
        """Sub-questions the answerability probe found nothing relevant for."""
        return sum((sq.coverage or {}).get("status") == "uncovered" for sq in self.subquestions)

    @property
    def covers_nothing(self) -> bool:
        return bool(self.subquestions) and self.uncovered == len(self.subquestions)

    @property
    def editable(self) -> bool:
        return (
            self.plan is not None
            and self.plan.is_editable
            and self.task.status == ResearchTask.Status.AWAITING_PLAN_REVIEW
        )


def plan_for_review(task: ResearchTask) -> PlanReview:
    plans = list(task.plans.select_related("decided_by").order_by("-version"))
    plan = plans[0] if plans else None
    subquestions = list(plan.subquestions.order_by("order", "id")) if plan else []
    return PlanReview(task=task, plan=plan, subquestions=subquestions, earlier=plans[1:])


# --- evidence review ------------------------------------------------------------------------------


@dataclass(frozen=True)
class FindingItem:
    finding: Finding
    supports: list[FindingEvidence]
    contradicts: list[FindingEvidence]

    @property
    def needs_review(self) -> bool:
        return self.finding.needs_review

    @property
    def sides(self) -> list[tuple[str, list[FindingEvidence], str, str, str]]:
        """(side, its links, the decision that picks it, its heading, the button's test id)."""
        return [
            (
                "supports",
                self.supports,
                "pick_supports",
                "Side A — these sources say so",
                "decide-pick-supports",
            ),
            (
                "contradicts",
                self.contradicts,
                "pick_contradicts",
                "Side B — these sources disagree",
                "decide-pick-contradicts",
            ),
        ]


@dataclass(frozen=True)
class FindingsReview:
    task: ResearchTask
    conflicts: list[FindingItem] = field(default_factory=list)
    insufficient: list[FindingItem] = field(default_factory=list)
    supported: list[FindingItem] = field(default_factory=list)
    can_more_research: bool = False

    @property
    def pending(self) -> int:
        return sum(item.needs_review for item in [*self.conflicts, *self.insufficient])

    @property
    def open(self) -> bool:
        return self.task.status == ResearchTask.Status.AWAITING_EVIDENCE_REVIEW


def _links_prefetch() -> Prefetch:
    links = (
        FindingEvidence.objects.select_related("evidence__source")
        .defer("evidence__source__text")
        .order_by("stance", "-evidence__score", "evidence_id")
    )
    return Prefetch("links", queryset=links)


def findings_for_review(task: ResearchTask) -> FindingsReview:
    """Conflicts with both sides' evidence and sources, [证据不足] items, and what is supported."""
    rows = (
        Finding.objects.filter(task=task)
        .select_related("subquestion", "resolved_by")
        .prefetch_related(_links_prefetch())
        .order_by("subquestion__order", "id")
    )
    review = FindingsReview(task=task, can_more_research=bool(task.rounds_left))
    by_status = {
        FindingStatus.CONFLICT: review.conflicts,
        FindingStatus.INSUFFICIENT: review.insufficient,
        FindingStatus.SUPPORTED: review.supported,
    }
    for finding in rows:
        links = list(finding.links.all())
        item = FindingItem(
            finding=finding,
            supports=[link for link in links if link.stance == Stance.SUPPORTS],
            contradicts=[link for link in links if link.stance == Stance.CONTRADICTS],
        )
        by_status[FindingStatus(finding.status)].append(item)
    return review


def finding_in_task(task: ResearchTask, finding_id: int) -> Finding:
    return get_object_or_404(Finding.objects.select_related("task"), pk=finding_id, task=task)


# --- report ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class ReportView:
    task: ResearchTask
    draft: ReportDraft | None
    evidence: list[Evidence]  # the cited rows, in the order the report first cites them
    earlier: list[ReportDraft]

    @property
    def evidence_ids(self) -> frozenset[int]:
        return frozenset(e.pk for e in self.evidence)

    @property
    def reviewable(self) -> bool:
        return (
            self.draft is not None
            and self.task.status == ResearchTask.Status.AWAITING_REPORT_REVIEW
            and self.draft.status == ReportDraft.Status.CHECKED
        )

    @property
    def approved(self) -> bool:
        return self.draft is not None and self.draft.status == ReportDraft.Status.APPROVED


def report_for(task: ResearchTask) -> ReportView:
    drafts = list(
        task.drafts.select_related("approved_by").defer("markdown", "claims").order_by("-version")[:10]
    )
    draft = task.drafts.select_related("approved_by").order_by("-version").first()
    evidence: list[Evidence] = []
    if draft is not None:
        ids = draft.cited_evidence_ids
        rows = Evidence.objects.filter(task=task, pk__in=ids).select_related("source").defer("source__text")
        by_id = {row.pk: row for row in rows}
        evidence = [by_id[i] for i in ids if i in by_id]
    return ReportView(task=task, draft=draft, evidence=evidence, earlier=drafts[1:])


# --- queue and audit ---------------------------------------------------------------------------


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
