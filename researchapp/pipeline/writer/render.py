"""The report's Markdown, shared by every writer: the model-backed one passes model-written claims."""

from __future__ import annotations

from collections.abc import Sequence

from researchapp.core.enums import INSUFFICIENT_MARK
from researchapp.pipeline.report import markers, report_bucket, stated_elsewhere
from researchapp.pipeline.values import Claim, Draft, Evidence, ReviewedFinding, SubQuestion

DISPUTED_SECTION = "disputed"
GAPS_HEADING = "## To verify [证据不足]"
DISPUTED_HEADING = "## Disputed findings"
REFERENCES_HEADING = "## References"
PROVENANCE_LINE = (
    "*This report was written from verbatim quotes of stored sources: every [E…] marker points at "
    "a quoted passage listed under References.*"
)
NO_CLAIMS_LINE = "*No supported finding for this sub-question.*"
STATED_ABOVE_LINE = "*What the sources say on this sub-question is stated in an earlier section.*"
NEUTRAL_DISPUTE = "Sources disagree on this point; see the quoted passages."
ANSWER_SECTION = "answer"
ANSWER_HEADING = "## Answer"
NO_ANSWER_LINE = (
    "*The sources found do not answer this question directly; see the sections and the points to verify.*"
)


def _evidence_index(findings: Sequence[ReviewedFinding]) -> dict[int, Evidence]:
    index: dict[int, Evidence] = {}
    for finding in findings:
        for item in finding.evidence:
            index.setdefault(item.id, item)
    return index


def _reference(item: Evidence) -> str:
    # A paragraph, not a list item: a quote spanning paragraphs must not break the list apart.
    where = ", ".join(part for part in (item.source_title, item.source_url) if part)
    return f'[E{item.id}] "{item.quote}" — {where}' if where else f'[E{item.id}] "{item.quote}"'


def _disputed_block(finding: ReviewedFinding, index: dict[int, Evidence]) -> tuple[list[str], Claim]:
    ids = tuple(dict.fromkeys(link.evidence_id for link in finding.links))
    lines = [f"- {finding.statement}{markers(ids)}"]
    for link in finding.links:
        item = index.get(link.evidence_id)
        if item is not None:
            lines += ["", f'{link.stance.value.capitalize()} [E{item.id}]: "{item.quote}"']
    return lines + [""], Claim(finding.statement, ids, DISPUTED_SECTION)


def _gap_line(finding: ReviewedFinding) -> str:
    statement = finding.statement
    if INSUFFICIENT_MARK not in statement:
        statement = f"{INSUFFICIENT_MARK} {statement}"
    note = f" — analyst note: {finding.note}" if finding.note else ""
    return f"- {statement}{note}"


def render_draft(
    question: str,
    subquestions: Sequence[SubQuestion],
    findings: Sequence[ReviewedFinding],
    claims: Sequence[Claim],
) -> Draft:
    """Markdown of the report, and every claim it makes (disputed statements included).

    1. Title and provenance line; 2. one section per sub-question with its claims and markers;
    3. disputed findings with each side's verbatim quote; 4. the [证据不足] items to verify;
    5. references: every cited evidence id once, with its quote and source.
    Claims whose section names no sub-question are left out: nothing unplaced is printed, and
    a section whose findings an earlier claim already states says so instead of repeating it.
    A dispute already shown (the same statement under two sub-questions) is shown once.
    """
    index = _evidence_index(findings)
    lines = [f"# {question.strip()}", "", PROVENANCE_LINE]
    # The direct answer first (claims of the "answer" section); the report layout is issue 9's.
    answer = [claim for claim in claims if claim.section == ANSWER_SECTION]
    lines += ["", ANSWER_HEADING, ""]
    lines += [f"- {claim.text}{markers(claim.evidence_ids)}" for claim in answer] or [NO_ANSWER_LINE]
    rendered: list[Claim] = list(answer)
    ordered = sorted(subquestions, key=lambda sq: (sq.order, sq.id))
    for subquestion in ordered:
        lines += ["", f"## {subquestion.text}", ""]
        own = [claim for claim in claims if claim.section == str(subquestion.id)]
        lines += [f"- {claim.text}{markers(claim.evidence_ids)}" for claim in own]
        rendered += own
        if not own:
            stated = stated_elsewhere(subquestion.id, findings, claims)
            lines.append(STATED_ABOVE_LINE if stated else NO_CLAIMS_LINE)

    disputed = [f for f in findings if report_bucket(f) == "disputed"]
    shown: set[str] = set()
    if disputed:
        lines += ["", DISPUTED_HEADING, ""]
        for finding in disputed:
            if finding.statement in shown:
                continue
            shown.add(finding.statement)
            block, claim = _disputed_block(finding, index)
            lines += block
            rendered.append(claim)
        lines.pop()

    gaps = [f for f in findings if report_bucket(f) == "gap"]
    if gaps:
        lines += ["", GAPS_HEADING, ""]
        lines += [_gap_line(finding) for finding in gaps]

    cited = list(dict.fromkeys(i for claim in rendered for i in claim.evidence_ids))
    references = [_reference(index[i]) for i in cited if i in index]
    if references:
        lines += ["", REFERENCES_HEADING]
        for reference in references:
            lines += ["", reference]
    return Draft(markdown="\n".join(lines) + "\n", claims=tuple(rendered))
