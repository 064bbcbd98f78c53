"""The report: Markdown where every sentence of fact carries the evidence ids it stands on.

``render_draft`` is shared by every engine (the OpenAI engine passes model-written claims);
``write_extractive`` builds claims without a model, each a verbatim sentence of a cited quote.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import replace

from researchapp.pipeline.analyse import INSUFFICIENT_MARK, says_the_same
from researchapp.pipeline.evidence import GENERIC_TERMS, best_sentence
from researchapp.pipeline.text import tokenize
from researchapp.pipeline.types import (
    CheckIssue,
    Claim,
    Draft,
    Evidence,
    Finding,
    FindingStatus,
    Resolution,
    Stance,
    SubQuestion,
)

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


def report_bucket(finding: Finding) -> str:
    """Where a finding goes: "body", "disputed", "gap", or "left_out" (dropped, more research)."""
    if finding.resolution in (Resolution.DROPPED, Resolution.MORE_RESEARCH):
        return "left_out"
    if finding.resolution is Resolution.DISPUTED:
        return "disputed"
    if finding.resolution is Resolution.GAP:
        return "gap"
    if finding.resolution is Resolution.PICKED:
        return "body"
    # Unreviewed findings: a conflict nobody settled is never reported as fact.
    if finding.status is FindingStatus.CONFLICT:
        return "disputed"
    if finding.status is FindingStatus.INSUFFICIENT:
        return "gap"
    return "body"


_CLAIM_IN_MESSAGE = re.compile(r'claim "(.*)"$', re.DOTALL)


def describe_claim(text: str) -> str:
    """How check messages name a claim, so a revision can tell which claim an issue is about."""
    return f'claim "{text}"'


def claim_text_of(issue: CheckIssue) -> str | None:
    match = _CLAIM_IN_MESSAGE.search(issue.message)
    return match.group(1) if match else None


def markers(evidence_ids: Iterable[int]) -> str:
    return "".join(f" [E{evidence_id}]" for evidence_id in dict.fromkeys(evidence_ids))


def _evidence_index(findings: Sequence[Finding]) -> dict[int, Evidence]:
    index: dict[int, Evidence] = {}
    for finding in findings:
        for item in finding.evidence:
            index.setdefault(item.id, item)
    return index


def _reference(item: Evidence) -> str:
    # A paragraph, not a list item: a quote spanning paragraphs must not break the list apart.
    where = ", ".join(part for part in (item.source_title, item.source_url) if part)
    return f'[E{item.id}] "{item.quote}" — {where}' if where else f'[E{item.id}] "{item.quote}"'


def _disputed_block(finding: Finding, index: dict[int, Evidence]) -> tuple[list[str], Claim]:
    ids = tuple(dict.fromkeys(link.evidence_id for link in finding.links))
    lines = [f"- {finding.statement}{markers(ids)}"]
    for link in finding.links:
        item = index.get(link.evidence_id)
        if item is not None:
            lines += ["", f'{link.stance.value.capitalize()} [E{item.id}]: "{item.quote}"']
    return lines + [""], Claim(finding.statement, ids, DISPUTED_SECTION)


def _gap_line(finding: Finding) -> str:
    statement = finding.statement
    if INSUFFICIENT_MARK not in statement:
        statement = f"{INSUFFICIENT_MARK} {statement}"
    note = f" — analyst note: {finding.note}" if finding.note else ""
    return f"- {statement}{note}"


def render_draft(
    question: str,
    subquestions: Sequence[SubQuestion],
    findings: Sequence[Finding],
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
    rendered: list[Claim] = []
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


def stated_elsewhere(subquestion_id: int, findings: Sequence[Finding], claims: Sequence[Claim]) -> bool:
    """A claim of the report cites evidence of one of this sub-question's reportable findings."""
    cited = {evidence_id for claim in claims for evidence_id in claim.evidence_ids}
    return any(
        link.evidence_id in cited
        for finding in findings
        if finding.subquestion_id == subquestion_id and report_bucket(finding) == "body"
        for link in finding.links
        if link.stance is Stance.SUPPORTS
    )


# --- the extractive writer --------------------------------------------------------------------

_MARKER = re.compile(r"\[E(\d+)\]")
_EVIDENCE_CODES = frozenset(("quote_mismatch", "unknown_evidence", "analyst_feedback"))


