"""Polarity: one statement says it is so, the other that it is not.

Three shapes, each needing the two statements to be about the same thing (shared words):

1. A shared word is negated in one and not in the other: "Joe Biden owns island" / "Joe Biden does
   not own an island"; "will still be issued with visas" / "will no longer issue visas".
2. One side calls what the other says false: "false reports ... say drinking alcohol can reduce the
   risk", "denied that police charged a fine", "misattributed to Voltaire".
3. Opposite changes of one thing: "revenues increase" / "revenue has fallen".
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from researchapp.pipeline.text.contradiction.statements import Statement, Word, clause_of, root
from researchapp.pipeline.text.tokens import Span

NEGATION = re.compile(
    r"\b(?:not|no|never|nor|none|nothing|nobody|neither|cannot|without)\b|n[’']t\b|\bno longer\b",
    re.IGNORECASE,
)
REFUTATION = re.compile(
    r"\b(?:false(?:ly)?|fake|untrue|not true|inaccurate|misattributed|wrongly attributed|"
    r"falsely attributed|den(?:y|ies|ied|ying)|debunk(?:s|ed)?|hoax|baseless|fabricated|"
    r"no truth|no evidence|you are wrong|is wrong|misleading|rumou?rs?)\b|谣言|不实|虚假|否认|辟谣",
    re.IGNORECASE,
)
_UP = frozenset(
    root(w)
    for w in """increase increased increases increasing rise rises rose risen rising grow grows grew
    grown growing gain gains gained climb climbs climbed jump jumps jumped soar soared surge surged
    raise raised higher""".split()
)
_DOWN = frozenset(
    root(w)
    for w in """decrease decreased decreases decreasing fall falls fell fallen falling drop drops
    dropped decline declines declined declining shrink shrank shrunk cut cuts reduce reduced
    reduction lower lowered plunge plunged slump slumped""".split()
)
NEGATION_REACH = 4  # content words after a negation that it governs
CHANGE_REACH = 8  # content words between a thing and the verb that changes it
MIN_SHARED = 2
REFUTE_REACH = 4  # content words between "denied"/"false" and what it calls false
VERDICT_WORDS = 8  # "This is some very seriously fake news.": a sentence that only gives a verdict


def _negated(statement: Statement) -> dict[str, Span]:
    """Root → the span from the negation to the word, for words a negation governs."""
    governed: dict[str, Span] = {}
    for cue in NEGATION.finditer(statement.text, statement.start, statement.end):
        clause_end = clause_of(statement, cue.start())[1]
        index = statement.index_of(cue.end())
        for word in statement.words[index : index + NEGATION_REACH]:
            if word.start >= clause_end:
                break
            governed.setdefault(word.root, (cue.start(), word.end))
    return governed


def _asserted(statement: Statement, negated: dict[str, Span]) -> dict[str, Word]:
    return {word.root: word for word in statement.words if word.root not in negated}


def negated_word(
    a: Statement, b: Statement, shared: frozenset[str]
) -> tuple[Sequence[Span], Sequence[Span], str] | None:
    """Shape 1: a shared word negated on one side only; (spans of a, spans of b, the word). Two
    statements sharing only a couple of words ("people", "program") are not yet about one thing."""
    named = {r.removeprefix("name:") for r in shared if r.startswith("name:")}
    if len(shared) < MIN_SHARED:
        return None
    negated_a, negated_b = _negated(a), _negated(b)
    for second, neg_first, neg_second, flipped in (
        (b, negated_a, negated_b, False),
        (a, negated_b, negated_a, True),
    ):
        asserted = _asserted(second, neg_second)
        for word_root, span in neg_first.items():
            # A negated name ("nor has FEMA paid") says enough; any other word needs a third in common.
            enough = word_root in named or len(shared) > MIN_SHARED
            if enough and word_root in shared and word_root in asserted and not word_root.isdigit():
                other = asserted[word_root]
                spans = ((span,), ((other.start, other.end),))
                return (spans[1], spans[0], word_root) if flipped else (spans[0], spans[1], word_root)
    return None


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


def _changes(statement: Statement) -> dict[str, tuple[str, Span]]:
    """Root of a thing → (direction, span of the verb) for the first change verb after it."""
    found: dict[str, tuple[str, Span]] = {}
    words = statement.words
    for index, word in enumerate(words):
        if word.root in _UP or word.root in _DOWN:
            continue
        clause_end = clause_of(statement, word.start)[1]
        for later in words[index + 1 : index + 1 + CHANGE_REACH]:
            if later.start >= clause_end:
                break
            direction = "up" if later.root in _UP else "down" if later.root in _DOWN else ""
            if direction:
                found.setdefault(word.root, (direction, (later.start, later.end)))
                break
    return found


def opposite_change(
    a: Statement, b: Statement, shared: frozenset[str]
) -> tuple[Sequence[Span], Sequence[Span], str] | None:
    """Shape 3: one thing rises in one statement and falls in the other."""
    changes_a, changes_b = _changes(a), _changes(b)
    for thing in sorted(shared & changes_a.keys() & changes_b.keys()):
        (way_a, span_a), (way_b, span_b) = changes_a[thing], changes_b[thing]
        if way_a != way_b and not NEGATION.search(a.text, *clause_of(a, span_a[0])):
            if not NEGATION.search(b.text, *clause_of(b, span_b[0])):
                return (span_a,), (span_b,), thing
    return None
