"""Whether a piece of a passage bears on a question at all, and whether it states a value of the
asked type: the writer's own doings ("We tested ..."), a page's navigation and its stamp ("This page
last modified on ...") bear on nothing asked."""

from __future__ import annotations

import re

from researchapp.pipeline.reader.spans import answer_span
from researchapp.pipeline.reader.units import units_of
from researchapp.pipeline.text.answer_type import QuestionAnalysis

_FIRST_PERSON = re.compile(
    r"^\W*(?:we|i|our|my|us)\b|\bwe\s+(?:tested|measured|ran|used|found|tried)\b", re.I
)
_NAVIGATION = re.compile(
    r"^\W*(?:see\s+also|next|previous|back\s+to|table\s+of\s+contents|click|skip\s+to|jump\s+to|home)\b|"
    r"^\W*\(?\s*see\s+(?:the\s+)?(?:section|document|page)",
    re.IGNORECASE,
)
# A page's stamp ("This page last modified on 2021-04-02 15:31:42 UTC", "© 2024 …") dates the page,
# not what it is about: it states no version, date or figure of anything asked.
_STAMP = re.compile(
    r"^\W*(?:this\s+(?:page|document|article|file)\s+(?:was\s+)?)?(?:last\s+)?"
    r"(?:modified|updated|edited|revised|generated)\s+(?:on\s+|at\s+)?[\d(]|^\W*(?:copyright\b|©)",
    re.IGNORECASE,
)


def bears_on(text: str) -> bool:
    """Not a sentence about the writer's own doings ("We tested ...") nor a page's navigation."""
    return not _FIRST_PERSON.search(text) and not _NAVIGATION.search(text) and not _STAMP.search(text)


def is_page_stamp(text: str) -> bool:
    """A page's stamp: when it was modified or generated, its copyright (``_STAMP``)."""
    return bool(_STAMP.search(text))


def states_type(quote: str, analysis: QuestionAnalysis) -> bool:
    """One piece of ``quote`` that bears on a question (``bears_on``) states a value of the type
    ``analysis`` asks for (``answer_span``)."""
    return any(
        bears_on(piece) and answer_span(piece, analysis, kind=unit.kind, term=unit.term) is not None
        for unit in units_of(quote)
        for piece in (quote[unit.start : unit.end],)
    )
