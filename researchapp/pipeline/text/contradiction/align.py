"""Alignment: are two sentences of two passages about one thing?

Two sentences are aligned when they share ``MIN_SHARED`` topic roots (a name both hold counts
twice, aliases and irregular forms meet: ``statements``), or, given the question they were found
for, when each holds ``MIN_ASKED`` of the question's terms and they share one of them: "revenues to
the Treasury increase after we lowered taxes" and "total revenue ... has actually fallen" share
one word, but both are about the asked tax revenue. The roots returned are what the slots' rules
count; the question's terms each side holds join them as ``asked:<root>``.
"""

from __future__ import annotations

from researchapp.pipeline.text.contradiction.focus import Focus
from researchapp.pipeline.text.contradiction.statements import Statement, shared_topic

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
