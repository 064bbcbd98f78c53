"""The model-backed analyser: findings a chat model proposes from the passages, validated."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

from researchapp.core.enums import FindingStatus, Stance
from researchapp.pipeline import structured
from researchapp.pipeline.analyser.extractive import (
    INSUFFICIENT_MARK,
    ExtractiveAnalyser,
    insufficient_finding,
)
from researchapp.pipeline.analyser.support import judge_support
from researchapp.pipeline.text.recite import recited
from researchapp.pipeline.text.support import support_problem
from researchapp.pipeline.values import Evidence, EvidenceLink, ProposedFinding, SubQuestion, UsageLog
from researchapp.providers.base import ChatClient

MAX_FINDINGS = 4
MAX_CITED = 6


def analyse_schema(ids: Sequence[int]) -> dict[str, Any]:
    """The answer's shape for these passages: bounded arrays, and cited ids only from ``ids``."""
    return structured.json_object(
        {
            "findings": {
                "type": "array",
                "maxItems": MAX_FINDINGS,
                "items": structured.json_object(
                    {
                        "statement": {"type": "string"},
                        "status": {"type": "string", "enum": ["supported", "conflict"]},
                        "evidence": {
                            "type": "array",
                            "minItems": 1,
                            "maxItems": min(len(ids), MAX_CITED),
                            "items": structured.json_object(
                                {
                                    "id": structured.id_enum(ids),
                                    "stance": {"type": "string", "enum": ["supports", "contradicts"]},
                                }
                            ),
                        },
                    }
                ),
            }
        }
    )


def analyse_max_tokens(ids: Sequence[int]) -> int:
    """Room for ``MAX_FINDINGS`` one-sentence statements (~80 tokens each) and their citations."""
    return 40 + MAX_FINDINGS * (100 + 16 * min(len(ids), MAX_CITED))


SYSTEM = f"""You analyse passages quoted from web sources for one research sub-question.
{structured.UNTRUSTED_NOTICE}
- Propose findings: each is one factual statement that the passages you cite actually state. \
Use no outside knowledge.
- Cite passages by their numeric id (E12 is cited as 12). Cite only ids that appear below.
- "supported": every cited passage supports the statement (all stances "supports").
- "conflict": the passages disagree about the same subject (different numbers, dates, percentages \
or yes/no answers). Cite both sides: stance "supports" for passages that state the statement, \
"contradicts" for those that state otherwise.
- Skip passages that do not bear on the sub-question. If none does, answer {{"findings": []}}.
Answer with one JSON object that matches the schema, nothing else."""


class ReadingAnalyser(ExtractiveAnalyser):
    """The model engine's ``Analyser``: the extractive analysis around a model reader
    (``reader.model``: the model picks the answering piece among candidates by id), so every
    statement is a verbatim piece of a quote and disagreements are the task's judges' to find."""

    name = "openai"


class ModelAnalyser(structured.ModelStage):
    """``Analyser`` through a chat model; ``model`` is this stage's model and ``support_model`` the
    one that judges its statements against their passages (settings choose both; the second
    defaults to the first)."""

    stage = "analyse"

    def __init__(self, client: ChatClient, *, model: str, support_model: str = "") -> None:
        super().__init__(client, model=model)
        self.support_model = support_model or model

    def analyse(
        self,
        subquestion: SubQuestion,
        evidence: Sequence[Evidence],
        *,
        usage: UsageLog,
        disputed: Mapping[int, Sequence[tuple[int, int]]] | None = None,
        question: str = "",
        common: frozenset[str] = frozenset(),
    ) -> list[ProposedFinding]:
        if not evidence:
            # Nothing to read: saying so needs no model, and a model asked anyway tends to guess.
            return [insufficient_finding(subquestion)]
        ids = [item.id for item in evidence]
        proposed = self.ask(
            analyse_messages(subquestion, evidence),
            lambda data: findings_from_answer(data, subquestion, evidence),
            usage,
            schema=analyse_schema(ids),
            max_tokens=analyse_max_tokens(ids),
        )
        # A statement its cited passages do not bear out is an item to decide, not a finding: first
        # by words and figures, then by the model's own judgement of each remaining statement.
        checked = [unsupported_item(finding, evidence) or finding for finding in proposed]
        checked = judge_support(
            self.client, model=self.support_model, findings=checked, evidence=evidence, usage=usage
        )
        # A supported statement that repeats a disputed side's words is the task's conflict finding's
        # to report, not a fact.
        checked = [f for f in checked if not states_disputed(f, evidence, disputed or {})]
        # The model found nothing relevant in the passages: that is an evidence gap, not silence.
        return checked or [insufficient_finding(subquestion)]


def states_disputed(
    finding: ProposedFinding, evidence: Sequence[Evidence], disputed: Mapping[int, Sequence[tuple[int, int]]]
) -> bool:
    """A supported finding whose statement holds the words of a disputed span of a quote it cites."""
    if finding.status is not FindingStatus.SUPPORTED:
        return False
    by_id = {item.id: item for item in evidence}
    statement = " ".join(finding.statement.lower().split())
    return any(
        " ".join(by_id[link.evidence_id].quote[start:end].lower().split()) in statement
        for link in finding.links
        if link.evidence_id in by_id
        for start, end in disputed.get(link.evidence_id, ())
        if end - start >= 3
    )


