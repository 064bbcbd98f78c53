"""The model-backed writer: claims a chat model writes from the body findings, validated."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from researchapp.core.enums import FindingStatus, Stance
from researchapp.pipeline import structured, values
from researchapp.pipeline.report import report_bucket
from researchapp.pipeline.text.recite import recited
from researchapp.pipeline.text.sentences import split_sentences
from researchapp.pipeline.text.support import support_problem
from researchapp.pipeline.writer.answer import opening_claims
from researchapp.pipeline.writer.render import ANSWER_SECTION, render_draft

CLAIMS_PER_SECTION = 1
ANSWER_CLAIMS = 1
# A claim is one sentence, bounded: a small model that repeats itself fills every string to its
# limit, and a server that enforces the schema by grammar (llama.cpp) closes it there.
MAX_CLAIM_CHARS = 160
# A claim of ``MAX_CLAIM_CHARS`` (figures cost a token a digit: ~1.5 characters a token at worst),
# its ids and the JSON and whitespace around it.
TOKENS_PER_CLAIM = 140


def write_schema(sections: Sequence[str], ids: Sequence[int]) -> dict[str, Any]:
    """Claims in the given sections (or the direct answer), citing only the given ids, bounded."""
    return structured.json_object(
        {
            "claims": {
                "type": "array",
                "maxItems": max_claims(sections),
                "items": structured.json_object(
                    {
                        "section": {"type": "string", "enum": [ANSWER_SECTION, *sections]},
                        "text": {"type": "string", "maxLength": MAX_CLAIM_CHARS},
                        "evidence_ids": {
                            "type": "array",
                            "minItems": 1,
                            "maxItems": min(len(ids), 4),
                            "items": structured.id_enum(ids),
                        },
                    }
                ),
            }
        }
    )


def max_claims(sections: Sequence[str]) -> int:
    return ANSWER_CLAIMS + CLAIMS_PER_SECTION * len(sections)


SYSTEM = f"""You write the body of a research report as a list of claims, one sentence each.
{structured.UNTRUSTED_NOTICE}
- Write claims only from the findings given; each claim cites the ids of the passages \
(E12 is cited as 12) that state it, and only ids shown inside its finding.
- Every number, date and percentage in a claim must appear exactly as written in a cited passage. \
Staying close to the passage's own wording is better than paraphrase.
- First write one claim with section "answer" that answer the research question itself, \
directly, from the findings. Then the claims of each sub-question: "section" is the id of the \
sub-question the claim answers, as a string (for example "3").
- Cover every sub-question that has findings. Do not add facts, opinions or recommendations \
that the passages do not state.
Answer with one JSON object that matches the schema, nothing else."""


class ModelWriter(structured.ModelStage):
    """``Writer`` through a chat model; ``model`` is this stage's model (settings choose it)."""

    stage = "write"

    def write(self, brief: values.Brief, *, usage: values.UsageLog) -> values.Draft:
        # The writer decides which findings the body states as fact; the model writes only those,
        # so it never sees a disputed point or a gap it could state as fact.
        body = [finding for finding in brief.findings if report_bucket(finding) == "body"]
        sections = {str(finding.subquestion_id) for finding in body}
        allowed_ids = {
            item.id
            for finding in body
            for item in finding.evidence
            if item.id in {link.evidence_id for link in finding.links}
        }
        claims: list[values.Claim] = []
        if body and allowed_ids:
            ordered = sorted(sections, key=lambda section: int(section) if section.isdigit() else 0)
            claims = self.ask(
                write_messages(brief.question, brief.subquestions, body, brief.feedback),
                lambda data: claims_from_answer(
                    data, sections=sections, allowed_ids=allowed_ids, quotes=shown_quotes(body, allowed_ids)
                ),
                usage,
                schema=write_schema(ordered, sorted(allowed_ids)),
                max_tokens=40 + TOKENS_PER_CLAIM * max_claims(ordered),
            )
        return render_draft(
            brief.question, brief.subquestions, brief.findings, with_floor(claims, body, brief)
        )


