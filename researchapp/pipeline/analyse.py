"""The extractive analysis: findings from passages without a model.

A finding's statement is always a verbatim sentence of a quote (or, for a conflict, names the
two figures verbatim), so the writer can cite it without rewording anything.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

from researchapp.pipeline.evidence import (
    GENERIC_TERMS,
    aspect_terms,
    best_sentence,
    subquestion_terms,
    term_weights,
)
from researchapp.pipeline.text import (
    STOPWORDS,
    Quantity,
    Span,
    cjk_count,
    extract_quantities,
    format_quantity,
    split_sentences,
    tokenize,
    tokenize_spans,
)
from researchapp.pipeline.types import (
    Evidence,
    EvidenceLink,
    FindingDraft,
    FindingStatus,
    Stance,
    SubQuestion,
)

INSUFFICIENT_MARK = "[证据不足]"
MAX_SUPPORTED = 3
MAX_CONFLICTS = 3
# Two figures are about one subject when their surrounding words overlap this much.
MIN_SHARED_CONTEXT = 2
MIN_CONTEXT_OVERLAP = 0.4
# A sentence "says the same" as a statement when it holds this share of the statement's terms.
AGREEMENT = 0.6


def cluster_of(item: Evidence) -> str:
    """Independence cluster; evidence without one stands alone as its own source."""
    return item.cluster or f"s{item.source_id}"


def _ranked(evidence: Sequence[Evidence]) -> list[Evidence]:
    return sorted(evidence, key=lambda item: (-item.score, item.id))


# --- conflicts --------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Figure:
    """One quantity in one piece of evidence, with the years and names its sentence mentions."""

    evidence: Evidence
    quantity: Quantity
    years: frozenset[float]
    names: frozenset[str]


_MONTHS = (
    "january february march april may june july august september october november december "
    "jan feb mar apr jun jul aug sep sept oct nov dec"
).split()
_NOT_NAMES = frozenset(_MONTHS + "monday tuesday wednesday thursday friday saturday sunday".split())
_ORDINAL_UNITS = frozenset(("st", "nd", "rd", "th"))
_NAME = re.compile(r"\b[A-Z][\w'’.-]*")
_DATE_PART = re.compile(r"(?:\b(?:" + "|".join(_MONTHS) + r")\.?\s*$)", re.IGNORECASE)
_RANGE_EDGE = re.compile(r"\d\s?[–—-]\s?$")
_NAMED_NUMBER = re.compile(r"\b[A-Z][A-Za-z]*\.? $")  # "Hot 100", "Windows 11": part of a name
# A year disagreement needs an event both sentences date: "founded in 1998" / "founded in 2001".
_YEAR_EVENTS = frozenset(
    """born died founded established formed created released published launched opened introduced
    built completed elected appointed signed passed enacted discovered invented began started ended
    closed acquired merged incorporated debuted premiered married retired
    成立 发布 出生 创立 推出 上市 建立 通过 去世 创建 成立于""".split()
)
_NEAR = 4


def _names(sentence: str) -> frozenset[str]:
    """Capitalised words: who or what a figure is about ("Rust", "Botswana", "Gerald McRaney")."""
    words = (word.lower().rstrip(".") for word in _NAME.findall(sentence))
    return frozenset(w for w in words if w not in STOPWORDS and w not in _NOT_NAMES and w not in _STARTERS)


# Words capitalised only because they open a sentence.
_STARTERS = frozenset(
    """according however although after before during while since despite overall meanwhile
    today recently currently moreover furthermore additionally also some many most only nearly
    almost around roughly approximately last next first one two three another each every both
    data figures statistics researchers experts analysts reports report studies study survey""".split()
)


def _comparable(quote: str, quantity: Quantity) -> bool:
    """Figures worth comparing: not ordinals ("13th"), day numbers ("15 May") or range ends."""
    if quantity.kind == "number" and (quantity.unit in _ORDINAL_UNITS or quantity.unit in _NOT_NAMES):
        return False
    before = quote[max(0, quantity.start - 12) : quantity.start]
    after = quote[quantity.end : quantity.end + 4]
    if quantity.kind == "number" and (_DATE_PART.search(before) or _NAMED_NUMBER.search(before)):
        return False
    return not (_RANGE_EDGE.search(before) or re.match(r"\s?[–—-]\s?\d", after))


@dataclass(frozen=True)
class Conflict:
    first: tuple[Evidence, ...]  # the side of the best-ranked evidence
    second: tuple[Evidence, ...]
    first_figure: _Figure
    second_figure: _Figure
    shared: frozenset[str]

    @property
    def ids(self) -> tuple[int, ...]:
        return tuple(sorted(item.id for item in self.first + self.second))


def _figures(item: Evidence) -> list[_Figure]:
    quantities = extract_quantities(item.quote)
    sentences = split_sentences(item.quote) or [(0, len(item.quote))]
    figures = []
    for quantity in quantities:
        if not _comparable(item.quote, quantity):
            continue
        sentence = next((s for s in sentences if s[0] <= quantity.start < s[1]), (0, len(item.quote)))
        years = frozenset(
            other.value
            for other in quantities
            if other.kind == "year" and other is not quantity and sentence[0] <= other.start < sentence[1]
        )
        # A sentence that names nothing ("The total area is 909 km") is about its page's subject.
        names = _names(item.quote[sentence[0] : sentence[1]]) or _names(item.source_title)
        figures.append(_Figure(item, quantity, years, names))
    return figures


def _same_value(a: Quantity, b: Quantity) -> bool:
    if a.kind == "percent":
        return abs(a.value - b.value) <= 0.5
    return abs(a.value - b.value) <= 0.01 * max(abs(a.value), abs(b.value), 1e-9)


def _about_same_subject(a: _Figure, b: _Figure) -> frozenset[str]:
    """Shared context terms when two figures measure the same thing, else an empty set."""
    qa, qb = a.quantity, b.quantity
    if qa.kind != qb.kind or qa.unit != qb.unit:
        return frozenset()
    # Figures dated to different years are a time series, not a disagreement.
    if a.years and b.years and not (a.years & b.years):
        return frozenset()
    # Sentences about different named things ("Botswana" / "Lesotho") measure different things.
    if a.names and b.names and len(a.names & b.names) <= 0.5 * min(len(a.names), len(b.names)):
        return frozenset()
    shared = (qa.context & qb.context) - GENERIC_TERMS
    smaller = min(len(qa.context), len(qb.context)) or 1
    needed = MIN_SHARED_CONTEXT + (1 if qa.kind == "year" or not qa.unit else 0)
    if len(shared) < needed or len(shared) / smaller < MIN_CONTEXT_OVERLAP:
        return frozenset()
    if qa.kind == "year" and not (_near_words(a) & _near_words(b) & _YEAR_EVENTS):
        return frozenset()
    return shared


def _near_words(figure: _Figure) -> frozenset[str]:
    return _words_around(figure.evidence.quote, figure.quantity.start, figure.quantity.end)


@lru_cache(maxsize=4096)
def _words_around(quote: str, start: int, end: int) -> frozenset[str]:
    tokens = tokenize_spans(quote)
    before = [t.text for t in tokens if t.end <= start][-_NEAR:]
    after = [t.text for t in tokens if t.start >= end][:_NEAR]
    return frozenset(before + after)


def _mentions_value(figures: Sequence[_Figure], like: Quantity) -> bool:
    return any(
        f.quantity.kind == like.kind and f.quantity.unit == like.unit and _same_value(f.quantity, like)
        for f in figures
    )


def _side(figure: _Figure, all_figures: dict[int, list[_Figure]], other: Quantity) -> tuple[Evidence, ...]:
    """Every piece of evidence that states ``figure``'s value for its subject, not the other's."""
    side = []
    for figures in all_figures.values():
        if _mentions_value(figures, other):
            continue
        if any(_same_value(f.quantity, figure.quantity) and _about_same_subject(f, figure) for f in figures):
            side.append(figures[0].evidence)
    if figure.evidence not in side:
        side.insert(0, figure.evidence)
    return tuple(side)


def find_conflicts(evidence: Sequence[Evidence]) -> list[Conflict]:
    """Figures for one subject that disagree across independent clusters.

    1. Extract every figure of every quote.
    2. For two quotes from different clusters, a pair of figures of the same kind and unit,
       about the same subject (shared context words, same or no year), with different values,
       where neither quote also states the other value, is a disagreement.
    3. Gather each side's evidence and report each disagreement once.
    """
    ranked = _ranked(evidence)
    figures = {item.id: _figures(item) for item in ranked}
    figures = {key: value for key, value in figures.items() if value}
    conflicts: list[Conflict] = []
    seen: set[tuple[int, ...]] = set()
    for i, first in enumerate(ranked):
        for second in ranked[i + 1 :]:
            if cluster_of(first) == cluster_of(second):
                continue
            for a in figures.get(first.id, ()):
                for b in figures.get(second.id, ()):
                    if _same_value(a.quantity, b.quantity):
                        continue
                    shared = _about_same_subject(a, b)
                    if not shared:
                        continue
                    if _mentions_value(figures[first.id], b.quantity) or _mentions_value(
                        figures[second.id], a.quantity
                    ):
                        continue
                    conflict = Conflict(
                        _side(a, figures, b.quantity), _side(b, figures, a.quantity), a, b, shared
                    )
                    if conflict.ids not in seen and not set(conflict.first) & set(conflict.second):
                        seen.add(conflict.ids)
                        conflicts.append(conflict)
    return conflicts[:MAX_CONFLICTS]


def _subject_words(figure: _Figure, shared: frozenset[str]) -> str:
    """The shared context words as written in the quote, adjacent ones joined ("电动汽车")."""
    quote = figure.evidence.quote
    spans: list[Span] = []
    for token in tokenize_spans(quote):
        if token.text in shared and abs(token.start - figure.quantity.start) < 200:
            if spans and token.start <= spans[-1][1]:
                spans[-1] = (spans[-1][0], max(spans[-1][1], token.end))
            elif not any(quote[s:e].lower() == quote[token.start : token.end].lower() for s, e in spans):
                spans.append((token.start, token.end))
    return " ".join(quote[s:e] for s, e in spans)


def conflict_statement(conflict: Conflict, *, chinese: bool) -> str:
    subject = _subject_words(conflict.first_figure, conflict.shared)
    first = format_quantity(conflict.first_figure.evidence.quote, conflict.first_figure.quantity)
    second = format_quantity(conflict.second_figure.evidence.quote, conflict.second_figure.quantity)
    if chinese:
        return f"来源在{subject}上存在分歧：{first} 对 {second}"
    return f"Sources disagree on {subject}: {first} vs {second}"


# --- supported findings -----------------------------------------------------------------------


def says_the_same(sentence: str, quote: str) -> bool:
    """``quote`` holds most of the sentence's words and every one of its figures."""
    if sentence in quote:
        return True
    sentence_terms = set(tokenize(sentence))
    if not sentence_terms:
        return False
    covered = len(sentence_terms.intersection(tokenize(quote))) / len(sentence_terms)
    if covered < AGREEMENT:
        return False
    quote_figures = extract_quantities(quote)
    return all(
        any(_same_value(mine, theirs) and mine.kind == theirs.kind for theirs in quote_figures)
        for mine in extract_quantities(sentence)
    )


