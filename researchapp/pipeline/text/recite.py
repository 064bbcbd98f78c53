"""Re-citing a model's statement to the passage it was shown that states it.

A small model often writes a right statement and cites the wrong one of the passages it was shown
("…; 5432 by default" citing the passage next to the one that says 5432). Discarding the statement
as unsupported loses a fact the sources state; keeping the citation would state it on a passage
that does not. So a statement its cited passages do not bear out (``support.support_problem``) is
re-cited to the one passage among those shown that does on its own: every figure of the statement
stands verbatim in that passage's quote (not only by value), and most of its words. The citation
is then checked like any other: the quote is the stored, verified ``snapshot[start:end]``, and the
checks that judge any statement against its cited quotes judge it again.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

from researchapp.pipeline.text.support import support_problem

_FIGURE = re.compile(r"\d+(?:[.,:]\d+)*")


def figures_verbatim(statement: str, quote: str) -> bool:
    """Every figure written in ``statement`` ("5432", "4,200", "3.8.0") stands as written in ``quote``."""
    return all(
        re.search(rf"(?<![\d.,]){re.escape(figure)}(?!\d|[.,]\d)", quote)
        for figure in _FIGURE.findall(statement)
    )


def recited(statement: str, cited: Sequence[int], quotes: Mapping[int, str]) -> tuple[int, ...]:
    """The ids ``statement`` should cite: ``cited`` when their quotes bear it out (or no other
    passage does); otherwise the first passage of ``quotes`` (those the model was shown, by id,
    in the order shown) whose quote alone states its figures verbatim and most of its words."""
    cited = tuple(dict.fromkeys(cited))
    own = [quotes[i] for i in cited if i in quotes]
    if not support_problem(statement, own):
        return cited
    for evidence_id, quote in quotes.items():
        if evidence_id in cited:
            continue
        if figures_verbatim(statement, quote) and not support_problem(statement, [quote]):
            return (evidence_id,)
    return cited
