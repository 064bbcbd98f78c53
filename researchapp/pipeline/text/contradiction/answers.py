"""Different answers to the asked "who", "where" or "which": each aligned sentence names its own.

Placeholder; filled in below.
"""

from __future__ import annotations

from researchapp.pipeline.text.contradiction.focus import Focus
from researchapp.pipeline.text.contradiction.statements import Statement
from researchapp.pipeline.text.tokens import Span


def different_answers(
    x: Statement, y: Statement, shared: frozenset[str], focus: Focus, text_a: str, text_b: str
) -> tuple[Span, Span] | None:
    return None
