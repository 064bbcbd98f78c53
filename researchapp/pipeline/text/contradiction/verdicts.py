"""Answers to an asked yes-or-no question: one side says no, the other says so.

A sentence that opens with a verdict ("No, the prefix does not show the country", "False: ...",
"No federal aid was given") answers the question it was found for, when it holds the question's
terms; a sentence of another document that holds as many of them and negates nothing, calls
nothing false and asks nothing says yes to it ("Chinese products can be identified by the first
digits of a barcode"). The two share few words with each other: the question is what they both
answer, so it is what aligns them.
"""

from __future__ import annotations

from collections.abc import Sequence

from researchapp.pipeline.text.contradiction.claims import refuted
from researchapp.pipeline.text.contradiction.focus import POLAR, Focus
from researchapp.pipeline.text.contradiction.polarity import NEGATION, VERDICT
from researchapp.pipeline.text.contradiction.statements import Statement
from researchapp.pipeline.text.contradiction.typed import asked_in
from researchapp.pipeline.text.tokens import Span

MIN_TERMS = 2  # the question's terms each answer holds (all of them when it has fewer)
MAX_SPANS = 3


def _says_no(statement: Statement) -> Span | None:
    """The verdict that opens the sentence ("No,", "False:"), which must also deny something."""
    opening = VERDICT.match(statement.sentence)
    if not opening or not NEGATION.search(statement.sentence) and refuted(statement) is None:
        return None
    start = statement.start + len(statement.sentence) - len(statement.sentence.lstrip(" \"'“‘(\u200b"))
    return start, statement.start + opening.end()


def _says_so(statement: Statement) -> bool:
    sentence = statement.sentence.rstrip()
    return not (NEGATION.search(sentence) or refuted(statement) is not None or sentence.endswith("?"))


def _terms(statement: Statement, focus: Focus) -> set[str]:
    return asked_in(statement.topic, focus)


def polar_answers(a: Statement, b: Statement, focus: Focus) -> tuple[Sequence[Span], Sequence[Span]] | None:
    """``a`` says no to the asked yes-or-no question and ``b`` says so, or the other way round;
    (spans of a, spans of b): the verdict, and the question's words the other side states."""
    if not focus.asks(POLAR):
        return None
    needed = min(MIN_TERMS, len(focus.roots))
    if needed == 0 or len(_terms(a, focus)) < needed or len(_terms(b, focus)) < needed:
        return None
    for no, so, flipped in ((a, b, False), (b, a, True)):
        verdict = _says_no(no)
        if verdict is None or not _says_so(so):
            continue
        stated = tuple((w.start, w.end) for w in so.words if asked_in(frozenset({w.root}), focus))
        stated = stated[:MAX_SPANS]
        spans = ((verdict,), stated or ((so.start, so.end),))
        return (spans[1], spans[0]) if flipped else spans
    return None
