"""The judge by rules: align the two passages' sentences about one subject, then read the slot
where they differ, by kind.

1. Alignment (``align``): two sentences are about one thing when they share enough topic roots
   (aliases and irregular forms meet), or when both hold the question's terms and share one.
2. The slots, in order: a figure or a date one side gives and the other denies; figures that
   cannot both hold; dates of one event that differ; polarity (a shared word negated on one side
   only, a negated predicate of the shared subject, opposite changes); claim phrasing (one side
   calls what the other says false, "no evidence that", "X falsely claimed"); names in one slot.
3. The first slot found is the judgement, with its kind, its rule and the spans that differ.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from researchapp.pipeline.text.contradiction.align import aligned_sentences
from researchapp.pipeline.text.contradiction.answers import different_answers
from researchapp.pipeline.text.contradiction.claims import refutation
from researchapp.pipeline.text.contradiction.dates import (
    Date,
    dates_of,
    denied_date,
    disagreeing_dates,
    none_since,
    same_date_stated,
)
from researchapp.pipeline.text.contradiction.entities import names_in_one_slot
from researchapp.pipeline.text.contradiction.focus import DATE, POLAR, Focus, focus_of
from researchapp.pipeline.text.contradiction.numbers import Value, denied_value, disagreeing_values, values_of
from researchapp.pipeline.text.contradiction.polarity import negated_predicate, negated_word, opposite_change
from researchapp.pipeline.text.contradiction.statements import Statement, statements_of
from researchapp.pipeline.text.contradiction.typed import (
    MIN_ANSWERING,
    Asked,
    answers_the_question,
    typed_dates,
    typed_figures,
)
from researchapp.pipeline.text.contradiction.values import CONTRADICT, Judgement, Pair
from researchapp.pipeline.text.contradiction.verdicts import polar_answers
from researchapp.pipeline.text.tokens import Span
from researchapp.pipeline.values import UsageLog

Found = tuple[str, str, Sequence[Span], Sequence[Span]]  # (kind, rule, spans of first, spans of second)


def _quoted(text: str, spans: Sequence[Span]) -> str:
    return " … ".join(" ".join(text[s:e].split()) for s, e in spans)


def _reason(kind: str, pair: Pair, first: Sequence[Span], second: Sequence[Span]) -> str:
    what = {"number": "figures", "date": "dates", "entity": "names", "negation": "one denies the other"}
    return f"{what[kind]}: “{_quoted(pair.first.text, first)}” vs “{_quoted(pair.second.text, second)}”"


@dataclass(frozen=True)
class Passages:
    """What the rules read once per pair: each passage's sentences, values and dates, the question."""

    a: tuple[Statement, ...]
    b: tuple[Statement, ...]
    values_a: list[Value]
    values_b: list[Value]
    dates_a: list[Date]
    dates_b: list[Date]
    one_date_each: bool
    passages_share: int
    focus: Focus


def _denied(x: Statement, y: Statement) -> Found | None:
    """A figure one side gives and the other denies is its own evidence of one subject."""
    for kind, find in (("number", denied_value), ("date", denied_date)):
        for first, second, flipped in ((x, y, False), (y, x, True)):
            denied = find(first, second)
            if denied:
                spans = ((denied[0].span,), (denied[1].span,))
                return (kind, "denied", spans[1], spans[0]) if flipped else (kind, "denied", *spans)
    return None


def _figures(
    x: Statement, y: Statement, shared: frozenset[str], pair: Pair, context: Passages
) -> Found | None:
    values = disagreeing_values(x, y, context.values_a, context.values_b, shared)
    if values:
        return "number", "values", (values[0].span,), (values[1].span,)
    published = (pair.first.published, pair.second.published)
    dates = disagreeing_dates(
        x, y, context.passages_share, context.one_date_each, published, context.focus.roots
    )
    if dates and not same_date_stated(context.dates_b, dates[0]):
        if not same_date_stated(context.dates_a, dates[1]):
            return "date", "dates", (dates[0].span,), (dates[1].span,)
    for first, second, flipped in ((x, y, False), (y, x, True)):
        since = none_since(first, second)
        if since:
            spans = ((since[0].span,), (since[1].span,))
            return ("date", "since", spans[1], spans[0]) if flipped else ("date", "since", *spans)
    return None


