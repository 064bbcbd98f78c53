"""Reads for the evidence gate: conflicts with both sides in context, [证据不足] items with what was tried.

Queries per page do not grow with the rows: findings come with their links, evidence and sources in
one prefetch, each quote with a window of its snapshot cut in the database (``Substr``: the snapshot
itself is never loaded), and the [证据不足] items' sub-questions with their opened sources and closest
passages in two more.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from django.db.models import F, Prefetch, Value, prefetch_related_objects
from django.db.models.functions import Greatest, Substr
from django.shortcuts import get_object_or_404
from django.utils.translation import gettext_lazy

from researchapp.core.enums import FindingStatus, Resolution, Stance
from researchapp.models import Evidence, Finding, FindingEvidence, ResearchTask, Source, SubQuestion
from reviews.selectors.passages import Paragraph, differing_spans, figures, marked_paragraphs

# What a conflict's judges said differs, as the evidence gate names it.
KIND_LABELS = {
    "number": gettext_lazy("figures"),
    "date": gettext_lazy("dates"),
    "entity": gettext_lazy("names"),
    "negation": gettext_lazy("one says it is so, the other that it is not"),
}
JUDGED_BY_RULES = gettext_lazy("Seen by the comparison rules.")
JUDGED_BY_MODEL = gettext_lazy("Seen by the model.")
JUDGED_BY_BOTH = gettext_lazy("Seen by the comparison rules and the model.")
CONTEXT_CHARS = 600  # of the snapshot either side of a quote, cut in the database
CLOSEST_SHOWN = 5  # closest passages shown on a [证据不足] item
SOURCE_CHOICES = 200  # stored sources offered for adding evidence by hand


@dataclass(frozen=True)
class QuoteInContext:
    """One quote of a conflict's side, inside the paragraphs around it in its snapshot."""

    link: FindingEvidence
    paragraphs: list[Paragraph]
    differs: bool  # the quote states a figure the other side does not

    @property
    def evidence(self) -> Evidence:
        return self.link.evidence

    @property
    def source(self) -> Source:
        return self.link.evidence.source


@dataclass(frozen=True)
class Side:
    """Side A (the sources that say so) or side B (the sources that disagree) of a conflict."""

    stance: str
    letter: str  # "A" or "B"
    decision: str  # the decision that picks it
    quotes: list[QuoteInContext]

    @property
    def hosts(self) -> str:
        return ", ".join(dict.fromkeys(q.source.host or q.source.url for q in self.quotes)) or "—"

    @property
    def clusters(self) -> set[str]:
        return {q.source.cluster or q.source.normalized_url for q in self.quotes}

    @property
    def kept(self) -> bool:
        return any(q.link.kept for q in self.quotes)

    @property
    def shortcut(self) -> str:
        return self.letter.lower()


@dataclass(frozen=True)
class GapContext:
    """What was tried for a [证据不足] item's sub-question."""

    subquestion: SubQuestion
    opened: list[Source]  # the sources collection opened for it
    closest: list[Evidence]  # its passages that did not clear the relevance bar, best first

    @property
    def queries(self) -> list[str]:
        return list(self.subquestion.queries)

    @property
    def followup_queries(self) -> list[str]:
        return [q for q in self.subquestion.followup_queries if q not in self.subquestion.queries]

    @property
    def coverage(self) -> dict:
        return self.subquestion.coverage or {}


@dataclass(frozen=True)
class FindingItem:
    finding: Finding
    supports: list[FindingEvidence]
    contradicts: list[FindingEvidence]
    sides: list[Side] = field(default_factory=list)  # a conflict's two sides
    gap: GapContext | None = None  # an [证据不足] item's searches and closest passages

    @property
    def needs_review(self) -> bool:
        return self.finding.needs_review

    @property
    def picked(self) -> Side | None:
        """The side an analyst picked: the one whose quotes were kept."""
        if self.finding.resolution != Resolution.PICKED:
            return None
        return next((side for side in self.sides if side.kept), None)

    @property
    def kind(self) -> str:
        """What differs, as the judges read it ("" for a conflict stored without it)."""
        return KIND_LABELS.get((self.finding.disagreement or {}).get("kind", ""), "")

    @property
    def judged_by(self) -> str:
        """Who saw the disagreement, in the reader's language (the judges' own reasons are English
        audit text, kept on the finding, not shown)."""
        judges = set((self.finding.disagreement or {}).get("judges", ()))
        if "model" in judges:
            return str(JUDGED_BY_MODEL if judges == {"model"} else JUDGED_BY_BOTH)
        return str(JUDGED_BY_RULES) if judges else ""

    @property
    def shared_clusters(self) -> bool:
        """Both sides quote one independence cluster (copies of one page, or pages of one host)."""
        return len(self.sides) == 2 and bool(self.sides[0].clusters & self.sides[1].clusters)

    @property
    def added_by_hand(self) -> list[Evidence]:
        return [link.evidence for link in self.supports if link.kept and link.evidence.added_by_id]


@dataclass(frozen=True)
class FindingsReview:
    task: ResearchTask
    conflicts: list[FindingItem] = field(default_factory=list)
    insufficient: list[FindingItem] = field(default_factory=list)
    supported: list[FindingItem] = field(default_factory=list)
    answered: list[FindingItem] = field(default_factory=list)  # [证据不足] items given evidence by hand
    can_more_research: bool = False
    sources: list[Source] = field(default_factory=list)  # offered for adding evidence by hand

    @property
    def pending(self) -> int:
        return sum(item.needs_review for item in [*self.conflicts, *self.insufficient])

    @property
    def open(self) -> bool:
        return self.task.status == ResearchTask.Status.AWAITING_EVIDENCE_REVIEW


