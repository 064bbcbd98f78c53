"""The other side of an answer: search for the figure or year the first passages give.

A source that disputes an answer names the answer it disputes ("No test has been procured at
₹4500", "July 14th 2015, so not 2013 as stated") and may share no other word with the question;
the question's searches do not find it, a search for the answer's figure with the question's
terms does. ``other_side_queries`` turns the figures and years of the first clearing passages'
sentences that hold the question's terms into such searches; the collect stage runs them with the
second hop (``hops.bridge_queries``), and the task's judges pair what they open
(``runner.disputes``).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from researchapp.pipeline.text.contradiction.dates import dates_of
from researchapp.pipeline.text.contradiction.numbers import values_of
from researchapp.pipeline.text.contradiction.statements import statements_of
from researchapp.pipeline.text.salience import asked_of
from researchapp.pipeline.text.tokens import tokenize
from researchapp.pipeline.values import Passage, SubQuestion

MAX_QUERIES = 2
FIRST_PASSAGES_READ = 3
QUERY_TERMS = 4  # the question's terms beside the figure
MIN_DIGITS = 3  # "4500", "2013": a figure specific enough to find its page by


def _figures(passage: Passage, terms: frozenset[str]) -> list[str]:
    """The figures (digits only: "Rs4,500" is "4500") and years of the passage's sentences that
    hold one of ``terms``, in order."""
    found = []
    for statement in statements_of(passage.quote):
        if not terms & set(tokenize(statement.sentence)):
            continue
        for value in values_of(statement):
            digits = re.sub(r"\D", "", passage.quote[value.span[0] : value.span[1]].split(".")[0])
            if not value.negated and len(digits) >= MIN_DIGITS:
                found.append(digits)
        found += [str(d.year) for d in dates_of(statement) if d.year and not d.negated]
    return found


def other_side_queries(
    subquestion: SubQuestion, passages: Sequence[Passage], *, question: str = ""
) -> tuple[str, ...]:
    """Searches for the first clearing passages' figures and years, each with the question's terms."""
    asked = asked_of(subquestion, question)
    terms = tuple(dict.fromkeys((*asked.subject, *asked.focus)))
    words = " ".join(terms[:QUERY_TERMS])
    figures: dict[str, None] = {}
    for passage in [p for p in passages if p.clears_bar][:FIRST_PASSAGES_READ]:
        for figure in _figures(passage, frozenset(terms)):
            if figure not in words:
                figures.setdefault(figure)
    return tuple(" ".join(f"{figure} {words}".split()) for figure in list(figures)[:MAX_QUERIES])