def analyse_messages(subquestion: SubQuestion, evidence: Sequence[Evidence]) -> list[structured.Message]:
    passages = "\n".join(structured.untrusted_source(item) for item in evidence)
    user = (
        f'<subquestion id="{subquestion.id}">{structured.defuse(subquestion.text)}</subquestion>\n\n'
        f"<passages>\n{passages}\n</passages>"
    )
    return [{"role": "system", "content": SYSTEM}, {"role": "user", "content": user}]


def findings_from_answer(
    data: dict[str, Any], subquestion: SubQuestion, evidence: Sequence[Evidence]
) -> list[ProposedFinding]:
    """1. check every finding and link; 2. compute confidence from clusters; 3. key it stably."""
    by_id = {item.id: item for item in evidence}
    drafts = []
    for index, (where, item) in enumerate(structured.objects_in(data, "findings", "the answer")):
        statement = structured.text_of(item, "statement", where)
        status_name = structured.field_of(item, "status", str, where)
        if status_name not in (FindingStatus.SUPPORTED, FindingStatus.CONFLICT):
            raise structured.AnswerRejected(
                f"{where}.status must be 'supported' or 'conflict', got {status_name!r}"
            )
        links = _links(structured.field_of(item, "evidence", list, where), f"{where}.evidence", set(by_id))
        stances = {link.stance for link in links}
        if status_name == FindingStatus.SUPPORTED and Stance.CONTRADICTS in stances:
            raise structured.AnswerRejected(
                f"{where} cites contradicting evidence, so its status must be 'conflict'"
            )
        if status_name == FindingStatus.CONFLICT and stances != {Stance.SUPPORTS, Stance.CONTRADICTS}:
            raise structured.AnswerRejected(
                f"{where} is a conflict, so it must cite both supporting and contradicting evidence"
            )
        ids = ",".join(str(link.evidence_id) for link in sorted(links, key=lambda link: link.evidence_id))
        drafts.append(
            ProposedFinding(
                key=f"sq{subquestion.id}:llm:{index}:{ids}",
                subquestion_id=subquestion.id,
                status=FindingStatus(status_name),
                statement=statement,
                confidence=confidence_of(links, by_id),
                links=links,
            )
        )
    return drafts


def _links(items: list[Any], where: str, allowed: set[int]) -> tuple[EvidenceLink, ...]:
    if not items:
        raise structured.AnswerRejected(f"{where} must cite at least one passage")
    links: dict[int, EvidenceLink] = {}
    for index, item in enumerate(items):
        if not isinstance(item, dict):
            raise structured.AnswerRejected(f"{where}[{index}] must be an object with 'id' and 'stance'")
        evidence_id = structured.evidence_id_of(item.get("id"), f"{where}[{index}].id", allowed)
        stance_name = structured.field_of(item, "stance", str, f"{where}[{index}]")
        if stance_name not in (Stance.SUPPORTS, Stance.CONTRADICTS):
            raise structured.AnswerRejected(f"{where}[{index}].stance must be 'supports' or 'contradicts'")
        if evidence_id in links and links[evidence_id].stance != stance_name:
            raise structured.AnswerRejected(
                f"{where} cites passage {evidence_id} both as supporting and contradicting"
            )
        links.setdefault(evidence_id, EvidenceLink(evidence_id, Stance(stance_name)))
    return tuple(links.values())


def confidence_of(links: Sequence[EvidenceLink], evidence_by_id: dict[int, Evidence]) -> str:
    """High when supporting passages come from 2+ independence clusters; the model never decides this.

    A passage whose source has no cluster yet counts as its own source's cluster.
    """
    clusters = {
        evidence_by_id[link.evidence_id].cluster or f"source:{evidence_by_id[link.evidence_id].source_id}"
        for link in links
        if link.stance == Stance.SUPPORTS
    }
    return "high" if len(clusters) >= 2 else "medium"


def unsupported_item(finding: ProposedFinding, evidence: Sequence[Evidence]) -> ProposedFinding | None:
    """A finding whose statement its cited passages do not bear out (a figure they do not state, too
    few of its words) is re-cited to the passage shown that does (``text.recite``), or becomes a
    [证据不足] item with the reason, linking those passages as what was found; ``None`` when the
    statement is supported. A conflict's statement is checked against
    both sides' passages: it must at least say what they disagree about."""
    by_id = {item.id: item for item in evidence}
    quotes = [by_id[link.evidence_id].quote for link in finding.links if link.evidence_id in by_id]
    problem = support_problem(finding.statement, quotes)
    if not problem:
        return None
    if finding.status is FindingStatus.SUPPORTED:
        # A right statement citing the wrong one of the passages shown is re-cited, not discarded.
        cited = [link.evidence_id for link in finding.links]
        ids = recited(finding.statement, cited, {item.id: item.quote for item in evidence})
        if ids != tuple(dict.fromkeys(cited)):
            links = tuple(EvidenceLink(i, Stance.SUPPORTS) for i in ids)
            return replace(finding, links=links, confidence=confidence_of(links, by_id))
    return ProposedFinding(
        key=f"{finding.key}:unsupported",
        subquestion_id=finding.subquestion_id,
        status=FindingStatus.INSUFFICIENT,
        statement=f"{INSUFFICIENT_MARK} {finding.statement} — not supported by its cited passages: {problem}",
        links=finding.links,
    )
