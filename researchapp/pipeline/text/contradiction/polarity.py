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

from researchapp.pipeline.text.contradiction.align import different_subjects
from researchapp.pipeline.text.contradiction.statements import Statement, Word, clause_of, root
from researchapp.pipeline.text.tokens import Span

NEGATION = re.compile(
    r"\bno longer\b|\b(?:not|no|never|nor|none|nothing|nobody|neither|cannot|without)\b|n[’']t\b",
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
CHANGE_REACH = 8  # content words between a thing and the verb that changes it
MIN_SHARED = 2
MIN_CLAUSE_SHARED = 2  # the negated word and one more: its subject or its object
# Words between a negation and what it negates that are not what it negates ("does not directly pay").
_ADVERBS = frozenset(
    "directly even ever always actually really yet also just currently necessarily specifically".split()
)
# A negation bounded by a condition ("cannot be read until the writer commits") denies nothing flatly.
_CONDITION = re.compile(r"\b(?:until|unless|as long as|except (?:when|if|for))\b", re.IGNORECASE)
# A negation that denies what a statement says: an auxiliary's "not" ("does not own", "is not
# quitting"), "n't", "never", "cannot", "no longer". "No", "none", "without" and a bare "not" before a
# noun ("not the database", "no file") deny a thing, which a page about something else mentions.
_DENIES_A_PREDICATE = re.compile(
    r"\b(?:do|does|did|is|are|was|were|am|be|been|has|have|had|can|could|will|would|shall|should|must|may|"
    r"might|need)\s+not\b|n[’']t\b|\bnever\b|\bcannot\b|\bno longer\b",
    re.IGNORECASE,
)
_DETERMINER = re.compile(r"\b(?:a|an|the|any|this|that|these|those)\b", re.IGNORECASE)
_CODE_WORD = re.compile(r"[A-Z][A-Z0-9]+|\w*_\w*")
VERDICT = re.compile(r"^\W*(?:no|false|fake|wrong|incorrect|untrue)\b[\s,.:;!-]", re.IGNORECASE)


def _negated(statement: Statement) -> dict[str, tuple[Span, int]]:
    """Root → (the span from the negation to the word, the cue's start) for the word each negation
    negates: the first content word after it in its clause ("does not own", "no nurses", "will no
    longer issue"), adverbs skipped."""
    governed: dict[str, tuple[Span, int]] = {}
    for cue in NEGATION.finditer(statement.text, statement.start, statement.end):
        clause_end = clause_of(statement, cue.start())[1]
        if _CONDITION.search(statement.text, cue.end(), statement.end):
            continue  # "cannot be read until it commits": a condition, not a denial
        window = _DENIES_A_PREDICATE.finditer(statement.text, max(0, cue.start() - 12), cue.end())
        if not any(match.end() == cue.end() for match in window):
            continue  # "no file", "not the database", "without a datatype": a thing, not a statement
        for word in statement.words[statement.index_of(cue.end()) :]:
            if word.start >= clause_end:
                break
            surface = statement.text[word.start : word.end]
            if _CODE_WORD.fullmatch(surface) or _DETERMINER.search(statement.text, cue.end(), word.start):
                break  # "NOT NULL": a keyword's name; "never a rollback": a thing, not a denial
            if surface.lower() not in _ADVERBS:
                governed.setdefault(word.root, ((cue.start(), word.end), cue.start()))
                break
    return governed


def _asserted(statement: Statement, negated: dict[str, tuple[Span, int]]) -> dict[str, Word]:
    """Words no negation of the sentence reaches."""
    spans = [span for span, _ in negated.values()]
    return {
        word.root: word
        for word in statement.words
        if word.root not in negated and not any(s <= word.start < e for s, e in spans)
    }


def clause_roots(statement: Statement, position: int) -> frozenset[str]:
    start, end = clause_of(statement, position)
    return frozenset(w.root for w in statement.words if start <= w.start < end) & statement.topic


def negated_word(
    a: Statement, b: Statement, shared: frozenset[str]
) -> tuple[Sequence[Span], Sequence[Span], str] | None:
    """Shape 1: the word a negation negates is asserted by the other side, and the two clauses
    share one more word (its subject or its object): "Joe Biden does not own an island" / "Joe
    Biden owns island"; (spans of a, spans of b, the word)."""
    if len(shared) < MIN_SHARED:
        return None
    negated_a, negated_b = _negated(a), _negated(b)
    for first, second, neg_first, neg_second, flipped in (
        (a, b, negated_a, negated_b, False),
        (b, a, negated_b, negated_a, True),
    ):
        asserted = _asserted(second, neg_second)
        for word_root, (span, cue) in neg_first.items():
            if word_root not in asserted or word_root.isdigit():
                continue
            other = asserted[word_root]
            # a common verb ("issue", "make") is what is denied only where its clause shares more
            needed = MIN_CLAUSE_SHARED if word_root in shared else MIN_CLAUSE_SHARED + 1
            if len(clause_roots(first, cue) & clause_roots(second, other.start)) < needed:
                continue
            if different_subjects(first, second, cue, other.start):
                continue
            spans = ((span,), ((other.start, other.end),))
            return (spans[1], spans[0], word_root) if flipped else (spans[0], spans[1], word_root)
    return None


def _sides_of(statement: Statement, position: int) -> tuple[frozenset[str], frozenset[str]]:
    """Topic roots of the clause before and after ``position``: a predicate's subject and object."""
    start, end = clause_of(statement, position)
    before = frozenset(w.root for w in statement.words if start <= w.start < position)
    after = frozenset(w.root for w in statement.words if position <= w.start < end)
    return before & statement.topic, after & statement.topic


def negated_predicate(
    a: Statement, b: Statement, shared: frozenset[str], polar: bool = False
) -> tuple[Sequence[Span], Sequence[Span], str] | None:
    """Shape 2: one side negates what it says of a subject, the other says something of the same
    subject and object without negation, in other words: "No, cocaine does not protect against
    COVID-19" / "Cocaine kills the Coronavirus". Only where the negation answers a yes-or-no
    question (``polar``) or opens as a verdict ("No, ..."), and subject and object both meet."""
    for first, second, flipped in ((a, b, False), (b, a, True)):
        negated = _negated(first)
        if not negated or (not polar and not VERDICT.match(first.sentence)) or _negated(second):
            continue
        for word_root, (span, cue) in negated.items():
            subject, rest = _sides_of(first, cue)
            for verb in second.words:
                theirs = _sides_of(second, verb.start)
                if verb.root in subject or not (subject & theirs[0]) or not (rest - {word_root}) & theirs[1]:
                    continue
                spans = ((span,), ((verb.start, verb.end),))
                return (spans[1], spans[0], word_root) if flipped else (spans[0], spans[1], word_root)
    return None


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
