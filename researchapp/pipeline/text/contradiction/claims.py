"""Claim phrasing read as polarity: one side calls false what the other says.

"False reports ... say drinking alcohol can reduce the risk", "denied that police charged a fine",
"misattributed to Voltaire", "there is no evidence that", "No, cocaine does not protect", "X
falsely claimed that": the refuting side's cue stands near what both sides share (or is a short
verdict of its own next to it: "THIS IS NOT TRUE."), and the refuted side asserts it without
calling anything false itself.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from researchapp.pipeline.text.contradiction.statements import Statement
from researchapp.pipeline.text.tokens import Span

REFUTATION = re.compile(
    r"\b(?:false(?:ly)?|fake|untrue|not true|inaccurate|incorrect(?:ly)?|not accurate|misattributed|"
    r"wrongly attributed|falsely attributed|den(?:y|ies|ied|ying)|debunk(?:s|ed)?|hoax|baseless|"
    r"unfounded|fabricated|doctored|no truth|no (?:evidence|proof|record|basis)|you are wrong|is wrong|"
    r"misleading|myth|rumou?rs?|as (?:being )?(?:alleged|claimed)|never said|did not say)\b"
    r"|谣言|不实|虚假|否认|辟谣",
    re.IGNORECASE,
)
MIN_SHARED = 2
REFUTE_REACH = 4  # content words between "denied"/"false" and what it calls false
VERDICT_WORDS = 8  # "This is some very seriously fake news.": a sentence that only gives a verdict


def refuted(statement: Statement, about: frozenset[str] | None = None) -> Span | None:
    """The span of a word that calls something false: with ``about``, only one within
    ``REFUTE_REACH`` content words of one of those roots ("misattributed to Voltaire")."""
    for match in REFUTATION.finditer(statement.text, statement.start, statement.end):
        if about is None:
            return match.start(), match.end()
        at = statement.index_of(match.start())
        near = statement.words[max(0, at - REFUTE_REACH) : at + REFUTE_REACH]
        if any(word.root in about for word in near):
            return match.start(), match.end()
    return None


def refutation(
    a: Statement, b: Statement, shared: frozenset[str], near_b: Sequence[Statement]
) -> tuple[Sequence[Span], Sequence[Span]] | None:
    """Shape 2: ``b`` calls false what ``a`` asserts, and ``a`` calls nothing false itself; the
    word that says so stands near what they share, or is a short verdict of its own next to ``b``
    ("THIS IS NOT TRUE."). (spans of a, spans of b)."""
    if len(shared) < MIN_SHARED or refuted(a) is not None:
        return None
    roots = frozenset(r.removeprefix("name:") for r in shared)
    span = refuted(b, roots)
    for verdict in near_b:
        # A verdict apart from the statement needs more in common than one name ("COVID-19").
        if span is None and len(roots) >= MIN_SHARED and len(verdict.words) <= VERDICT_WORDS:
            span = refuted(verdict)
    if span is None:
        return None
    said = tuple((w.start, w.end) for w in a.words if w.root in roots)
    return said[:3], (span,)