def with_floor(
    claims: Sequence[values.Claim], body: Sequence[values.ReviewedFinding], brief: values.Brief
) -> list[values.Claim]:
    """The model's claims, and the verbatim piece (the reader's pick) of each finding whose answer
    no claim of the model's states (or, without an answer span, whose sub-question it wrote no
    claim for); without an answer claim of the model's, those open the report (``opening_claims``)."""
    sections = {claim.section for claim in claims}
    said = " ".join(claim.text for claim in claims)

    def covered(finding: values.ReviewedFinding) -> bool:
        # A finding with an answer span is covered only by a claim that states that answer (a
        # small model files a true sentence about something else under the question).
        section = str(finding.subquestion_id)
        return finding.answer in said if finding.answer else section in sections

    floor = [
        values.Claim(
            text=" ".join(finding.statement.split()),
            evidence_ids=tuple(link.evidence_id for link in finding.links if link.stance == Stance.SUPPORTS),
            section=str(finding.subquestion_id),
            answer=finding.answer,
        )
        for finding in body
        if finding.status is FindingStatus.SUPPORTED and not covered(finding)
    ]
    floor = [claim for claim in floor if claim.evidence_ids]
    # Without a claim of the model's that answers the question, the answers it left out open the
    # report, as the extractive writer's do.
    if ANSWER_SECTION not in sections:
        floor = opening_claims(brief.subquestions, floor)
    return [*claims, *floor]


def write_messages(
    question: str,
    subquestions: Sequence[values.SubQuestion],
    findings: Sequence[values.ReviewedFinding],
    feedback: Sequence[values.CheckIssue],
) -> list[structured.Message]:
    listed = "\n".join(
        f'<subquestion id="{subquestion.id}">{structured.defuse(subquestion.text)}</subquestion>'
        for subquestion in sorted(subquestions, key=lambda item: (item.order, item.id))
    )
    parts = [
        f"<question>{structured.defuse(question)}</question>",
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


def _finding_block(finding: values.ReviewedFinding) -> str:
    stances = {link.evidence_id: link.stance.value for link in finding.links}
    sources = "\n".join(
        structured.untrusted_source(item, stance=stances[item.id])
        for item in finding.evidence
        if item.id in stances
    )
    opening = (
        f'<finding subquestion="{finding.subquestion_id}" status="{finding.status.value}" '
        f'confidence="{structured.html_attribute(finding.confidence)}">'
    )
    return f"{opening}\n<statement>{structured.defuse(finding.statement)}</statement>\n{sources}\n</finding>"


def _problem_line(issue: values.CheckIssue) -> str:
    where = f" (claim {issue.claim_index})" if issue.claim_index is not None else ""
    return f"- [{issue.code}]{where} {structured.defuse(issue.message)}"


def shown_quotes(findings: Sequence[values.ReviewedFinding], allowed_ids: set[int]) -> dict[int, str]:
    """The quotes the model was shown and may cite, by id, in the order shown."""
    return {
        item.id: item.quote for finding in findings for item in finding.evidence if item.id in allowed_ids
    }


def claims_from_answer(
    data: dict[str, Any],
    *,
    sections: set[str],
    allowed_ids: set[int],
    quotes: Mapping[int, str] | None = None,
) -> list[values.Claim]:
    """The claims, checked, each its first sentence; a claim its cited quotes do not bear out is
    re-cited to the one of ``quotes`` (those shown) that states its figures verbatim and most of its
    words (``text.recite``), or left out when none does."""
    claims = []
    for where, item in structured.objects_in(data, "claims", "the answer"):
        section = str(structured.field_of(item, "section", str, where)).strip()
        if section not in sections and section != ANSWER_SECTION:
            raise structured.AnswerRejected(
                f"{where}.section {section!r} is not a sub-question id; use one of: {sorted(sections)}"
            )
        cited = structured.field_of(item, "evidence_ids", list, where)
        if not cited:
            raise structured.AnswerRejected(f"{where} must cite at least one evidence id")
        ids = [structured.evidence_id_of(value, f"{where}.evidence_ids", allowed_ids) for value in cited]
        # One line per claim in the Markdown: a line break inside a claim would split its bullet.
        # One sentence: a model that repeats itself writes the same sentence until the length limit.
        text = first_sentence(" ".join(structured.text_of(item, "text", where).split()))
        if quotes:
            ids = list(recited(text, ids, quotes))
            if _ASKING.match(text) or support_problem(text, [quotes[i] for i in ids if i in quotes]):
                # a question ("What does SQLite mean by the"), or no passage shown states it: left
                # out, the findings' own words stand in
                continue
        claims.append(values.Claim(text=text, evidence_ids=tuple(dict.fromkeys(ids)), section=section))
    return claims


_ASKING = re.compile(r"^(?:what|which|who|whom|whose|when|where|why|how)\b|.*[?？]$", re.IGNORECASE)


def first_sentence(text: str) -> str:
    """The first sentence of ``text`` when a second one follows it; otherwise ``text``."""
    spans = split_sentences(text)
    return text[spans[0][0] : spans[0][1]].strip() if len(spans) > 1 else text
