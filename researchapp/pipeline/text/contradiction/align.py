"""Alignment: are two sentences of two passages about one thing?

Two sentences are aligned when they share ``MIN_SHARED`` topic roots (a name both hold counts
twice, aliases and irregular forms meet: ``statements``), or, given the question they were found
for, when each holds ``MIN_ASKED`` of the question's terms and they share one of them: "revenues to
the Treasury increase after we lowered taxes" and "total revenue ... has actually fallen" share
one word, but both are about the asked tax revenue. The roots returned are what the slots' rules
count; the question's terms each side holds join them as ``asked:<root>``.
"""

from __future__ import annotations

from functools import lru_cache

from researchapp.pipeline.text.contradiction.focus import Focus
from researchapp.pipeline.text.contradiction.statements import (
    Statement,
    clause_of,
    shared_topic,
    statements_of,
)

MIN_SHARED = 2
MIN_ASKED = 2


def about_the_question(statement: Statement, focus: Focus) -> frozenset[str]:
    """The question's terms the sentence holds."""
    return statement.topic & focus.roots


def aligned_sentences(x: Statement, y: Statement, focus: Focus) -> frozenset[str]:
    """The roots that make ``x`` and ``y`` about one thing; empty when nothing does."""
    shared = shared_topic(x, y)
    if not shared or len(shared) >= MIN_SHARED or not focus.roots:
        return shared
    asked_x, asked_y = about_the_question(x, focus), about_the_question(y, focus)
    if shared & focus.roots and len(asked_x) >= MIN_ASKED and len(asked_y) >= MIN_ASKED:
        return shared | frozenset(f"asked:{r}" for r in asked_x | asked_y)
    return shared


def name_roots_in(statement: Statement, span: tuple[int, int]) -> frozenset[str]:
    return frozenset(
        w.root
        for w in statement.words
        for _, s, e in statement.names
        if span[0] <= s and e <= span[1] and s <= w.start and w.end <= e
    )


def different_subjects(x: Statement, y: Statement, at_x: int, at_y: int) -> bool:
    """The clauses around ``at_x`` and ``at_y`` name who or what they speak of, and the names meet
    nowhere: "GOP Rep. Tim Walberg ... will not support the bill" is not about "Upton supported a
    bill". Names of one side that the other passage also holds anywhere (a passive's "Kenyans",
    the next sentence's "the CARES Act") make them one subject."""
    names_x = name_roots_in(x, clause_of(x, at_x))
    names_y = name_roots_in(y, clause_of(y, at_y))
    if not names_x or not names_y:
        return False
    return not meet(names_x, passage_roots(y.text)) and not meet(names_y, passage_roots(x.text))


NAME_PREFIX = 5  # "Canada" and "Canadian", "Israel" and "Israeli": one name


def meet(names: frozenset[str], roots: frozenset[str]) -> bool:
    prefixes = {r[:NAME_PREFIX] for r in roots if len(r) >= NAME_PREFIX}
    return bool(names & roots) or any(n[:NAME_PREFIX] in prefixes for n in names if len(n) >= NAME_PREFIX)


@lru_cache(maxsize=2048)
def passage_roots(text: str) -> frozenset[str]:
    return frozenset().union(*(s.roots for s in statements_of(text)))