def _confidence(items: Sequence[Evidence]) -> str:
    return "high" if len({cluster_of(item) for item in items}) >= 2 else "medium"


def _disputed_spans(conflicts: Sequence[Conflict]) -> dict[int, list[Span]]:
    """Per evidence id, where its quote states one of the disputed figures."""
    spans: dict[int, list[Span]] = {}
    for conflict in conflicts:
        disputed = (conflict.first_figure.quantity, conflict.second_figure.quantity)
        for item in conflict.first + conflict.second:
            for other in extract_quantities(item.quote):
                if any(
                    other.kind == q.kind and other.unit == q.unit and _same_value(other, q) for q in disputed
                ):
                    spans.setdefault(item.id, []).append((other.start, other.end))
    return spans


def supported_findings(
    subquestion: SubQuestion, evidence: Sequence[Evidence], conflicts: Sequence[Conflict]
) -> list[FindingDraft]:
    """1. Pick each evidence's most relevant sentence that states no disputed figure.
    2. Seed findings in order: sentences naming what is asked (the aspect) first, then score.
    3. Link every unused evidence that says the same; up to ``MAX_SUPPORTED`` findings.
    Past the first finding, a sentence must match the sub-question (and its aspect, if any).
    """
    terms = [term for term in subquestion_terms(subquestion) if term not in GENERIC_TERMS]
    aspects = set(aspect_terms(subquestion))
    avoid = _disputed_spans(conflicts)
    weights = term_weights([item.quote for item in evidence], terms)
    candidates: list[tuple[bool, int, Evidence, str]] = []
    for item in _ranked(evidence):
        picked = best_sentence(item.quote, terms, avoid=avoid.get(item.id, ()), weights=weights)
        if picked is not None:
            (start, end), matched = picked
            sentence = item.quote[start:end]
            on_aspect = not aspects or bool(aspects.intersection(tokenize(sentence)))
            candidates.append((on_aspect, matched, item, sentence))
    candidates.sort(key=lambda c: not c[0])  # stable: score order is kept within each group
    used: set[int] = set()
    drafts: list[FindingDraft] = []
    for on_aspect, matched, seed, statement in candidates:
        if len(drafts) >= MAX_SUPPORTED:
            break
        if seed.id in used or (drafts and (matched == 0 or not on_aspect)):
            continue
        agreeing = [
            item
            for _, _, item, _ in candidates
            if item.id not in used | {seed.id} and says_the_same(statement, item.quote)
        ]
        links = (seed, *agreeing)
        used.update(item.id for item in links)
        drafts.append(
            FindingDraft(
                key=f"sq{subquestion.id}:supported:{seed.id}",
                subquestion_id=subquestion.id,
                status=FindingStatus.SUPPORTED,
                statement=statement,
                confidence=_confidence(links),
                links=tuple(EvidenceLink(item.id, Stance.SUPPORTS) for item in links),
            )
        )
    return drafts


