"""Does a statement say what its cited quotes say? The mechanical half of the support check.

A model-written statement may paraphrase, but every figure it states must be in a cited quote
(compared by value: "42%" = "42 percent"), and most of its content words must be there too. What
fails is not stated as fact: the model analyser makes it an item for the evidence gate, the
checker a problem the writer must fix.
"""

from __future__ import annotations

from collections.abc import Sequence

from researchapp.pipeline.text.quantities import extract_quantities
from researchapp.pipeline.text.tokens import tokenize

# Share of a statement's content words its cited quotes must hold (tuned to let a close
# paraphrase through: "costs 4,200 euros" for "is priced at 4,200 euros" holds 3 of 4).
SUPPORT_BAR = 0.5


def _same_number(a: float, b: float) -> bool:
    return abs(a - b) <= 1e-9 * max(abs(a), abs(b), 1.0)


def figures_missing(text: str, quotes: Sequence[str]) -> list[str]:
    """Figures of ``text`` that no quote states."""
    values = [q.value for quote in quotes for q in extract_quantities(quote)]
    return [
        text[q.start : q.end].strip()
        for q in extract_quantities(text)
        if not any(_same_number(q.value, value) for value in values)
    ]


def support_problem(statement: str, quotes: Sequence[str]) -> str:
    """Why ``quotes`` do not support ``statement`` ("" when they do, as far as words and figures tell)."""
    if not quotes:
        return "it cites no passage"
    missing = figures_missing(statement, quotes)
    if missing:
        return f"{', '.join(repr(figure) for figure in missing)} appears in no cited passage"
    terms = set(tokenize(statement))
    if not terms:
        return ""
    held = terms.intersection(term for quote in quotes for term in tokenize(quote))
    share = len(held) / len(terms)
    if share < SUPPORT_BAR:
        return f"only {len(held)} of its {len(terms)} content words are in the cited passages"
    return ""
