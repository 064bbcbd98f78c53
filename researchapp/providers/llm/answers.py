"""Turn a model's JSON answer into pipeline values, or say precisely why it cannot be used.

The schema sent with each request is a request, not a guarantee: OpenAI-compatible servers may
ignore ``strict``, and even OpenAI cannot know which evidence ids exist. So every answer is
checked here, and the reason for a rejection is phrased for the model, which gets one retry.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import Any

from researchapp.pipeline.types import (
    Claim,
    Evidence,
    EvidenceLink,
    FindingDraft,
    FindingStatus,
    Intent,
    Plan,
    PlannedSubQuestion,
    Stance,
    SubQuestion,
)


class AnswerRejected(ValueError):
    """The answer is unusable; the message says why in words the model can act on."""


_CODE_FENCE = re.compile(r"^\s*```(?:json)?\s*(.*?)\s*```\s*$", re.DOTALL)


def decode_json(content: str | None, *, finish_reason: str | None = None) -> dict[str, Any]:
    if content is None or not content.strip():
        raise AnswerRejected("the answer was empty; a JSON object was expected")
    # Local OpenAI-compatible servers often ignore response_format and fence their JSON.
    fenced = _CODE_FENCE.match(content)
    text = fenced.group(1) if fenced else content
    try:
        data = json.loads(text)
    except json.JSONDecodeError as error:
        cut_off = " (the answer was cut off at the token limit)" if finish_reason == "length" else ""
        raise AnswerRejected(
            f"the answer is not valid JSON: {error.msg} at character {error.pos}{cut_off}"
        ) from None
    if not isinstance(data, dict):
        raise AnswerRejected(f"the answer must be a JSON object, not {type(data).__name__}")
    return data


def _field(data: dict[str, Any], name: str, kind: type, where: str) -> Any:
    if name not in data:
        raise AnswerRejected(f"{where} is missing the required field {name!r}")
    value = data[name]
    # bool is an int in Python, but true/false is never a valid evidence id or count.
    if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
        raise AnswerRejected(f"{where}.{name} must be {kind.__name__}, got {type(value).__name__}")
    return value


def _text(data: dict[str, Any], name: str, where: str) -> str:
    value = _field(data, name, str, where).strip()
    if not value:
        raise AnswerRejected(f"{where}.{name} must not be empty")
    return value


def _evidence_id(value: Any, where: str, allowed: set[int]) -> int:
    if not isinstance(value, int) or isinstance(value, bool):
        raise AnswerRejected(f"{where} must be an integer evidence id (cite E12 as 12), got {value!r}")
    if value not in allowed:
        shown = ", ".join(str(item) for item in sorted(allowed))
        raise AnswerRejected(f"{where} cites evidence id {value}, which was not given; cite only: {shown}")
    return value


# --- plan -------------------------------------------------------------------------------------


def plan_from_answer(data: dict[str, Any]) -> Plan:
    intent_name = _field(data, "intent", str, "the plan")
    try:
        intent = Intent(intent_name)
    except ValueError:
        raise AnswerRejected(
            f"intent {intent_name!r} is not one of: {', '.join(item.value for item in Intent)}"
        ) from None
    items = _field(data, "subquestions", list, "the plan")
    if not 3 <= len(items) <= 6:
        raise AnswerRejected(f"the plan must have 3 to 6 sub-questions, it has {len(items)}")
    subquestions = []
    for index, item in enumerate(items):
        where = f"subquestions[{index}]"
        if not isinstance(item, dict):
            raise AnswerRejected(f"{where} must be an object")
        queries = [query.strip() for query in _field(item, "queries", list, where) if isinstance(query, str)]
        queries = list(dict.fromkeys(query for query in queries if query))
        if not 1 <= len(queries) <= 3:
            raise AnswerRejected(f"{where}.queries must hold 1 to 3 non-empty, distinct strings")
        subquestions.append(
            PlannedSubQuestion(
                text=_text(item, "text", where),
                rationale=_field(item, "rationale", str, where).strip(),
                queries=tuple(queries),
            )
        )
    return Plan(intent=intent, subquestions=tuple(subquestions))


# --- analyse ----------------------------------------------------------------------------------


def findings_from_answer(
    data: dict[str, Any], subquestion: SubQuestion, evidence: Sequence[Evidence]
) -> list[FindingDraft]:
    """1. check every finding and link; 2. compute confidence from clusters; 3. key it stably."""
    by_id = {item.id: item for item in evidence}
    items = _field(data, "findings", list, "the answer")
    drafts = []
    for index, item in enumerate(items):
        where = f"findings[{index}]"
        if not isinstance(item, dict):
            raise AnswerRejected(f"{where} must be an object")
        statement = _text(item, "statement", where)
        status_name = _field(item, "status", str, where)
        if status_name not in (FindingStatus.SUPPORTED, FindingStatus.CONFLICT):
            raise AnswerRejected(f"{where}.status must be 'supported' or 'conflict', got {status_name!r}")
        links = _links(_field(item, "evidence", list, where), f"{where}.evidence", set(by_id))
        stances = {link.stance for link in links}
        if status_name == FindingStatus.SUPPORTED and Stance.CONTRADICTS in stances:
            raise AnswerRejected(f"{where} cites contradicting evidence, so its status must be 'conflict'")
        if status_name == FindingStatus.CONFLICT and stances != {Stance.SUPPORTS, Stance.CONTRADICTS}:
            raise AnswerRejected(
                f"{where} is a conflict, so it must cite both supporting and contradicting evidence"
            )
        ids = ",".join(str(link.evidence_id) for link in sorted(links, key=lambda link: link.evidence_id))
        drafts.append(
            FindingDraft(
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
        raise AnswerRejected(f"{where} must cite at least one passage")
    links: dict[int, EvidenceLink] = {}
    for index, item in enumerate(items):
        if not isinstance(item, dict):
            raise AnswerRejected(f"{where}[{index}] must be an object with 'id' and 'stance'")
        evidence_id = _evidence_id(item.get("id"), f"{where}[{index}].id", allowed)
        stance_name = _field(item, "stance", str, f"{where}[{index}]")
        if stance_name not in (Stance.SUPPORTS, Stance.CONTRADICTS):
            raise AnswerRejected(f"{where}[{index}].stance must be 'supports' or 'contradicts'")
        if evidence_id in links and links[evidence_id].stance != stance_name:
            raise AnswerRejected(f"{where} cites passage {evidence_id} both as supporting and contradicting")
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


# --- write ------------------------------------------------------------------------------------


def claims_from_answer(data: dict[str, Any], *, sections: set[str], allowed_ids: set[int]) -> list[Claim]:
    items = _field(data, "claims", list, "the answer")
    claims = []
    for index, item in enumerate(items):
        where = f"claims[{index}]"
        if not isinstance(item, dict):
            raise AnswerRejected(f"{where} must be an object")
        section = str(_field(item, "section", str, where)).strip()
        if section not in sections:
            raise AnswerRejected(
                f"{where}.section {section!r} is not a sub-question id; use one of: {sorted(sections)}"
            )
        cited = _field(item, "evidence_ids", list, where)
        if not cited:
            raise AnswerRejected(f"{where} must cite at least one evidence id")
        ids = [_evidence_id(value, f"{where}.evidence_ids", allowed_ids) for value in cited]
        # One line per claim in the Markdown: a line break inside a claim would split its bullet.
        text = " ".join(_text(item, "text", where).split())
        claims.append(Claim(text=text, evidence_ids=tuple(dict.fromkeys(ids)), section=section))
    return claims
