"""From judgements to disputes: each disagreement once per task, with every passage on each side.

The judges answer pair by pair; a maker's claim, its syndicated reprint and a lab's measurement
make two contradicting pairs but one disagreement. Judgements of one kind whose differing words
are the same ("92 percent" against "85 percent") are one dispute, every passage that says one
side's words on that side. A dispute becomes one ``conflict`` finding, placed under the first
sub-question (in plan order) of its evidence whose dimension it belongs to, and its differing
spans are what the evidence gate highlights and what no supported statement may state.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import date

from researchapp.core.enums import FindingStatus, Stance
from researchapp.pipeline.reader.bearing import is_page_stamp
from researchapp.pipeline.reader.spans import quantity_span
from researchapp.pipeline.text.answer_type import AnswerType, about_the_asked, analyse_question
from researchapp.pipeline.text.aspects import attribute_in_scope, dimensions_of
from researchapp.pipeline.text.contradiction import (
    CONTRADICT,
    DisagreementJudge,
    Judgement,
    Side,
    evidence_side,
)
from researchapp.pipeline.text.contradiction.pairs import candidate_pairs
from researchapp.pipeline.text.contradiction.statements import root
from researchapp.pipeline.text.quantities import read_figures
from researchapp.pipeline.text.sentences import split_sentences
from researchapp.pipeline.text.tokens import Span, is_cjk_stopword, tokenize, tokenize_spans
from researchapp.pipeline.values import (
    Disagreement,
    Evidence,
    EvidenceLink,
    ProposedFinding,
    SubQuestion,
    UsageLog,
)

MAX_DISPUTES = 8  # per task: more is noise an analyst cannot review
CONFLICT_KEY = "conflict:"  # a task-wide conflict finding's key starts so (it belongs to no one sub-question)
Place = tuple[int, int, int]  # (source id, start, end) of a passage in its source's snapshot


@dataclass(frozen=True)
class Dispute:
    first: tuple[Side, ...]
    second: tuple[Side, ...]
    kind: str
    spans: Mapping[Place, tuple[Span, ...]]  # per passage, the spans (in its text) that differ
    reason: str
    judges: tuple[str, ...]
    shared: tuple[str, ...] = ()

    @property
    def sides(self) -> tuple[Side, ...]:
        return self.first + self.second

    @property
    def key(self) -> str:
        """Stable for the same passages, whichever sub-questions stored them."""
        places = sorted(f"{s}@{a}-{b}" for s, a, b in (side.place for side in self.sides))
        return CONFLICT_KEY + "|".join(places)


def find_disputes(
    evidence: Sequence[Evidence],
    judge: DisagreementJudge,
    *,
    pool: Sequence[Side] = (),
    snapshots: Mapping[int, str] | None = None,
    published: Mapping[int, date] | None = None,
    questions: Mapping[int, str] | None = None,
    usage: UsageLog,
) -> list[Dispute]:
    """Candidate pairs of the evidence that cleared the bar (and of it with ``pool`` passages),
    judged, grouped into disputes. ``snapshots`` (source id → text) give short documents' context,
    ``published`` (source id → date) the date a page's "20 years ago" counts back from,
    ``questions`` (sub-question id → its text and the task's question) what each passage was
    found for: the subject and the kind of fact the judges align on."""
    snapshots, published, questions = snapshots or {}, published or {}, questions or {}
    sides = [
        evidence_side(
            item,
            snapshots.get(item.source_id, ""),
            published.get(item.source_id),
            questions.get(item.subquestion_id or 0, ""),
        )
        for item in evidence
        if item.clears_bar
    ]
    judged = judge.judge(candidate_pairs(sides, pool), usage=usage)
    said = _said_by_source([*sides, *pool], snapshots)
    return group_disputes([j for j in judged if not _on_a_page_stamp(j) and not _both_say_both(j, said)])


def _said_by_source(sides: Sequence[Side], snapshots: Mapping[int, str]) -> dict[int, str]:
    """What each source says: its snapshot where known, else its passages at hand."""
    passages: dict[int, list[str]] = {}
    for side in sides:
        passages.setdefault(side.source_id, []).append(side.text)
    return {source: snapshots.get(source) or "\n".join(texts) for source, texts in passages.items()}


def _both_say_both(judgement: Judgement, said: Mapping[int, str]) -> bool:
    """Two figures each document states both of are two facts, not a disagreement: a manual's two
    pages each give "defaults to 250" (the window) and "defaults to 50" (the depth)."""
    if judgement.kind != "number" or not judgement.first_spans or not judgement.second_spans:
        return False
    first, second = judgement.pair.first, judgement.pair.second
    figure_a = first.text[judgement.first_spans[0][0] : judgement.first_spans[0][1]]
    figure_b = second.text[judgement.second_spans[0][0] : judgement.second_spans[0][1]]
    return _states(said.get(first.source_id, first.text), figure_b) and _states(
        said.get(second.source_id, second.text), figure_a
    )


def _states(text: str, figure: str) -> bool:
    figure = " ".join(figure.split())
    return (
        bool(figure)
        and re.search(rf"(?<![\w.,]){re.escape(figure)}(?!\w|[.,]\d)", " ".join(text.split())) is not None
    )


def _on_a_page_stamp(judgement: Judgement) -> bool:
    """What differs stands in a page's stamp ("This page last modified on 2022-12-27 19:17:21 UTC"):
    two pages modified at different times say nothing that disagrees."""
    for side, spans in (
        (judgement.pair.first, judgement.first_spans),
        (judgement.pair.second, judgement.second_spans),
    ):
        for start, _ in spans[:1]:
            line_start = side.text.rfind("\n", 0, start) + 1
            line_end = side.text.find("\n", start)
            if is_page_stamp(side.text[line_start : line_end if line_end >= 0 else len(side.text)]):
                return True
    return False


def _words(side: Side, spans: Sequence[Span]) -> str:
    return " ".join(" ".join(side.text[s:e].lower().split()) for s, e in spans)


def _rank(side: Side) -> tuple:
    return (side.evidence_id is None, -side.score, side.place)


def group_disputes(judgements: Sequence[Judgement]) -> list[Dispute]:
    """1. Keep contradictions. 2. Join those of one kind with the same differing words (or, for a
    judgement without spans, the same pair). 3. Put each passage on the side whose words it says;
    the side with the best evidence first. 4. At most ``MAX_DISPUTES``, best evidence first."""
    groups: dict[tuple, list[Judgement]] = {}
    for judgement in judgements:
        if judgement.verdict != CONTRADICT:
            continue
        pair = judgement.pair
        words = (_words(pair.first, judgement.first_spans), _words(pair.second, judgement.second_spans))
        key = (
            (judgement.kind, frozenset(words))
            if all(words)
            else ("pair", pair.first.place, pair.second.place)
        )
        groups.setdefault(key, []).append(judgement)
    disputes = [_dispute(members) for members in groups.values()]
    disputes = [d for d in disputes if not set(p.place for p in d.first) & set(p.place for p in d.second)]
    disputes.sort(key=lambda d: (_rank(d.first[0]), d.key))
    seen: set[frozenset] = set()
    kept = []
    for dispute in disputes:
        pairs = {frozenset((a.place, b.place)) for a in dispute.first for b in dispute.second}
        if pairs <= seen:
            continue
        seen |= pairs
        kept.append(dispute)
    return kept[:MAX_DISPUTES]


def _dispute(members: Sequence[Judgement]) -> Dispute:
    head = members[0]
    first_words = _words(head.pair.first, head.first_spans)
    sides: dict[str, dict[Place, Side]] = {"a": {}, "b": {}}
    spans: dict[Place, tuple[Span, ...]] = {}
    for judgement in members:
        # A value one side gives and the other denies ("in 2013" / "not 2013") is the same words on
        # both sides: the pair's order, not the words, says which side each passage is on.
        alike = _words(judgement.pair.first, judgement.first_spans) == _words(
            judgement.pair.second, judgement.second_spans
        )
        for side, side_spans in (
            (judgement.pair.first, judgement.first_spans),
            (judgement.pair.second, judgement.second_spans),
        ):
            own = _words(side, side_spans)
            other_first = side is judgement.pair.first
            by_words = own and first_words and not alike
            which = "a" if (own == first_words if by_words else other_first) else "b"
            sides[which].setdefault(side.place, side)
            spans[side.place] = tuple(sorted(set(spans.get(side.place, ()) + tuple(side_spans))))
    first = tuple(sorted(sides["a"].values(), key=_rank))
    second = tuple(sorted(sides["b"].values(), key=_rank))
    if second and (not first or _rank(second[0]) < _rank(first[0])):
        first, second = second, first
    judges = tuple(sorted({name for j in members for name in j.judge.split("+")}))
    return Dispute(first, second, head.kind, spans, head.reason, judges, head.pair.shared)


def in_scope(dispute: Dispute, subquestion: SubQuestion) -> bool:
    """A dimension sub-question (cost, performance) reports only a disagreement about a figure
    of its dimension; any other disagreement belongs anywhere."""
    if dispute.kind != "number":
        return True
    side = dispute.first[0]
    starts = {s for s, _ in dispute.spans.get(side.place, ())}
    attributes = [f.attribute for f in read_figures(side.text) if f.quantity.start in starts]
    return all(attribute_in_scope(attribute, dimensions_of(subquestion)) for attribute in attributes)


def asks_about(dispute: Dispute, subquestion: SubQuestion) -> bool:
    """A sub-question that asks for a value (a figure, a release, a name) reports a disagreement about
    that kind of value only: "supported" against "not supported" does not answer "which release"."""
    asked = analyse_question(subquestion.text)
    if not about_the_asked(dispute.kind, asked.answer_type):
        return False
    if dispute.kind != "number":
        return True
    differing = [
        (side.text, start, end)
        for side in (dispute.first[0], dispute.second[0])
        for start, end in dispute.spans.get(side.place, ())[:1]
    ]
    # "By what percentage ...": a version against a plain number ("3.37 vs 64") is no disagreement
    # about a percentage; each side's differing words must be a value in the asked unit.
    if asked.unit in UNITS_ASKED and any(quantity_span(t[a:b], asked.unit) is None for t, a, b in differing):
        return False
    # "How many developers ...": each side's figure counts them, in its own sentence.
    head = set(asked.head) if asked.answer_type is AnswerType.QUANTITY else set()
    return not head or all(head & set(tokenize(_sentence_at(t, a))) for t, a, _ in differing)


def _sentence_at(text: str, at: int) -> str:
    return next((text[s:e] for s, e in split_sentences(text) if s <= at < e), text)


UNITS_ASKED = frozenset(("percent", "money", "time"))


def _shared_words(dispute: Dispute) -> str:
    """The words both sides share, as the first side writes them: neighbours joined, and words apart
    only by a function character too ("电动汽车的市场份额" reads as one phrase)."""
    side = dispute.first[0]
    shared = {term.removeprefix("name:") for term in dispute.shared}
    picked: list[Span] = []
    for token in tokenize_spans(side.text):
        if root(token.text) not in shared or any(
            side.text[s:e].lower() == side.text[token.start : token.end].lower() for s, e in picked
        ):
            continue
        between = side.text[picked[-1][1] : token.start] if picked else "x"
        if picked and (len(between.strip()) == 0 and len(between) <= 1 or is_cjk_stopword(between)):
            picked[-1] = (picked[-1][0], token.end)
        else:
            picked.append((token.start, token.end))
    return " ".join(side.text[s:e] for s, e in picked[:6])


def dispute_statement(dispute: Dispute, *, chinese: bool) -> str:
    """ "Sources disagree on the round-trip efficiency of Alpha X1: 92 percent vs 85 percent"."""
    first, second = dispute.first[0], dispute.second[0]
    said = [
        " ".join(" ".join(side.text[s:e].split()) for s, e in dispute.spans.get(side.place, ()))
        for side in (first, second)
    ]
    topic = (
        _figure_topic(dispute, chinese) or _shared_words(dispute) or ("这一点" if chinese else "this point")
    )
    if not any(said):
        # A judge that read the passages whole (the model) names no differing words: no empty quotes.
        return (
            f"来源在{topic}上存在分歧：两段原文相互矛盾"
            if chinese
            else f"Sources disagree on {topic}: the passages contradict each other"
        )
    if dispute.kind not in ("number", "date"):
        said = [f"“{words}”" for words in said]
    if chinese:
        return f"来源在{topic}上存在分歧：{said[0]} 对 {said[1]}"
    return f"Sources disagree on {topic}: {said[0]} vs {said[1]}"


def _figure_topic(dispute: Dispute, chinese: bool) -> str:
    if dispute.kind != "number":
        return ""
    side = dispute.first[0]
    starts = {s for s, _ in dispute.spans.get(side.place, ())}
    for figure in read_figures(side.text):
        if figure.quantity.start in starts and figure.subject_text and figure.attribute_text:
            if chinese:
                return f"{figure.subject_text}的{figure.attribute_text}"
            return f"the {figure.attribute_text} of {figure.subject_text}"
    return ""


def conflict_finding(
    dispute: Dispute,
    subquestion: SubQuestion,
    evidence_ids: Mapping[Place, int],
    *,
    chinese: bool,
    confidence: str,
) -> ProposedFinding:
    """The dispute as a ``conflict`` finding: first side supports, second contradicts; the kind,
    the differing spans per evidence id and the judges' reason recorded with it."""
    links = tuple(EvidenceLink(evidence_ids[s.place], Stance.SUPPORTS) for s in dispute.first) + tuple(
        EvidenceLink(evidence_ids[s.place], Stance.CONTRADICTS) for s in dispute.second
    )
    return ProposedFinding(
        key=dispute.key,
        subquestion_id=subquestion.id,
        status=FindingStatus.CONFLICT,
        statement=dispute_statement(dispute, chinese=chinese),
        confidence=confidence,
        links=links,
        disagreement=Disagreement(
            kind=dispute.kind,
            spans={
                evidence_ids[place]: spans for place, spans in dispute.spans.items() if place in evidence_ids
            },
            reason=dispute.reason,
            judges=dispute.judges,
        ),
    )


def disputed_spans(disputes: Sequence[Dispute], evidence: Sequence[Evidence]) -> dict[int, list[Span]]:
    """Per evidence id, the spans of its quote that state a side of a dispute: a passage stored
    under several sub-questions (or at other offsets) is found by where it is in its source."""
    in_source = [
        (side.source_id, side.start + s, side.start + e)
        for dispute in disputes
        for side in dispute.sides
        # A judge that did not say which words differ (the model) disputes the whole passage.
        for s, e in dispute.spans.get(side.place) or ((0, len(side.text)),)
    ]
    spans: dict[int, list[Span]] = {}
    for item in evidence:
        for source_id, start, end in in_source:
            if source_id == item.source_id and item.start <= start and end <= item.end:
                spans.setdefault(item.id, []).append((start - item.start, end - item.start))
    return spans
