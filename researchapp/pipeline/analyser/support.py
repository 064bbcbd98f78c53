"""The model-judged half of the support check: do a finding's cited passages state its statement?

The model analyser's statements are paraphrases, and a paraphrase can say more than its passages
("the cheapest battery on the market" from a price list of three). The mechanical check
(``text.support.support_problem``: figures by value, most content words) catches what words can;
this asks the model itself, once per sub-question, for a verdict on each supported statement:
"supported" or "not_supported", with a short reason. The schema is strict and sized to the call:
statement numbers are an ``enum`` of the ones shown, exactly one judgement each, bounded reasons,
``max_tokens`` to match. A statement judged not supported, or whose judgement is missing or
rejected, becomes a [证据不足] item with the reason, for an analyst to resolve at the evidence
gate; it never reaches the report as fact. A judgement rejected twice costs its statements, never
the task.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from researchapp.core.enums import FindingStatus
from researchapp.pipeline import structured
from researchapp.pipeline.analyser.extractive import INSUFFICIENT_MARK
from researchapp.pipeline.values import Evidence, ProposedFinding, UsageLog
from researchapp.providers.base import ChatClient, ProviderError

MAX_REASON_CHARS = 200
TOKENS_PER_JUDGEMENT = 80  # a number, a verdict and a reason of a sentence, in JSON
UNSUPPORTED_PREFIX = "the support check found that its passages do not state it"
REJECTED_PREFIX = "the support check's answer was rejected"


def support_schema(count: int) -> dict[str, Any]:
    """One judgement per statement 1..``count``, no more, no fewer."""
    return structured.json_object(
        {
            "judgements": {
                "type": "array",
                "minItems": count,
                "maxItems": count,
                "items": structured.json_object(
                    {
                        "statement": {"type": "integer", "enum": list(range(1, count + 1))},
                        "verdict": {"type": "string", "enum": ["supported", "not_supported"]},
                        "reason": {"type": "string", "maxLength": MAX_REASON_CHARS},
                    }
                ),
            }
        }
    )


SYSTEM = f"""You check statements against the passages they cite.
{structured.UNTRUSTED_NOTICE}
- For each numbered statement, read only the passages listed under it.
- "supported": the passages state what the statement says (a faithful paraphrase is fine).
- "not_supported": the passages do not state it, state something else, state only part of it, \
or the statement adds a number, name, date or comparison they do not give.
- Give a short reason (one sentence) for each verdict. Use no outside knowledge.
Answer with one JSON object that matches the schema, nothing else."""


def support_messages(
    statements: Sequence[ProposedFinding], evidence: Sequence[Evidence]
) -> list[structured.Message]:
    by_id = {item.id: item for item in evidence}
    blocks = []
    for number, finding in enumerate(statements, start=1):
        sources = "\n".join(
            structured.untrusted_source(by_id[link.evidence_id])
            for link in finding.links
            if link.evidence_id in by_id
        )
        blocks.append(
            f'<statement number="{number}">{structured.defuse(finding.statement)}</statement>\n{sources}'
        )
    user = "\n\n".join(blocks)
    return [{"role": "system", "content": SYSTEM}, {"role": "user", "content": user}]


def verdicts_from_answer(data: dict[str, Any], count: int) -> dict[int, tuple[str, str]]:
    """{statement number: (verdict, reason)}; a number outside 1..count or judged twice is rejected."""
    verdicts: dict[int, tuple[str, str]] = {}
    for where, item in structured.objects_in(data, "judgements", "the answer"):
        number = structured.field_of(item, "statement", int, where)
        if not 1 <= number <= count:
            raise structured.AnswerRejected(f"{where}.statement {number} is not one of 1..{count}")
        if number in verdicts:
            raise structured.AnswerRejected(f"{where} judges statement {number} a second time")
        verdict = structured.field_of(item, "verdict", str, where)
        if verdict not in ("supported", "not_supported"):
            raise structured.AnswerRejected(f"{where}.verdict must be 'supported' or 'not_supported'")
        reason = " ".join(structured.field_of(item, "reason", str, where).split())[:MAX_REASON_CHARS]
        verdicts[number] = (verdict, reason)
    return verdicts


def as_item(finding: ProposedFinding, why: str) -> ProposedFinding:
    """A statement its check did not bear out, as a [证据不足] item linking the passages it cited
    (as what was found, not as support)."""
    return replace(
        finding,
        key=f"{finding.key}:unsupported",
        status=FindingStatus.INSUFFICIENT,
        statement=f"{INSUFFICIENT_MARK} {finding.statement} — {why}",
        confidence="",
    )


def judge_support(
    client: ChatClient,
    *,
    model: str,
    findings: Sequence[ProposedFinding],
    evidence: Sequence[Evidence],
    usage: UsageLog,
) -> list[ProposedFinding]:
    """1. Ask for a verdict on every supported finding at once (other findings pass unchanged).
    2. A "not_supported" verdict, or none, makes that finding an item with the reason. 3. An answer
    rejected twice makes every finding it was to judge an item with that reason."""
    judged = [finding for finding in findings if finding.status is FindingStatus.SUPPORTED]
    if not judged:
        return list(findings)
    try:
        verdicts = structured.ask(
            client,
            stage="support",
            model=model,
            schema_name="support",
            schema=support_schema(len(judged)),
            messages=support_messages(judged, evidence),
            interpret=lambda data: verdicts_from_answer(data, len(judged)),
            usage=usage,
            max_tokens=40 + TOKENS_PER_JUDGEMENT * len(judged),
        )
    except ProviderError as error:
        if error.code != "malformed_output":
            raise
        replaced = {id(f): as_item(f, f"{REJECTED_PREFIX}: {error.message}") for f in judged}
        return [replaced.get(id(finding), finding) for finding in findings]
    outcome: dict[int, ProposedFinding] = {}
    for number, finding in enumerate(judged, start=1):
        verdict, reason = verdicts.get(number, ("", ""))
        if verdict == "supported":
            continue
        why = (
            f"{UNSUPPORTED_PREFIX}: {reason}"
            if verdict
            else f"{REJECTED_PREFIX}: it gave no judgement for it"
        )
        outcome[id(finding)] = as_item(finding, why)
    return [outcome.get(id(finding), finding) for finding in findings]
