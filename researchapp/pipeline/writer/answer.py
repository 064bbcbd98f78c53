"""The opening of a report: each sub-question's answer, first, in plan order.

Claims of the section ``ANSWER_SECTION`` open the report: for each sub-question, the claims that
state what its findings answer (the answer span first, then the sentence that states it, citing its
quote), at most ``MAX_OPENING_CLAIMS`` each. They are moved there, not copied: the sub-question's
own section then opens with the answer span and keeps the rest, so no quote is printed twice. What
the sources do not state is said by the renderer (``render.build_document``).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace

from researchapp.pipeline.report.structure import structure_in
from researchapp.pipeline.text.sentences import CLOSING, FULL_STOPS, is_heading_line
from researchapp.pipeline.values import Claim, SubQuestion
from researchapp.pipeline.writer.render import ANSWER_SECTION

MAX_OPENING_CLAIMS = 2
MIN_SENTENCE_WORDS = 5
MIN_PIECE_WORDS = 2
_FIRST_PERSON = re.compile(
    r"^\W*(?:we|i|our|my|us)\b|\bwe\s+(?:tested|measured|ran|used|found|tried)\b", re.I
)
_NAVIGATION = re.compile(
    r"^\W*(?:see\s+also|next|previous|back\s+to|table\s+of\s+contents|click|skip\s+to|jump\s+to|home)\b",
    re.IGNORECASE,
)


def display_text(sentence: str) -> str:
    """One line, whitespace from the page's layout collapsed: for display only, the quote stays exact."""
    return " ".join(sentence.split())


def is_clean_sentence(sentence: str) -> bool:
    """A whole sentence: not a heading, not a fragment, ending on a full stop, and holding no mark of
    the report's own structure ("[证据不足]", "[E3]", "To verify:"), which from a source is text."""
    return (
        not is_heading_line(sentence)
        and len(sentence.split()) >= MIN_SENTENCE_WORDS
        and sentence.rstrip(CLOSING).endswith(FULL_STOPS)
        and not structure_in(sentence)
    )


def bears_on_a_question(sentence: str) -> bool:
    """Not the writer's own doings in the first person ("We tested ..."), nor a page's navigation:
    such a sentence is never a statement of the report."""
    return not _FIRST_PERSON.search(sentence) and not _NAVIGATION.search(sentence)


def is_answer_piece(piece: str) -> bool:
    """A piece a reader answered with (a sentence, a lead-in with its list, a term with its
    description, a table's row): a few words at least, not a heading, bearing on a question."""
    return not is_heading_line(piece) and len(piece.split()) >= MIN_PIECE_WORDS and bears_on_a_question(piece)


def opening_claims(subquestions: Sequence[SubQuestion], claims: Sequence[Claim]) -> list[Claim]:
    """``claims`` with each sub-question's answer claims (those with an answer span, at most
    ``MAX_OPENING_CLAIMS``; without any, its first claim: a finding nobody read for a span, such as
    a model's or an analyst's) moved to the opening, in plan order."""
    moved: dict[int, Claim] = {}
    for subquestion in sorted(subquestions, key=lambda sq: (sq.order, sq.id)):
        own = [(i, c) for i, c in enumerate(claims) if c.section == str(subquestion.id)]
        answering = [(i, c) for i, c in own if c.answer] or own[:1]
        for index, claim in answering[:MAX_OPENING_CLAIMS]:
            moved[index] = replace(claim, section=ANSWER_SECTION, about=str(subquestion.id))
    order = {sq.id: (sq.order, sq.id) for sq in subquestions}
    opening = sorted(moved.values(), key=lambda c: order.get(int(c.about), (1 << 30, 0)))
    return opening + [claim for index, claim in enumerate(claims) if index not in moved]