def _rejections(feedback: Sequence[CheckIssue]) -> tuple[set[str], set[int]]:
    """Claim texts to leave out and evidence ids not to cite, read from a check's issues.

    Issues name claims by text, not only by index: the runner passes the last check's issues
    alone, and indices of an earlier draft do not survive a revision that dropped claims.
    A bad quote costs the claim only that citation; any other fault costs the claim.
    """
    texts: set[str] = set()
    bad_ids: set[int] = set()
    for issue in feedback:
        if issue.code in _EVIDENCE_CODES:
            # Only the message's own words: the quoted claim could itself contain "[E..]".
            own_words = _CLAIM_IN_MESSAGE.sub("", issue.message)
            bad_ids.update(int(found) for found in _MARKER.findall(own_words))
            continue
        text = claim_text_of(issue)
        if text:
            texts.add(text)
    return texts, bad_ids


def _claim_for(finding: Finding, terms: Sequence[str], bad_ids: set[int]) -> Claim | None:
    """A verbatim sentence of the best kept quote, citing every kept quote that says it."""
    supporting = {link.evidence_id for link in finding.links if link.stance is Stance.SUPPORTS}
    kept = sorted(
        (item for item in finding.evidence if item.id in supporting and item.id not in bad_ids),
        key=lambda item: (-item.score, item.id),
    )
    if not kept:
        return None
    best = kept[0]
    if finding.statement and finding.statement in best.quote:
        sentence = finding.statement
    else:
        wanted = list(dict.fromkeys([*tokenize(finding.statement), *terms]))
        picked = best_sentence(best.quote, wanted)
        if picked is None:
            return None
        (start, end), _ = picked
        sentence = best.quote[start:end]
    ids = [best.id] + [item.id for item in kept[1:] if says_the_same(sentence, item.quote)]
    return Claim(sentence, tuple(ids), str(finding.subquestion_id))


def write_extractive(
    question: str,
    subquestions: Sequence[SubQuestion],
    findings: Sequence[Finding],
    *,
    feedback: Sequence[CheckIssue] = (),
) -> Draft:
    """Claims from supported findings and picked conflicts, then the shared rendering.

    1. Read the feedback: claims to drop, evidence not to cite.
    2. One claim per reportable finding, in sub-question order; a sentence already claimed
       (in this section or an earlier one) is not printed again: its evidence joins that claim.
    3. Disputed findings lose links to rejected evidence; a rejected dispute statement is
       replaced by a neutral one that asserts nothing.
    """
    rejected_texts, bad_ids = _rejections(feedback)
    known = {sq.id: sq for sq in subquestions}
    claims: dict[str, Claim] = {}
    for finding in sorted(findings, key=lambda f: (_order(known, f.subquestion_id), f.id)):
        if report_bucket(finding) != "body" or finding.status is FindingStatus.INSUFFICIENT:
            continue
        subquestion = known.get(finding.subquestion_id)
        terms = _content_terms(subquestion.text if subquestion else "")
        claim = _claim_for(finding, terms, bad_ids)
        if claim is None or claim.text in rejected_texts:
            continue
        if claim.text in claims:
            merged = tuple(dict.fromkeys(claims[claim.text].evidence_ids + claim.evidence_ids))
            claims[claim.text] = replace(claims[claim.text], evidence_ids=merged)
        else:
            claims[claim.text] = claim
    reportable = _revised_disputes(findings, rejected_texts, bad_ids)
    return render_draft(question, subquestions, reportable, list(claims.values()))


def _order(known: dict[int, SubQuestion], subquestion_id: int) -> tuple[int, int]:
    subquestion = known.get(subquestion_id)
    return (subquestion.order, subquestion.id) if subquestion else (1 << 30, subquestion_id)


def _content_terms(text: str) -> list[str]:
    return [term for term in dict.fromkeys(tokenize(text)) if term not in GENERIC_TERMS]


def _revised_disputes(
    findings: Sequence[Finding], rejected_texts: set[str], bad_ids: set[int]
) -> list[Finding]:
    revised: list[Finding] = []
    for finding in findings:
        if report_bucket(finding) != "disputed" or not (bad_ids or rejected_texts):
            revised.append(finding)
            continue
        links = tuple(link for link in finding.links if link.evidence_id not in bad_ids)
        evidence = tuple(item for item in finding.evidence if item.id not in bad_ids)
        statement = NEUTRAL_DISPUTE if finding.statement in rejected_texts else finding.statement
        if links:
            revised.append(replace(finding, links=links, evidence=evidence, statement=statement))
        else:
            # Nothing citable is left: the analyst's "disputed" becomes a point to verify.
            revised.append(replace(finding, links=(), evidence=(), resolution=Resolution.GAP))
    return revised
