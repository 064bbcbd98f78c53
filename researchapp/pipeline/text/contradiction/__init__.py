"""Do these two passages disagree? The judge's interface, its values, and the judge by rules.

A ``Pair`` is two passages of different documents about the same thing (``pairs.candidate_pairs``).
A judge answers each pair ``agree``, ``contradict`` or ``unrelated``; a contradiction records its
kind (``number``, ``date``, ``entity``, ``negation``) and the spans of each side that differ, so
the evidence gate can show them. ``RuleJudge`` reads the kinds sentence by sentence
(``numbers``, ``dates``, ``entities``, ``polarity``) and says only ``contradict`` or nothing;
the model judge (``analyser.judge_model``) asks a chat model about the same pairs. The wiring
module picks one per task.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date
from typing import Protocol

from researchapp.pipeline.text.contradiction.dates import (
    Date,
    dates_of,
    denied_date,
    disagreeing_dates,
    same_date_stated,
)
from researchapp.pipeline.text.contradiction.entities import names_in_one_slot
from researchapp.pipeline.text.contradiction.numbers import Value, denied_value, disagreeing_values, values_of
from researchapp.pipeline.text.contradiction.polarity import negated_word, opposite_change, refutation
from researchapp.pipeline.text.contradiction.statements import (
    Statement,
    passage_topic,
    shared_topic,
    statements_of,
)
from researchapp.pipeline.text.tokens import Span
from researchapp.pipeline.values import Evidence, UsageLog

AGREE, CONTRADICT, UNRELATED = "agree", "contradict", "unrelated"
VERDICTS = (AGREE, CONTRADICT, UNRELATED)
KINDS = ("number", "date", "entity", "negation")


@dataclass(frozen=True)
class Side:
    """A passage: ``text`` is its source's snapshot at ``start:end``. ``evidence_id`` is ``None``
    for a passage of an opened source that is not evidence (yet): the other side of a pair."""

    source_id: int
    start: int
    end: int
    text: str
    evidence_id: int | None = None
    subquestion_id: int | None = None
    score: float = 0.0
    # The whole document when it is short (a post, a claim, a short page): what the passage is
    # about may be named in the sentence next to it ("... dubbed the CARES Act").
    context: str = ""
    published: date | None = None  # the document's date: "20 years ago" counts back from it

    @property
    def place(self) -> tuple[int, int, int]:
        return (self.source_id, self.start, self.end)

    @property
    def topic(self) -> frozenset[str]:
        return passage_topic(self.text) | (passage_topic(self.context) if self.context else frozenset())


MAX_CONTEXT_CHARS = 2000  # a document this short is what each of its passages is about


def document_context(text: str) -> str:
    return text if len(text) <= MAX_CONTEXT_CHARS else ""


def evidence_side(item: Evidence, snapshot: str = "", published: date | None = None) -> Side:
    """A stored passage as one side of a pair (its quote is its snapshot at its offsets)."""
    return Side(
        item.source_id,
        item.start,
        item.end,
        item.quote,
        item.id,
        item.subquestion_id,
        item.score,
        document_context(snapshot),
        published,
    )


@dataclass(frozen=True)
class Pair:
    first: Side
    second: Side
    shared: tuple[str, ...] = ()  # the words that say they are about one thing


@dataclass(frozen=True)
class Judgement:
    pair: Pair
    verdict: str
    kind: str = ""
    first_spans: tuple[Span, ...] = ()  # offsets into pair.first.text: what differs
    second_spans: tuple[Span, ...] = ()
    reason: str = ""
    judge: str = "rules"


class DisagreementJudge(Protocol):
    name: str

    def judge(self, pairs: Sequence[Pair], *, usage: UsageLog) -> list[Judgement]: ...


def _quoted(text: str, spans: Sequence[Span]) -> str:
    return " … ".join(" ".join(text[s:e].split()) for s, e in spans)


def _reason(kind: str, pair: Pair, first: Sequence[Span], second: Sequence[Span]) -> str:
    what = {"number": "figures", "date": "dates", "entity": "names", "negation": "one denies the other"}
    return f"{what[kind]}: “{_quoted(pair.first.text, first)}” vs “{_quoted(pair.second.text, second)}”"


@dataclass(frozen=True)
class _Passages:
    """What the rules read once per pair: each passage's sentences, values and dates."""

    a: tuple[Statement, ...]
    b: tuple[Statement, ...]
    values_a: list[Value]
    values_b: list[Value]
    dates_a: list[Date]
    dates_b: list[Date]
    one_date_each: bool
    passages_share: int


