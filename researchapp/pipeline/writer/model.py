"""The model-backed writer: claims a chat model writes from the body findings, validated."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from researchapp.pipeline.report import report_bucket
from researchapp.pipeline.structured import (
    UNTRUSTED_NOTICE,
    AnswerRejected,
    Message,
    ask,
    defuse,
    evidence_id_of,
    field_of,
    html_attribute,
    json_object,
    text_of,
    untrusted_source,
)
from researchapp.pipeline.values import CheckIssue, Claim, Draft, ReviewedFinding, SubQuestion, UsageLog
from researchapp.pipeline.writer.render import render_draft
from researchapp.providers.base import ChatClient

SCHEMA_NAME = "write"

SCHEMA: dict[str, Any] = json_object(
    {
        "claims": {
            "type": "array",
            "items": json_object(
                {
                    "section": {"type": "string"},
                    "text": {"type": "string"},
                    "evidence_ids": {"type": "array", "minItems": 1, "items": {"type": "integer"}},
                }
            ),
        }
    }
)

SYSTEM = f"""You write the body of a research report as a list of claims, one sentence each.
{UNTRUSTED_NOTICE}
- Write claims only from the findings given; each claim cites the ids of the passages \
(E12 is cited as 12) that state it, and only ids shown inside its finding.
- Every number, date and percentage in a claim must appear exactly as written in a cited passage. \
Staying close to the passage's own wording is better than paraphrase.
- "section" is the id of the sub-question the claim answers, as a string (for example "3").
- Cover every sub-question that has findings. Do not add facts, opinions or recommendations \
that the passages do not state.
Answer with one JSON object that matches the schema, nothing else."""


class ModelWriter:
    """``Writer`` through a chat model; ``model`` is this stage's model (settings choose it)."""

    name = "openai"

    def __init__(self, client: ChatClient, *, model: str):
        self.client = client
        self.model = model

    def write(
        self,
        question: str,
        subquestions: Sequence[SubQuestion],
        findings: Sequence[ReviewedFinding],
        *,
        feedback: Sequence[CheckIssue] = (),
        usage: UsageLog,
    ) -> Draft:
        # The writer decides which findings the body states as fact; the model writes only those,
        # so it never sees a disputed point or a gap it could state as fact.
        body = [finding for finding in findings if report_bucket(finding) == "body"]
        sections = {str(finding.subquestion_id) for finding in body}
        allowed_ids = {
            item.id
            for finding in body
            for item in finding.evidence
            if item.id in {link.evidence_id for link in finding.links}
        }
        claims: list[Claim] = []
        if body and allowed_ids:
            claims = ask(
                self.client,
                stage="write",
                model=self.model,
                schema_name=SCHEMA_NAME,
                schema=SCHEMA,
                messages=write_messages(question, subquestions, body, feedback),
                interpret=lambda data: claims_from_answer(data, sections=sections, allowed_ids=allowed_ids),
                usage=usage,
            )
        return render_draft(question, subquestions, findings, claims)


def write_messages(
    question: str,
    subquestions: Sequence[SubQuestion],
    findings: Sequence[ReviewedFinding],
    feedback: Sequence[CheckIssue],
) -> list[Message]:
    listed = "\n".join(
        f'<subquestion id="{subquestion.id}">{defuse(subquestion.text)}</subquestion>'
        for subquestion in sorted(subquestions, key=lambda item: (item.order, item.id))
    )
    parts = [
        f"<question>{defuse(question)}</question>",
        f"<subquestions>\n{listed}\n</subquestions>",
        f"<findings>\n{chr(10).join(_finding_block(finding) for finding in findings)}\n</findings>",
    ]
    if feedback:
        problems = "\n".join(_problem_line(issue) for issue in feedback)
        parts.append(
            "A mechanical check rejected the previous draft. Fix every one of these problems:\n"
            f"<problems_to_fix>\n{problems}\n</problems_to_fix>"
        )
    return [{"role": "system", "content": SYSTEM}, {"role": "user", "content": "\n\n".join(parts)}]


def _finding_block(finding: ReviewedFinding) -> str:
    stances = {link.evidence_id: link.stance.value for link in finding.links}
    sources = "\n".join(
        untrusted_source(item, stance=stances[item.id]) for item in finding.evidence if item.id in stances
    )
    opening = (
        f'<finding subquestion="{finding.subquestion_id}" status="{finding.status.value}" '
        f'confidence="{html_attribute(finding.confidence)}">'
    )
    return f"{opening}\n<statement>{defuse(finding.statement)}</statement>\n{sources}\n</finding>"


def _problem_line(issue: CheckIssue) -> str:
    where = f" (claim {issue.claim_index})" if issue.claim_index is not None else ""
    return f"- [{issue.code}]{where} {defuse(issue.message)}"


def claims_from_answer(data: dict[str, Any], *, sections: set[str], allowed_ids: set[int]) -> list[Claim]:
    items = field_of(data, "claims", list, "the answer")
    claims = []
    for index, item in enumerate(items):
        where = f"claims[{index}]"
        if not isinstance(item, dict):
            raise AnswerRejected(f"{where} must be an object")
        section = str(field_of(item, "section", str, where)).strip()
        if section not in sections:
            raise AnswerRejected(
                f"{where}.section {section!r} is not a sub-question id; use one of: {sorted(sections)}"
            )
        cited = field_of(item, "evidence_ids", list, where)
        if not cited:
            raise AnswerRejected(f"{where} must cite at least one evidence id")
        ids = [evidence_id_of(value, f"{where}.evidence_ids", allowed_ids) for value in cited]
        # One line per claim in the Markdown: a line break inside a claim would split its bullet.
        text = " ".join(text_of(item, "text", where).split())
        claims.append(Claim(text=text, evidence_ids=tuple(dict.fromkeys(ids)), section=section))
    return claims
