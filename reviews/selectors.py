"""Reads for the review side's gate pages (the queues are ``reviews.queues``, the audit ``reviews.audit``)."""

from __future__ import annotations

from dataclasses import dataclass, field
from difflib import SequenceMatcher

from django.db.models import Prefetch
from django.shortcuts import get_object_or_404

from researchapp.core.enums import FindingStatus, HypothesisStance, Stance
from researchapp.exports.report import Quote, Report, document_of, report_of
from researchapp.models import (
    Finding,
    FindingEvidence,
    Hypothesis,
    HypothesisEvidence,
    Plan,
    ReportDraft,
    ResearchTask,
    SubQuestion,
)
from researchapp.permissions import is_analyst
from researchapp.pipeline.report.document import Document

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
class Change:
    """A sentence a new version added or removed, against the version the analyst sent back."""

    kind: str  # "added" or "removed"
    text: str


@dataclass(frozen=True)
class ReportView:
    task: ResearchTask
    draft: ReportDraft | None
    report: Report | None  # the draft as every format renders it
    earlier: list[ReportDraft]
    sent_back: ReportDraft | None = None  # the last version an analyst sent back, with its comments
    changes: list[Change] = field(default_factory=list)  # this version against ``sent_back``

    @property
    def evidence(self) -> list[Quote]:
        """The cited quotes, in the order the report first cites them."""
        return list(self.report.appendix) if self.report else []

    @property
    def evidence_ids(self) -> frozenset[int]:
        return frozenset(quote.evidence_id for quote in self.evidence)

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

    @property
    def sentences(self) -> dict[str, str]:
        """Anchor → text of every sentence a comment can attach to."""
        return {s.anchor: s.text for s in self.report.sentences()} if self.report else {}


def _reading(document: Document) -> list[str]:
    """A version's sentences in reading order, each once (a summary repeats its sections')."""
    answer = () if document.answer_is_summary else document.answer
    texts = [s.text for s in (*answer, *(s for section in document.sections for s in section.statements))]
    texts += [d.claim.text if d.claim else d.topic for d in document.disputes]
    return texts + [gap.statement for gap in document.gaps]


def sentence_changes(before: Document, after: Document) -> list[Change]:
    """What the later version says that the earlier did not, and the reverse, in reading order."""
    old, new = _reading(before), _reading(after)
    changes = []
    for op, i1, i2, j1, j2 in SequenceMatcher(None, old, new, autojunk=False).get_opcodes():
        if op in ("replace", "delete"):
            changes += [Change("removed", text) for text in old[i1:i2]]
        if op in ("replace", "insert"):
            changes += [Change("added", text) for text in new[j1:j2]]
    return changes


def report_for(task: ResearchTask) -> ReportView:
    """The current draft as the report model, the earlier versions, and the changes since the last
    version an analyst sent back."""
    drafts = list(
        task.drafts.select_related("approved_by")
        .defer("markdown", "claims", "document")
        .order_by("-version")[:10]
    )
    draft = task.drafts.select_related("approved_by").order_by("-version").first()
    if draft is None:
        return ReportView(task=task, draft=None, report=None, earlier=[])
    report = report_of(draft, ResearchTask.objects.filter(pk=task.pk))
    sent_back = (
        task.drafts.filter(version__lt=draft.version, status=ReportDraft.Status.SENT_BACK)
        .order_by("-version")
        .first()
    )
    changes = sentence_changes(document_of(sent_back), report.document) if sent_back else []
    return ReportView(
        task=task, draft=draft, report=report, earlier=drafts[1:], sent_back=sent_back, changes=changes
    )


# --- hypotheses (evidence gate) -------------------------------------------------------------------


@dataclass(frozen=True)
class HypothesisItem:
    hypothesis: Hypothesis
    support: list[HypothesisEvidence]
    refute: list[HypothesisEvidence]


def hypotheses_for_review(task: ResearchTask) -> list[HypothesisItem]:
    """The task's hypotheses with the quotes on each side and their sources (a fixed number of queries)."""
    links = (
        HypothesisEvidence.objects.select_related("evidence__source")
        .defer("evidence__source__text")
        .order_by("stance", "-evidence__score", "evidence_id")
    )
    rows = (
        Hypothesis.objects.filter(task=task)
        .select_related("decided_by")
        .prefetch_related(Prefetch("links", queryset=links))
        .order_by("id")
    )
    items = []
    for row in rows:
        every = list(row.links.all())
        items.append(
            HypothesisItem(
                hypothesis=row,
                support=[link for link in every if link.stance == HypothesisStance.SUPPORT],
                refute=[link for link in every if link.stance == HypothesisStance.REFUTE],
            )
        )
    return items


def hypothesis_in_task(task: ResearchTask, hypothesis_id: int) -> Hypothesis:
    return get_object_or_404(Hypothesis.objects.select_related("task"), pk=hypothesis_id, task=task)


def hypotheses_context(task: ResearchTask, user) -> dict:
    """What ``partials/hypotheses.html`` needs, for any page that includes it (the evidence review)."""
    return {
        "hypotheses": hypotheses_for_review(task),
        "can_decide_hypotheses": is_analyst(user)
        and task.status == ResearchTask.Status.AWAITING_EVIDENCE_REVIEW,
    }
