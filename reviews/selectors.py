"""Reads for the review side's gate pages (the queues are ``reviews.queues``, the audit ``reviews.audit``)."""

from __future__ import annotations

from dataclasses import dataclass, field

from django.db.models import Prefetch
from django.shortcuts import get_object_or_404

from researchapp.core.enums import FindingStatus, Stance
from researchapp.models import (
    Evidence,
    Finding,
    FindingEvidence,
    Plan,
    ReportDraft,
    ResearchTask,
    SubQuestion,
)

# --- plan -----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class PlanReview:
    task: ResearchTask
    plan: Plan | None
    subquestions: list[SubQuestion]
    earlier: list[Plan]  # earlier versions, newest first, with the feedback that replaced them

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
