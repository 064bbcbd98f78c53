"""Disagreements: independent sources giving different values for one measure of one thing.

Two figures disagree only when they are of the same kind and unit, are about the same subject
("Kestrel S1" and "the Kestrel battery"), measure the same attribute (round-trip efficiency),
state values rather than bounds or differences, differ, and come from different independence
clusters. Where a subject or an attribute cannot be read, the words around both figures must
say they are about the same thing.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

from researchapp.pipeline.text.aspects import Dimension, attribute_in_scope
from researchapp.pipeline.text.quantities import (
    Figure,
    Quantity,
    format_quantity,
    read_figures,
    same_attribute,
    same_subject,
)
from researchapp.pipeline.text.relevance import GENERIC_TERMS
from researchapp.pipeline.text.tokens import Span, is_cjk_stopword, tokenize_spans
from researchapp.pipeline.values import Evidence

MAX_CONFLICTS = 3
# Figures whose subject or attribute is unknown are about one thing when their surrounding
# words overlap this much.
MIN_SHARED_CONTEXT = 2
MIN_CONTEXT_OVERLAP = 0.4
# A year disagreement needs an event both sentences date: "founded in 1998" / "founded in 2001".
_YEAR_EVENTS = frozenset(
    """born died founded established formed created released published launched opened introduced
    built completed elected appointed signed passed enacted discovered invented began started ended
    closed acquired merged incorporated debuted premiered married retired
    成立 发布 出生 创立 推出 上市 建立 通过 去世 创建 成立于""".split()
)
_NEAR = 4


def cluster_of(item: Evidence) -> str:
    """Independence cluster; evidence without one stands alone as its own source."""
    return item.cluster or f"s{item.source_id}"


def ranked(evidence: Sequence[Evidence]) -> list[Evidence]:
    return sorted(evidence, key=lambda item: (-item.score, item.id))


@dataclass(frozen=True)
class _Stated:
    """A figure as one piece of evidence states it."""

    evidence: Evidence
    figure: Figure

    @property
    def quantity(self) -> Quantity:
        return self.figure.quantity


@dataclass(frozen=True)
class Conflict:
    first: tuple[Evidence, ...]  # the side of the best-ranked evidence
    second: tuple[Evidence, ...]
    first_figure: _Stated
    second_figure: _Stated
    shared: frozenset[str]

    @property
    def ids(self) -> tuple[int, ...]:
        return tuple(sorted(item.id for item in self.first + self.second))


def _same_value(a: Quantity, b: Quantity) -> bool:
    if a.kind == "percent":
        return abs(a.value - b.value) <= 0.5
    return abs(a.value - b.value) <= 0.01 * max(abs(a.value), abs(b.value), 1e-9)


def _about_same_thing(a: _Stated, b: _Stated) -> frozenset[str] | None:
    """Shared context words when two figures measure the same thing of the same subject."""
    qa, qb = a.quantity, b.quantity
    if qa.kind != qb.kind or qa.unit != qb.unit:
        return None
    # Figures dated to different years are a time series, not a disagreement.
    if a.figure.years and b.figure.years and not (a.figure.years & b.figure.years):
        return None
    subject, attribute = same_subject(a.figure, b.figure), same_attribute(a.figure, b.figure)
    if subject is False or attribute is False:
        return None
    shared = (qa.context & qb.context) - GENERIC_TERMS
    if qa.kind == "year":
        if not (_near_words(a) & _near_words(b) & _YEAR_EVENTS):
            return None
    elif subject and attribute:
        return shared
    needed = MIN_SHARED_CONTEXT + (1 if qa.kind == "year" or not qa.unit else 0)
    smaller = min(len(qa.context), len(qb.context)) or 1
    if len(shared) < needed or len(shared) / smaller < MIN_CONTEXT_OVERLAP:
        return None
    return shared


def _near_words(stated: _Stated) -> frozenset[str]:
    return _words_around(stated.evidence.quote, stated.quantity.start, stated.quantity.end)


@lru_cache(maxsize=4096)
def _words_around(quote: str, start: int, end: int) -> frozenset[str]:
    tokens = tokenize_spans(quote)
    before = [t.text for t in tokens if t.end <= start][-_NEAR:]
    after = [t.text for t in tokens if t.start >= end][:_NEAR]
    return frozenset(before + after)


def _states(stated: Sequence[_Stated], like: _Stated) -> bool:
    """One of ``stated`` gives ``like``'s value for what could be the same thing."""
    return any(
        _same_value(other.quantity, like.quantity)
        and other.quantity.kind == like.quantity.kind
        and other.quantity.unit == like.quantity.unit
        and same_subject(other.figure, like.figure) is not False
        and same_attribute(other.figure, like.figure) is not False
        for other in stated
    )