def _links_prefetch() -> Prefetch:
    """Each link with its evidence, source and the window of the snapshot around the quote."""
    window_start = Greatest(F("evidence__start") - CONTEXT_CHARS, Value(0))
    links = (
        FindingEvidence.objects.select_related("evidence__source", "evidence__added_by")
        .defer("evidence__source__text")
        .annotate(
            window_start=window_start,
            window=Substr(
                "evidence__source__text",
                window_start + 1,  # SQL counts from 1
                F("evidence__end") - window_start + CONTEXT_CHARS,
            ),
        )
        .order_by("stance", "-evidence__score", "evidence_id")
    )
    return Prefetch("links", queryset=links)


def _in_context(link: FindingEvidence, other_side: set, judged: list | None = None) -> QuoteInContext:
    evidence = link.evidence
    start = evidence.start - link.window_start
    differs = [tuple(span) for span in judged] if judged else differing_spans(evidence.quote, other_side)
    paragraphs = marked_paragraphs(
        link.window,
        start,
        start + len(evidence.quote),
        differs,
        clipped_before=link.window_start > 0,
        # A window as long as asked for may stop inside the snapshot; a shorter one reached its end.
        clipped_after=len(link.window) >= evidence.end - link.window_start + CONTEXT_CHARS,
    )
    return QuoteInContext(link=link, paragraphs=paragraphs, differs=bool(differs))


def _sides(
    supports: list[FindingEvidence], contradicts: list[FindingEvidence], judged: dict[str, list] | None = None
) -> list[Side]:
    """Both sides; in each quote, the spans the judges said differ (``Finding.disagreement``), or
    for a conflict stored without them, the figures the other side does not state."""
    said = figures(link.evidence.quote for link in supports)
    denied = figures(link.evidence.quote for link in contradicts)

    def quote(link: FindingEvidence, other: set) -> QuoteInContext:
        return _in_context(link, other, (judged or {}).get(str(link.evidence_id)))

    return [
        Side(Stance.SUPPORTS, "A", "pick_supports", [quote(link, denied) for link in supports]),
        Side(Stance.CONTRADICTS, "B", "pick_contradicts", [quote(link, said) for link in contradicts]),
    ]


def _gap_contexts(subquestions: list[SubQuestion]) -> dict[int, GapContext]:
    """Two queries for all of them: the sources opened, and the best passages below the bar."""
    if not subquestions:
        return {}
    opened = Source.objects.defer("text").order_by("id")
    closest = (
        Evidence.objects.filter(clears_bar=False)
        .select_related("source")
        .defer("source__text")
        .order_by("-relevance", "-score", "id")
    )
    prefetch_related_objects(
        subquestions,
        Prefetch("sources", queryset=opened, to_attr="opened"),
        Prefetch("evidence", queryset=closest[:CLOSEST_SHOWN], to_attr="closest"),
    )
    return {sq.pk: GapContext(subquestion=sq, opened=sq.opened, closest=sq.closest) for sq in subquestions}


def findings_for_review(task: ResearchTask, *, with_sources: bool = False) -> FindingsReview:
    """Conflicts with both sides in context, [证据不足] items with what was tried, and what is supported.

    ``with_sources``: also the task's stored sources, for an analyst to add evidence by hand.
    """
    rows = list(
        Finding.objects.filter(task=task)
        .select_related("subquestion", "resolved_by")
        .prefetch_related(_links_prefetch())
        .order_by("subquestion__order", "id")
    )
    gaps = {f.subquestion_id: f.subquestion for f in rows if f.status == FindingStatus.INSUFFICIENT}
    contexts = _gap_contexts(list(gaps.values()))
    open_gaps = with_sources and any(f.needs_review for f in rows if f.status == FindingStatus.INSUFFICIENT)
    review = FindingsReview(
        task=task,
        can_more_research=bool(task.rounds_left),
        sources=list(task.sources.only("id", "title", "host", "url")[:SOURCE_CHOICES]) if open_gaps else [],
    )
    by_status = {
        FindingStatus.CONFLICT: review.conflicts,
        FindingStatus.INSUFFICIENT: review.insufficient,
        FindingStatus.SUPPORTED: review.supported,
    }
    for finding in rows:
        links = list(finding.links.all())
        supports = [link for link in links if link.stance == Stance.SUPPORTS]
        contradicts = [link for link in links if link.stance == Stance.CONTRADICTS]
        status = FindingStatus(finding.status)
        item = FindingItem(
            finding=finding,
            supports=supports,
            contradicts=contradicts,
            sides=_sides(supports, contradicts, (finding.disagreement or {}).get("spans"))
            if status == FindingStatus.CONFLICT
            else [],
            gap=contexts.get(finding.subquestion_id) if status == FindingStatus.INSUFFICIENT else None,
        )
        if status == FindingStatus.SUPPORTED and not finding.resolution and finding.resolved_at:
            review.answered.append(item)  # only evidence added by hand decides a supported finding
        else:
            by_status[status].append(item)
    return review


def finding_in_task(task: ResearchTask, finding_id: int) -> Finding:
    return get_object_or_404(Finding.objects.select_related("task", "subquestion"), pk=finding_id, task=task)


def source_in_task(task: ResearchTask, source_id: int) -> Source:
    return get_object_or_404(Source, pk=source_id, task=task)


@dataclass(frozen=True)
class SnapshotLine:
    start: int  # offset of the line in the snapshot
    text: str


def snapshot_lines(source: Source) -> list[SnapshotLine]:
    """The snapshot's non-blank lines with their offsets, for selecting a span of it by hand."""
    lines, start = [], 0
    for line in source.text.split("\n"):
        if line.strip():
            lines.append(SnapshotLine(start, line))
        start += len(line) + 1
    return lines
