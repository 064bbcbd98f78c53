"""Names in the same slot of the same statement: "Kamala Harris was the Alameda County district
attorney" / "TOM ORLOFF (District Attorney, Alameda County)"; "the Amazon river is in Africa" /
"the Amazon River located in South America".

A slot is the few words on one side of a name inside its clause. Two names disagree when each is
named only by its own side (no word of one appears in the other's passage), their slots hold the
same phrase on the same side (two neighbouring words: "district attorney"), and neither name is
the speaker of a claim ("SPEAKER: ...", which a clause break keeps out of every slot).
"""

from __future__ import annotations

import re

from researchapp.pipeline.text.contradiction.statements import Statement, clause_of
from researchapp.pipeline.text.entities import DEMONYMS
from researchapp.pipeline.text.tokens import Span, tokenize

SLOT_WORDS = 4


Slot = frozenset[tuple[str, str]]


def _slot(statement: Statement, start: int, end: int) -> tuple[Slot, Slot]:
    """Pairs of neighbouring topic roots ("district attorney", "chief staff") just before and
    just after the name, inside its clause: a role or a place is a phrase, not two loose words."""
    clause, topic = clause_of(statement, start), statement.topic
    words = [w for w in statement.words if w.root in topic]
    before = [w.root for w in words if clause[0] <= w.start and w.end <= start][-SLOT_WORDS:]
    after = [w.root for w in words if w.start >= end and w.end <= clause[1]][:SLOT_WORDS]
    return _neighbours(before), _neighbours(after)


def _neighbours(roots: list[str]) -> Slot:
    return frozenset((min(a, b), max(a, b)) for a, b in zip(roots, roots[1:], strict=False))


def _own_names(statement: Statement, other_passage: str) -> list[tuple[str, int, int]]:
    """Names whose words the other passage never uses."""
    used = set(tokenize(other_passage))
    return [
        (name, start, end)
        for name, start, end in statement.names
        if name.strip() and not used.intersection(tokenize(name))
    ]


# What makes a name the value of a slot rather than a thing a sentence is about: it holds a role
# ("X was the district attorney", "X (District Attorney", "X became chief of staff"), a place
# ("is in X", "located in X"), an agent ("sold to X", "written by X"), or it is a people's
# adjective before a shared noun ("the French embassy").
_HOLDS = re.compile(
    r"^\s*(?:\(|,?\s*(?:who\s+)?(?:is|was|were|are|has been|had been|serves as|served as|became|becomes|"
    r"remains|remained|now serves as)\b)",
    re.IGNORECASE,
)
_PLACED = re.compile(
    r"\b(?:is|are|was|were|lies|lie|located|situated|based|born|held|found)\s+(?:in|at|on)\s+(?:the\s+)?$"
    r"|\b(?:sold|given|awarded|attributed|credited)\s+to\s+$|\b(?:by|from)\s+$",
    re.IGNORECASE,
)


def _cue(statement: Statement, start: int, end: int, name: str) -> str:
    text = statement.text
    if name.lower() in DEMONYMS:
        return "adjective"
    if _PLACED.search(text[max(statement.start, start - 40) : start]):
        return "placed"
    if _HOLDS.match(text[end : end + 40]):
        return "holds"
    return ""


def names_in_one_slot(a: Statement, b: Statement) -> tuple[Span, Span, frozenset[str]] | None:
    """The first pair of names of ``a`` and ``b`` that fill the same slot, and the slot's words."""
    for name_a, start_a, end_a in _own_names(a, b.text):
        cue = _cue(a, start_a, end_a, name_a)
        if not cue:
            continue
        before_a, after_a = _slot(a, start_a, end_a)
        for name_b, start_b, end_b in _own_names(b, a.text):
            if _cue(b, start_b, end_b, name_b) != cue:
                continue
            before_b, after_b = _slot(b, start_b, end_b)
            for shared in (before_a & before_b, after_a & after_b):
                if shared:
                    return (start_a, end_a), (start_b, end_b), frozenset(r for pair in shared for r in pair)
    return None