def _polarity(x: Statement, y: Statement, shared: frozenset[str], context: Passages) -> Found | None:
    for rule, shape in (
        ("negated-word", negated_word(x, y, shared)),
        ("negated-predicate", negated_predicate(x, y, shared, context.focus.asks(POLAR))),
        ("opposite-change", opposite_change(x, y, shared)),
    ):
        if shape:
            return "negation", rule, shape[0], shape[1]
    for refuting, refuted_side, flipped in ((y, x, False), (x, y, True)):
        near = context.a if flipped else context.b
        found = refutation(refuted_side, refuting, shared, [s for s in near if s is not refuting][:2])
        if found:
            return (
                ("negation", "refutation", found[1], found[0])
                if flipped
                else ("negation", "refutation", *found)
            )
    return None


def _kind_of(
    x: Statement, y: Statement, shared: frozenset[str], pair: Pair, context: Passages
) -> Found | None:
    """The first kind of disagreement between two aligned sentences, with the spans that differ."""
    found = _figures(x, y, shared, pair, context) or _polarity(x, y, shared, context)
    if found:
        return found
    # Names beside figures are what the figures measure ("the Alpha costs 4,200 euros", "the Beta
    # costs 5,100 euros"): two things, each with its own value, for the figures' judge.
    names = None if values_of(x) and values_of(y) else names_in_one_slot(x, y)
    if names and len(shared) >= 2:
        return "entity", "slot", (names[0],), (names[1],)
    answers = different_answers(x, y, shared, context.focus, pair.first.text, pair.second.text)
    if answers:
        return "entity", "answers", (answers[0],), (answers[1],)
    return None


def _typed(x: Statement, y: Statement, pair: Pair, context: Passages) -> Found | None:
    """Both sentences answer the asked question, with figures or dates that cannot both hold."""
    focus = context.focus
    # A date asked, and each passage gives one: one term of the question in each says it is the answer.
    least = 1 if focus.asks(DATE) and context.one_date_each else MIN_ANSWERING
    if not answers_the_question(x, focus, pair.first.topic, least=least) or not answers_the_question(
        y, focus, pair.second.topic, least=least
    ):
        return None
    asked = Asked(focus, pair.first.topic, pair.second.topic)
    values = typed_figures(x, y, asked, context.values_a, context.values_b)
    if values:
        return "number", "typed-values", (values[0].span,), (values[1].span,)
    published = (pair.first.published, pair.second.published)
    dates = typed_dates(x, y, asked, published, context.dates_a, context.dates_b)
    if dates:
        return "date", "typed-dates", (dates[0].span,), (dates[1].span,)
    return None


def passages_of(pair: Pair) -> Passages:
    a, b = statements_of(pair.first.text), statements_of(pair.second.text)
    dates_a = [d for s in a for d in dates_of(s, pair.first.published)]
    dates_b = [d for s in b for d in dates_of(s, pair.second.published)]
    return Passages(
        a,
        b,
        [v for s in a for v in values_of(s)],
        [v for s in b for v in values_of(s)],
        dates_a,
        dates_b,
        len(dates_a) == 1 and len(dates_b) == 1,
        len(pair.first.topic & pair.second.topic),
        focus_of(pair.question),
    )


def _sentences(x: Statement, y: Statement, pair: Pair, context: Passages) -> Found | None:
    found = _denied(x, y)
    shared = aligned_sentences(x, y, context.focus)
    if not found and shared:
        found = _kind_of(x, y, shared, pair, context)
    return found or _typed(x, y, pair, context)


def _bridged(x: Statement, y: Statement, context: Passages) -> Found | None:
    """Two passages paired only by the question they answer: one side denying the other counts."""
    shared = aligned_sentences(x, y, context.focus)
    return _polarity(x, y, shared, context) if shared else None


def judge_pair(pair: Pair) -> Judgement | None:
    """A contradiction between the two passages, sentence by sentence; ``None`` if none is seen."""
    context = passages_of(pair)
    for x in context.a:
        for y in context.b:
            found = _bridged(x, y, context) if pair.bridged else _sentences(x, y, pair, context)
            if not found:
                verdict = polar_answers(x, y, context.focus)
                found = ("negation", "polar-answer", *verdict) if verdict else None
            if found:
                kind, rule, first, second = found
                reason = _reason(kind, pair, first, second)
                return Judgement(pair, CONTRADICT, kind, tuple(first), tuple(second), reason, rule=rule)
    return None


class RuleJudge:
    """The judge without a model: contradictions by kind, read sentence by sentence."""

    name = "rules"

    def judge(self, pairs: Sequence[Pair], *, usage: UsageLog) -> list[Judgement]:
        return [found for pair in pairs if (found := judge_pair(pair)) is not None]