def _kind_of(
    x: Statement, y: Statement, pair: Pair, context: _Passages
) -> tuple[str, Sequence[Span], Sequence[Span]] | None:
    """The first kind of disagreement between two sentences, with the spans that differ."""
    # A figure one side gives and the other denies is its own evidence of one subject.
    for kind, find in (("number", denied_value), ("date", denied_date)):
        for first, second, flipped in ((x, y, False), (y, x, True)):
            denied = find(first, second)
            if denied:
                spans = ((denied[0].span,), (denied[1].span,))
                return (kind, spans[1], spans[0]) if flipped else (kind, spans[0], spans[1])
    shared = shared_topic(x, y)
    if not shared:
        return None
    values = disagreeing_values(x, y, context.values_a, context.values_b, shared)
    if values:
        return "number", (values[0].span,), (values[1].span,)
    published = (pair.first.published, pair.second.published)
    dates = disagreeing_dates(x, y, context.passages_share, context.one_date_each, published)
    if dates and not same_date_stated(context.dates_b, dates[0]):
        if not same_date_stated(context.dates_a, dates[1]):
            return "date", (dates[0].span,), (dates[1].span,)
    for shape in (negated_word(x, y, shared), opposite_change(x, y, shared)):
        if shape:
            return "negation", shape[0], shape[1]
    for refuting, refuted_side, flipped in ((y, x, False), (x, y, True)):
        near = context.a if flipped else context.b
        found = refutation(refuted_side, refuting, shared, [s for s in near if s is not refuting][:2])
        if found:
            return ("negation", found[1], found[0]) if flipped else ("negation", found[0], found[1])
    # Names beside figures are what the figures measure ("the Alpha costs 4,200 euros", "the Beta
    # costs 5,100 euros"): two things, each with its own value, for the figures' judge.
    names = None if values_of(x) and values_of(y) else names_in_one_slot(x, y)
    if names and len(shared) >= 2:
        return "entity", (names[0],), (names[1],)
    return None


def judge_pair(pair: Pair) -> Judgement | None:
    """A contradiction between the two passages, sentence by sentence; ``None`` if none is seen."""
    a, b = statements_of(pair.first.text), statements_of(pair.second.text)
    dates_a = [d for s in a for d in dates_of(s, pair.first.published)]
    dates_b = [d for s in b for d in dates_of(s, pair.second.published)]
    context = _Passages(
        a,
        b,
        [v for s in a for v in values_of(s)],
        [v for s in b for v in values_of(s)],
        dates_a,
        dates_b,
        len(dates_a) == 1 and len(dates_b) == 1,
        len(pair.first.topic & pair.second.topic),
    )
    for x in a:
        for y in b:
            found = _kind_of(x, y, pair, context)
            if found:
                kind, first, second = found
                return Judgement(
                    pair, CONTRADICT, kind, tuple(first), tuple(second), _reason(kind, pair, first, second)
                )
    return None


class RuleJudge:
    """The judge without a model: contradictions by kind, read sentence by sentence."""

    name = "rules"

    def judge(self, pairs: Sequence[Pair], *, usage: UsageLog) -> list[Judgement]:
        return [found for pair in pairs if (found := judge_pair(pair)) is not None]