def _side(own: _Stated, everyone: dict[int, list[_Stated]], other: _Stated) -> tuple[Evidence, ...]:
    """Every piece of evidence that states ``own``'s value for its subject, not ``other``'s."""
    side = []
    for stated in everyone.values():
        if _states(stated, other):
            continue
        if any(
            _same_value(s.quantity, own.quantity) and _about_same_thing(s, own) is not None for s in stated
        ):
            side.append(stated[0].evidence)
    if own.evidence not in side:
        side.insert(0, own.evidence)
    return tuple(side)


def _stated_figures(item: Evidence, dimensions: Sequence[Dimension]) -> list[_Stated]:
    return [
        _Stated(item, figure)
        for figure in read_figures(item.quote, item.source_title)
        if attribute_in_scope(figure.attribute, dimensions)
    ]


def find_conflicts(evidence: Sequence[Evidence], dimensions: Sequence[Dimension] = ()) -> list[Conflict]:
    """Figures for one measure of one subject that disagree across independent clusters.

    1. Read every figure of every quote that states a value; under a dimension sub-question,
       keep those whose attribute belongs to the dimension (or is unknown).
    2. For two quotes from different clusters, a pair of figures about the same thing with
       different values, where neither quote also states the other value, is a disagreement.
    3. Gather each side's evidence and report each disagreement once.
    """
    items = ranked(evidence)
    figures = {item.id: _stated_figures(item, dimensions) for item in items}
    figures = {key: value for key, value in figures.items() if value}
    conflicts: list[Conflict] = []
    seen: set[tuple[int, ...]] = set()
    for i, first in enumerate(items):
        for second in items[i + 1 :]:
            if cluster_of(first) == cluster_of(second):
                continue
            for a in figures.get(first.id, ()):
                for b in figures.get(second.id, ()):
                    if _same_value(a.quantity, b.quantity):
                        continue
                    shared = _about_same_thing(a, b)
                    if shared is None or _states(figures[first.id], b) or _states(figures[second.id], a):
                        continue
                    conflict = Conflict(_side(a, figures, b), _side(b, figures, a), a, b, shared)
                    if conflict.ids not in seen and not set(conflict.first) & set(conflict.second):
                        seen.add(conflict.ids)
                        conflicts.append(conflict)
    return conflicts[:MAX_CONFLICTS]


def disputed_spans(conflicts: Sequence[Conflict]) -> dict[int, list[Span]]:
    """Per evidence id, where its quote states one of the disputed figures."""
    spans: dict[int, list[Span]] = {}
    for conflict in conflicts:
        disputed = (conflict.first_figure, conflict.second_figure)
        for item in conflict.first + conflict.second:
            for figure in read_figures(item.quote, item.source_title):
                stated = _Stated(item, figure)
                if any(_states([stated], side) for side in disputed):
                    spans.setdefault(item.id, []).append((figure.quantity.start, figure.quantity.end))
    return spans


def _shared_words(stated: _Stated, shared: frozenset[str]) -> str:
    """The shared context words as written in the quote, adjacent ones joined ("电动汽车")."""
    quote = stated.evidence.quote
    spans: list[Span] = []
    for token in tokenize_spans(quote):
        if token.text in shared and abs(token.start - stated.quantity.start) < 200:
            # Words apart only by a function character ("电动汽车的市场份额") read as one phrase.
            if spans and (token.start <= spans[-1][1] or is_cjk_stopword(quote[spans[-1][1] : token.start])):
                spans[-1] = (spans[-1][0], max(spans[-1][1], token.end))
            elif not any(quote[s:e].lower() == quote[token.start : token.end].lower() for s, e in spans):
                spans.append((token.start, token.end))
    return " ".join(quote[s:e] for s, e in spans)


def conflict_statement(conflict: Conflict, *, chinese: bool) -> str:
    """ "Sources disagree on the round-trip efficiency of Kestrel S1: 92 percent vs 85 percent"."""
    figure = conflict.first_figure.figure
    first = format_quantity(conflict.first_figure.evidence.quote, conflict.first_figure.quantity)
    second = format_quantity(conflict.second_figure.evidence.quote, conflict.second_figure.quantity)
    if figure.subject_text and figure.attribute_text:
        topic = (
            f"{figure.subject_text}的{figure.attribute_text}"
            if chinese
            else f"the {figure.attribute_text} of {figure.subject_text}"
        )
    else:
        topic = _shared_words(conflict.first_figure, conflict.shared)
    if chinese:
        return f"来源在{topic}上存在分歧：{first} 对 {second}"
    return f"Sources disagree on {topic}: {first} vs {second}"
