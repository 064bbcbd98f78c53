"""Different answers to an asked "who", "where" or "which": each aligned sentence names its own.

Given a question that asks for a name ("Who owns WhatsApp?", "Where is the Amazon river?"), two
sentences that hold the question's terms and share one of them answer it: the names in the clause
that holds those terms, other than the question's own, are each sentence's answer. They disagree
when each names one the other passage never mentions ("sold to Mukesh Ambani" / "Facebook has
bought ... WhatsApp"); a passage that also names the other's answer does not disagree with it.
"""

from __future__ import annotations

import re

from researchapp.pipeline.text.contradiction.align import MIN_ASKED, about_the_question, passage_roots
from researchapp.pipeline.text.contradiction.focus import ENTITY, Focus
from researchapp.pipeline.text.contradiction.statements import Statement, clause_of, root
from researchapp.pipeline.text.tokens import Span, tokenize

# A sentence's first word is capitalised by grammar; before a verb of its own it is a subject
# that may be a name ("Facebook has bought ..."), kept when no side writes it in lower case.
_OPENING_SUBJECT = re.compile(
    r"^\W*(?P<name>[A-Z][\w'’-]+)\s+(?:has|have|had|is|was|were|are|will|said|says|did|does|owns|bought|sold)\b"
)


def _names(statement: Statement, passages: str) -> list[tuple[str, int, int]]:
    names = [n for n in statement.names if not any(ch.isdigit() for ch in n[0])]
    opening = _OPENING_SUBJECT.match(statement.sentence)
    if opening and opening.group("name").lower() not in passages:
        start = statement.start + opening.start("name")
        if not any(s <= start < e for _, s, e in names):
            names.append((opening.group("name"), start, statement.start + opening.end("name")))
    return names


def _answers(statement: Statement, focus: Focus, other_passage: frozenset[str], passages: str) -> list[Span]:
    """Names in the clauses that hold the question's terms, that neither the question nor the
    other passage holds."""
    asked_at = [w.start for w in statement.words if w.root in focus.roots]
    clauses = {clause_of(statement, at) for at in asked_at}
    found = []
    for name, start, end in _names(statement, passages):
        if not any(s <= start and end <= e for s, e in clauses):
            continue
        roots = {root(term) for term in tokenize(name)}
        if roots and not roots & focus.roots and not roots & other_passage:
            found.append((start, end))
    return found


def different_answers(
    x: Statement, y: Statement, shared: frozenset[str], focus: Focus, text_a: str, text_b: str
) -> tuple[Span, Span] | None:
    """The first answer of each side, when both answer the asked name and differ."""
    if not focus.asks(ENTITY) or not shared & focus.roots:
        return None
    needed = min(MIN_ASKED, len(focus.roots) - 1)  # "Who owns WhatsApp?" has one term to hold
    if len(about_the_question(x, focus)) < needed or len(about_the_question(y, focus)) < needed:
        return None
    passages = f"{text_a}\n{text_b}"
    answers_x = _answers(x, focus, passage_roots(text_b), passages)
    answers_y = _answers(y, focus, passage_roots(text_a), passages)
    if answers_x and answers_y:
        return answers_x[0], answers_y[0]
    return None
