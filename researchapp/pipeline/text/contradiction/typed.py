"""Typed answers that differ: two passages answer the asked question with values of its type that
cannot both hold.

A question asks for a type of answer: a figure ("how much ... save", "what percentage"), a date
("when was ... introduced"). A sentence answers it when it holds the question's terms
(``MIN_ANSWERING`` of them, or all when it has fewer) and states a value of that type in a clause
that holds one of them. Two sentences of different documents that answer one question are about
one thing even when they share few words with each other ("Fee-paying schools save the UK taxpayer
£20 billion" / "the total saving to the taxpayer ... amounted to £3.0 billion in 2017"): their
answers disagree when they cannot both hold, read as the figures' and dates' own judges read them
(units, intervals, a time series, counts of other things, one relation to the event; the
question says what is measured), and neither passage also states the other's answer as its own.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date

from researchapp.pipeline.text.contradiction.align import meet, name_roots_in
from researchapp.pipeline.text.contradiction.dates import (
    Date,
    dates_a_figure,
    dates_differ,
    dates_of,
    relation,
    same_date_stated,
)
from researchapp.pipeline.text.contradiction.focus import DATE, NUMBER, Focus
from researchapp.pipeline.text.contradiction.numbers import (
    Value,
    other_counts,
    time_series,
    values_differ,
    values_meet,
    values_of,
)
from researchapp.pipeline.text.contradiction.statements import Statement, clause_of
from researchapp.pipeline.text.tokens import Span

MIN_ANSWERING = 2  # the question's terms a sentence holds to answer it
PREFIX = 5


def answers_the_question(
    statement: Statement, focus: Focus, passage: frozenset[str] = frozenset(), *, least: int = MIN_ANSWERING
) -> bool:
    """The sentence holds enough of the question's terms to be an answer to it, or one of them
    when its passage (``passage``: the passage's and its short document's topic roots) holds
    enough: "introduced legislation on Thursday (March 19, 2020)" beside "dubbed the CARES Act"."""
    needed = min(least, len(focus.roots))
    held = len(asked_in(statement.topic, focus))
    return needed > 0 and (held >= needed or (held >= 1 and len(asked_in(passage, focus)) >= needed))


def asked_in(roots: frozenset[str], focus: Focus) -> set[str]:
    """The question's terms among ``roots``; a word meets a term it shares its first
    ``PREFIX`` letters with ("Indian" and "India", "immigrants" and "immigration")."""
    prefixes = {r[:PREFIX] for r in roots if len(r) >= PREFIX}
    return {t for t in focus.roots if t in roots or (len(t) >= PREFIX and t[:PREFIX] in prefixes)}


def _asked_near(statement: Statement, span: Span, focus: Focus) -> bool:
    """A term of the question stands in the value's clause: the value is what the clause asks of."""
    start, end = clause_of(statement, span[0])
    return bool(asked_in(frozenset(w.root for w in statement.words if start <= w.start < end), focus))


@dataclass(frozen=True)
class Asked:
    """What the two passages answer: the question, and each passage's topic roots with its short
    document's (what it is about may be named in the sentence next to it)."""

    focus: Focus
    topic_a: frozenset[str]
    topic_b: frozenset[str]

    def other_subjects(self, x: Statement, y: Statement, at_x: int, at_y: int) -> bool:
        """Each clause names who or what it speaks of, and neither's names are in the other's
        passage, its document or the question (``align.different_subjects``, read wider)."""
        names_x = name_roots_in(x, clause_of(x, at_x))
        names_y = name_roots_in(y, clause_of(y, at_y))
        if not names_x or not names_y:
            return False
        names_x = frozenset(r for r in names_x if not r.isdigit())  # "£6.5": not a name
        names_y = frozenset(r for r in names_y if not r.isdigit())
        if not names_x or not names_y:
            return False
        roots = self.focus.roots
        return not meet(names_x, self.topic_b | roots) and not meet(names_y, self.topic_a | roots)


def typed_figures(
    x: Statement, y: Statement, asked: Asked, all_a: list[Value], all_b: list[Value]
) -> tuple[Value, Value] | None:
    """The first figures the two sentences give as the asked quantity that cannot both hold."""
    focus = asked.focus
    if not focus.asks(NUMBER):
        return None
    for first in values_of(x):
        if first.negated or not _asked_near(x, first.span, focus):
            continue
        for second in values_of(y):
            if second.negated or not values_differ(first, second) or not _asked_near(y, second.span, focus):
                continue
            if time_series(x, y, first, second) or other_counts(first, second):
                continue
            if asked.other_subjects(x, y, first.span[0], second.span[0]):
                continue
            if any(values_meet(v, second) for v in all_a) or any(values_meet(v, first) for v in all_b):
                continue
            return first, second
    return None


def typed_dates(
    x: Statement,
    y: Statement,
    asked: Asked,
    published: tuple[date | None, date | None],
    all_a: list[Date],
    all_b: list[Date],
) -> tuple[Date, Date] | None:
    """The first dates the two sentences give as the asked date that cannot both hold."""
    focus = asked.focus
    if not focus.asks(DATE):
        return None
    for first in dates_of(x, published[0]):
        if first.negated or not _asked_near(x, first.span, focus) or dates_a_figure(x, first):
            continue
        for second in dates_of(y, published[1]):
            if second.negated or not dates_differ(first, second) or dates_a_figure(y, second):
                continue
            if not _asked_near(y, second.span, focus) or relation(x, first) != relation(y, second):
                continue
            if asked.other_subjects(x, y, first.span[0], second.span[0]):
                continue
            if same_date_stated(all_a, second) or same_date_stated(all_b, first):
                continue
            return first, second
    return None