def insufficient_finding(subquestion: SubQuestion) -> FindingDraft:
    return FindingDraft(
        key=f"sq{subquestion.id}:insufficient",
        subquestion_id=subquestion.id,
        status=FindingStatus.INSUFFICIENT,
        statement=f"{INSUFFICIENT_MARK} {subquestion.text}",
    )


def analyse_extractive(subquestion: SubQuestion, evidence: Sequence[Evidence]) -> list[FindingDraft]:
    """Findings for one sub-question: supported statements first, then disagreements.

    No evidence gives a single ``insufficient`` finding, shown to analysts as [证据不足].
    """
    if not evidence:
        return [insufficient_finding(subquestion)]
    conflicts = find_conflicts(evidence)
    chinese = cjk_count(subquestion.text) >= 2
    drafts = supported_findings(subquestion, evidence, conflicts)
    for conflict in conflicts:
        links = tuple(EvidenceLink(item.id, Stance.SUPPORTS) for item in conflict.first) + tuple(
            EvidenceLink(item.id, Stance.CONTRADICTS) for item in conflict.second
        )
        drafts.append(
            FindingDraft(
                key=f"sq{subquestion.id}:conflict:{'-'.join(str(i) for i in conflict.ids)}",
                subquestion_id=subquestion.id,
                status=FindingStatus.CONFLICT,
                statement=conflict_statement(conflict, chinese=chinese),
                confidence=_confidence(conflict.first),
                links=links,
            )
        )
    if not drafts:
        return [insufficient_finding(subquestion)]
    return drafts
