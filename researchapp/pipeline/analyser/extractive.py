"""The extractive analysis: findings from what the reader finds the passages state, without a model.

A finding's statement is always a verbatim piece of a quote (a sentence, a lead-in with its list,
a term with its description), and its ``answer`` the words in it that answer the sub-question (or,
for a conflict, names the two figures verbatim), so the writer can cite it without rewording
anything. What answers is the reader's call (``pipeline.reader``); disagreements are found across
the whole task (``disputes``, judged by ``text.contradiction``), and a piece stating a disputed span
never answers.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from researchapp.core.enums import FindingStatus, Stance
from researchapp.pipeline.analyser.disputes import (
    asks_about,
    conflict_finding,
    disputed_spans,
    find_disputes,
    in_scope,
)
from researchapp.pipeline.reader import Reader
from researchapp.pipeline.reader.extractive import ExtractiveReader
from researchapp.pipeline.text.contradiction import RuleJudge
from researchapp.pipeline.text.tokens import Span, cjk_count
from researchapp.pipeline.values import (
    Answers,
    Evidence,
    EvidenceLink,
    ProposedFinding,
    SubQuestion,
    UsageLog,
)

INSUFFICIENT_MARK = "[证据不足]"


def cluster_of(item: Evidence) -> str:
    """Independence cluster; evidence without one stands alone as its own source."""
    return item.cluster or f"s{item.source_id}"


def confidence_of(items: Sequence[Evidence]) -> str:
    return "high" if len({cluster_of(item) for item in items}) >= 2 else "medium"


def answered_findings(
    subquestion: SubQuestion, answers: Answers, evidence: Sequence[Evidence]
) -> list[ProposedFinding]:
    """One supported finding per answer: the answering piece of its quote as the statement, the
    answer span, and every passage that states the same answer as support."""
    by_id = {item.id: item for item in evidence}
    findings: list[ProposedFinding] = []
    seeded: set[int] = set()
    for span in answers.spans:
        seed = by_id[span.evidence_id]
        links = [seed, *(by_id[i] for i in span.agreeing if i in by_id)]
        key = f"sq{subquestion.id}:supported:{seed.id}"
        if seed.id in seeded:
            key += f"@{span.start}"  # a second piece of one quote: stable, and distinct
        seeded.add(seed.id)
        findings.append(
            ProposedFinding(
                key=key,
                subquestion_id=subquestion.id,
                status=FindingStatus.SUPPORTED,
                statement=seed.quote[span.start : span.end],
                confidence=confidence_of(links),
                links=tuple(EvidenceLink(item.id, Stance.SUPPORTS) for item in links),
                answer=span.answer,
            )
        )
    return findings


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
    question: str = "",
    reader: Reader | None = None,
    usage: UsageLog | None = None,
    common: frozenset[str] = frozenset(),
) -> list[ProposedFinding]:
    """Findings for one sub-question: what the reader finds answered first, then disagreements.

    In a task, disagreements are found across all its sub-questions first and ``disputed`` holds
    the spans no answer may state (the runner stores the conflicts once). Without it (one
    sub-question on its own), the sub-question's own evidence is judged by rule here, and a
    dimension sub-question (cost, performance, ...) reports only disagreements about what belongs
    to its dimension. Nothing answered and nothing disputed gives a single ``insufficient``
    finding, shown to analysts as [证据不足].
    """
    if not evidence:
        return [insufficient_finding(subquestion)]
    conflicts: list[ProposedFinding] = []
    if disputed is None:
        conflicts, disputed = _own_conflicts(subquestion, evidence, question)
    answers = (reader or ExtractiveReader()).read(
        subquestion,
        evidence,
        question=question,
        usage=usage or UsageLog(),
        avoid={key: list(spans) for key, spans in disputed.items()},
        common=common,
    )
    drafts = answered_findings(subquestion, answers, evidence) + conflicts
    return drafts or [insufficient_finding(subquestion)]


def _own_conflicts(
    subquestion: SubQuestion, evidence: Sequence[Evidence], question: str = ""
) -> tuple[list[ProposedFinding], dict[int, list[Span]]]:
    """The disagreements within one sub-question's evidence, judged by rule (each passage read as
    found for the sub-question within ``question``, as a task's judges read it), and their spans."""
    asked = {subquestion.id: f"{subquestion.text}\n{question}" if question else subquestion.text}
    disputes = [
        d
        for d in find_disputes(evidence, RuleJudge(), questions=asked, usage=UsageLog())
        if in_scope(d, subquestion) and asks_about(d, subquestion)
    ]
    by_id = {item.id: item for item in evidence}
    chinese = cjk_count(subquestion.text) >= 2
    conflicts = []
    for dispute in disputes:
        ids = {side.place: side.evidence_id for side in dispute.sides if side.evidence_id is not None}
        first = [by_id[side.evidence_id] for side in dispute.first if side.evidence_id in by_id]
        conflicts.append(
            conflict_finding(dispute, subquestion, ids, chinese=chinese, confidence=confidence_of(first))
        )
    return conflicts, disputed_spans(disputes, evidence)


class ExtractiveAnalyser:
    """``Analyser`` without a model: the same evidence always gives the same findings, so a
    re-run stage upserts rather than proposing something different."""

    name = "extractive"

    def __init__(self, reader: Reader | None = None):
        self.reader = reader or ExtractiveReader()

    def analyse(
        self,
        subquestion: SubQuestion,
        evidence: Sequence[Evidence],
        *,
        usage: UsageLog,
        disputed: Mapping[int, Sequence[Span]] | None = None,
        question: str = "",
        common: frozenset[str] = frozenset(),
    ) -> list[ProposedFinding]:
        return analyse_extractive(
            subquestion,
            evidence,
            disputed=disputed,
            question=question,
            reader=self.reader,
            usage=usage,
            common=common,
        )
