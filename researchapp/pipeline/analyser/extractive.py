"""The extractive analysis: findings from passages without a model.

A finding's statement is always a verbatim sentence of a quote (or, for a conflict, names what
the two sides say verbatim), so the writer can cite it without rewording anything. Disagreements
are found across the whole task (``disputes``, judged by ``text.contradiction``); a supported
statement never states a disputed span.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from researchapp.core.enums import FindingStatus, Stance
from researchapp.pipeline.analyser.disputes import (
    conflict_finding,
    disputed_spans,
    find_disputes,
    in_scope,
)
from researchapp.pipeline.text.aspects import dimension_vocabulary, dimensions_of
from researchapp.pipeline.text.contradiction import RuleJudge
from researchapp.pipeline.text.relevance import (
    GENERIC_TERMS,
    aspect_terms,
    says_the_same,
    subquestion_terms,
    term_weights,
)
from researchapp.pipeline.text.sentences import best_sentence, is_heading_line, is_statement, split_sentences
from researchapp.pipeline.text.tokens import Span, cjk_count, tokenize
from researchapp.pipeline.values import Evidence, EvidenceLink, ProposedFinding, SubQuestion, UsageLog

INSUFFICIENT_MARK = "[证据不足]"
MAX_SUPPORTED = 4


def cluster_of(item: Evidence) -> str:
    """Independence cluster; evidence without one stands alone as its own source."""
    return item.cluster or f"s{item.source_id}"


def ranked(evidence: Sequence[Evidence]) -> list[Evidence]:
    return sorted(evidence, key=lambda item: (-item.score, item.id))


def confidence_of(items: Sequence[Evidence]) -> str:
    return "high" if len({cluster_of(item) for item in items}) >= 2 else "medium"


@dataclass(frozen=True)
class _Pick:
    """A sentence of one evidence's quote proposed as a statement."""

    evidence: Evidence
    span: Span
    matched: int  # how many of the sub-question's terms it holds
    on_aspect: bool  # it uses a word of what is asked (the dimension's vocabulary), or nothing is

    @property
    def sentence(self) -> str:
        return self.evidence.quote[self.span[0] : self.span[1]]


class _Findings:
    """Supported findings being built: no evidence seeds two findings from one sentence, and no
    two findings share a statement."""

    def __init__(self, subquestion: SubQuestion, picks: Sequence[_Pick]):
        self.subquestion = subquestion
        self.picks = picks
        self.drafts: list[ProposedFinding] = []
        self.used: set[int] = set()
        self.seeded: set[int] = set()

    def statements(self) -> set[str]:
        return {draft.statement for draft in self.drafts}

    def add(self, pick: _Pick, *, linked_elsewhere_too: bool = False) -> None:
        seed, statement = pick.evidence, pick.sentence
        agreeing = [
            other.evidence
            for other in self.picks
            if other.evidence.id != seed.id
            and (linked_elsewhere_too or other.evidence.id not in self.used)
            and says_the_same(statement, other.evidence.quote)
        ]
        links = tuple(dict.fromkeys((seed, *agreeing)))
        key = f"sq{self.subquestion.id}:supported:{seed.id}"
        if seed.id in self.seeded:
            key += f"@{pick.span[0]}"  # a second sentence of one quote: stable, and distinct
        self.seeded.add(seed.id)
        self.used.update(item.id for item in links)
        self.drafts.append(
            ProposedFinding(
                key=key,
                subquestion_id=self.subquestion.id,
                status=FindingStatus.SUPPORTED,
                statement=statement,
                confidence=confidence_of(links),
                links=tuple(EvidenceLink(item.id, Stance.SUPPORTS) for item in links),
            )
        )


def _sentences(item: Evidence, avoid: Sequence[Span]) -> list[Span]:
    """Statements of a quote (whole sentences the writer can state) that state nothing disputed."""
    return [
        (start, end)
        for start, end in split_sentences(item.quote)
        if not is_heading_line(item.quote[start:end])
        and not any(s < end and start < e for s, e in avoid)
        and is_statement(item.quote, (start, end))
    ]


def _filling_pick(
    findings: _Findings,
    evidence: Sequence[Evidence],
    asked: Sequence[str],
    weights: dict[str, float],
    aspects: frozenset[str],
    avoid: Mapping[int, Sequence[Span]],
) -> _Pick | None:
    """The sentence that adds most of what the sub-question asks and no statement holds yet
    ("how tall" after "built in 1871"), from any quote, best-ranked evidence first on a tie."""
    covered = {term for statement in findings.statements() for term in tokenize(statement)}
    missing = [term for term in asked if term not in covered]
    if not missing:
        return None
    best: tuple[float, _Pick] | None = None
    for item in evidence:
        for span in _sentences(item, avoid.get(item.id, ())):
            sentence = item.quote[span[0] : span[1]]
            tokens = set(tokenize(sentence))
            if sentence in findings.statements() or (aspects and not aspects & tokens):
                continue
            gain = sum(weights.get(term, 1.0) for term in missing if term in tokens)
            if gain > 0 and (best is None or gain > best[0]):
                best = (gain, _Pick(item, span, len(tokens & set(asked)), True))
    return best[1] if best else None


