"""Candidate pairs across a whole task: passages of different documents about the same thing.

Every pair is made once per task, whatever the sub-questions that found its passages and
whatever the documents' independence clusters: two pages of one site can disagree, and a
disagreement is for a person to review, while clusters only say how much agreement is worth.

A pair is two passages of different sources that share at least ``MIN_SHARED`` topic roots (the
subject and what is said of it; a shared name or a shared figure of three digits or more counts
twice), or that share one of the question's terms and each hold two of them (``bridged``: only
one denying the other counts there). Evidence is paired with evidence, and with passages of the
task's other opened sources (``pool``): a page whose passage states the asked fact in other words
may not have cleared the relevance bar, yet it is the other side of a disagreement with one that
did.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import replace

from researchapp.pipeline.text.contradiction.focus import focus_of
from researchapp.pipeline.text.contradiction.typed import asked_in
from researchapp.pipeline.text.contradiction.values import Pair, Side

MIN_SHARED = 2
MIN_ASKED = 2  # or: one shared term of the question, and each passage holds this many of them
MAX_PAIRS = 400  # a task's pairs, most shared words first: the judges' work stays bounded


def _overlaps(a: Side, b: Side) -> bool:
    return a.source_id == b.source_id and a.start < b.end and b.start < a.end


def _asked_terms(side: Side) -> frozenset[str]:
    """The question's terms the passage holds (meeting by their first letters, as ``typed`` reads them)."""
    focus = focus_of(side.question)
    return frozenset(asked_in(side.topic, focus)) if focus.roots else frozenset()


def _both_answer(first: Side, second: Side, asked: frozenset[str]) -> bool:
    """Two passages that share one of the question's terms and each hold ``MIN_ASKED`` of them
    answer one question, however few other words they share ("revenues to the Treasury increase
    after we lowered taxes" / "total revenue ... has actually fallen")."""
    if len(asked) < MIN_ASKED:
        return False
    theirs = _asked_terms(replace(second, question=first.question))
    return len(theirs) >= MIN_ASKED and bool(asked & theirs & first.topic & second.topic)


def distinct_passages(sides: Sequence[Side]) -> list[Side]:
    """One side per place: a passage stored under two sub-questions is one passage. The
    best-scored evidence row stands for it."""
    best: dict[tuple[int, int, int], Side] = {}
    for side in sorted(sides, key=lambda s: (-s.score, s.evidence_id or 0)):
        best.setdefault(side.place, side)
    return list(best.values())


def candidate_pairs(evidence: Sequence[Side], pool: Sequence[Side] = ()) -> list[Pair]:
    """Pairs of evidence with evidence, and of evidence with pool passages, about one thing.

    1. One side per distinct passage; pool passages that overlap evidence are dropped (the
       evidence stands for them).
    2. Index every passage's topic roots; a pair must come from two sources and share
       ``MIN_SHARED`` roots.
    3. Most shared roots first, then the better evidence; at most ``MAX_PAIRS``.
    """
    passages = distinct_passages(evidence)
    extra = [p for p in pool if not any(_overlaps(p, e) for e in passages)]
    topics = {side.place: side.topic for side in [*passages, *extra]}
    holders: dict[str, list[Side]] = defaultdict(list)
    for side in [*passages, *extra]:
        for term in topics[side.place]:
            holders[term].append(side)
    found: dict[tuple, Pair] = {}
    for first in passages:
        counts: dict[tuple[int, int, int], int] = defaultdict(int)
        others: dict[tuple[int, int, int], Side] = {}
        for term in topics[first.place]:
            for other in holders[term]:
                if other.source_id != first.source_id:
                    counts[other.place] += 2 if term.startswith("value:") else 1
                    others[other.place] = other
        asked = _asked_terms(first)
        for place, count in counts.items():
            second = others[place]
            if count < MIN_SHARED and not _both_answer(first, second, asked):
                continue
            key = tuple(sorted((first.place, second.place)))
            if key in found:
                continue
            shared = tuple(sorted(topics[first.place] & topics[second.place]))
            found[key] = Pair(first, second, shared, bridged=count < MIN_SHARED)
    ranked = sorted(
        found.values(),
        key=lambda p: (-len(p.shared), -(p.first.score + p.second.score), p.first.place, p.second.place),
    )
    return ranked[:MAX_PAIRS]