def supported_findings(
    subquestion: SubQuestion, evidence: Sequence[Evidence], avoid: Mapping[int, Sequence[Span]]
) -> list[ProposedFinding]:
    """1. Pick each evidence's sentence that best answers the sub-question (one using the
       words of the dimension asked, if any), states nothing disputed (``avoid``: spans per
       evidence id) and is a statement the writer can state (``is_statement``).
    2. The first finding is the best pick: sentences naming what is asked (the aspect) first,
       then evidence score.
    3. Each next finding is the sentence, from any quote, that adds most of the sub-question's
       own words no statement holds yet (the Osprey's price after the Kestrel's, "how tall"
       after "when built"); when none adds anything, the next pick in order.
    4. Each finding links every evidence that says the same; up to ``MAX_SUPPORTED`` findings,
       no two with the same statement. Past the first, a sentence must match the sub-question
       (and its aspect, if any).
    """
    terms = [term for term in subquestion_terms(subquestion) if term not in GENERIC_TERMS]
    asked = [term for term in dict.fromkeys(tokenize(subquestion.text)) if term not in GENERIC_TERMS]
    aspects = dimension_vocabulary(dimensions_of(subquestion)) or frozenset(aspect_terms(subquestion))
    items = ranked(evidence)
    weights = term_weights([item.quote for item in evidence], terms)
    picks: list[_Pick] = []
    for item in items:
        picked = best_sentence(
            item.quote, terms, avoid=avoid.get(item.id, ()), weights=weights, prefer=aspects
        )
        if picked is not None and is_statement(item.quote, picked[0]):
            span, matched = picked
            sentence = item.quote[span[0] : span[1]]
            picks.append(
                _Pick(item, span, matched, not aspects or bool(aspects.intersection(tokenize(sentence))))
            )
    picks.sort(key=lambda pick: not pick.on_aspect)  # stable: score order is kept within each group
    findings = _Findings(subquestion, picks)
    queue = list(picks)
    while len(findings.drafts) < MAX_SUPPORTED:
        if findings.drafts:
            filling = _filling_pick(findings, items, asked, weights, aspects, avoid)
            if filling is not None:
                findings.add(filling, linked_elsewhere_too=True)
                continue
        if not queue:
            break
        pick = queue.pop(0)
        if pick.evidence.id in findings.used or pick.sentence in findings.statements():
            continue
        if findings.drafts and (pick.matched == 0 or not pick.on_aspect):
            continue
        findings.add(pick)
    return findings.drafts


def insufficient_finding(subquestion: SubQuestion) -> ProposedFinding:
    return ProposedFinding(
        key=f"sq{subquestion.id}:insufficient",
        subquestion_id=subquestion.id,
        status=FindingStatus.INSUFFICIENT,
        statement=f"{INSUFFICIENT_MARK} {subquestion.text}",
    )


REJECTED_PREFIX = "the model's analysis was rejected: "


def rejected_analysis(subquestion: SubQuestion, reason: str) -> ProposedFinding:
    """A sub-question whose model analysis was rejected twice: an item for an analyst to decide
    (keep as a gap, drop, or research more, which analyses it again), with the reason."""
    return ProposedFinding(
        key=f"sq{subquestion.id}:rejected",
        subquestion_id=subquestion.id,
        status=FindingStatus.INSUFFICIENT,
        statement=f"{INSUFFICIENT_MARK} {subquestion.text} — {REJECTED_PREFIX}{reason}",
    )


def analyse_extractive(
    subquestion: SubQuestion,
    evidence: Sequence[Evidence],
    *,
    disputed: Mapping[int, Sequence[Span]] | None = None,
) -> list[ProposedFinding]:
    """Findings for one sub-question: supported statements first, then disagreements.

    In a task, disagreements are found across all its sub-questions first and ``disputed`` holds
    the spans no statement may state (the runner stores the conflicts once). Without it (one
    sub-question on its own), the sub-question's own evidence is judged by rule here, and a
    dimension sub-question (cost, performance, ...) reports only disagreements about what belongs
    to its dimension. No evidence gives a single ``insufficient`` finding, shown as [证据不足].
    """
    if not evidence:
        return [insufficient_finding(subquestion)]
    conflicts: list[ProposedFinding] = []
    if disputed is None:
        disputes = [
            d for d in find_disputes(evidence, RuleJudge(), usage=UsageLog()) if in_scope(d, subquestion)
        ]
        disputed = disputed_spans(disputes, evidence)
        by_id = {item.id: item for item in evidence}
        chinese = cjk_count(subquestion.text) >= 2
        for dispute in disputes:
            ids = {side.place: side.evidence_id for side in dispute.sides if side.evidence_id is not None}
            first = [by_id[side.evidence_id] for side in dispute.first if side.evidence_id in by_id]
            conflicts.append(
                conflict_finding(dispute, subquestion, ids, chinese=chinese, confidence=confidence_of(first))
            )
    drafts = supported_findings(subquestion, evidence, disputed) + conflicts
    return drafts or [insufficient_finding(subquestion)]


class ExtractiveAnalyser:
    """``Analyser`` without a model: the same evidence always gives the same findings, so a
    re-run stage upserts rather than proposing something different."""

    name = "extractive"

    def analyse(
        self,
        subquestion: SubQuestion,
        evidence: Sequence[Evidence],
        *,
        usage: UsageLog,
        disputed: Mapping[int, Sequence[Span]] | None = None,
    ) -> list[ProposedFinding]:
        return analyse_extractive(subquestion, evidence, disputed=disputed)
