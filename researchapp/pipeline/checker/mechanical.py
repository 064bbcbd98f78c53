"""Mechanical checks of a draft against the evidence ledger: no citation that cannot be checked.

Each issue names its claim (by text and index) and the citations at fault in its fields, and says
the same in its message for people (``report.describe_claim``, [E<id>] markers), so a revision can
drop or fix exactly what failed.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from researchapp.core.enums import Resolution
from researchapp.pipeline.report import MARKER_LIKE, describe_claim, markers, report_bucket, stated_elsewhere
from researchapp.pipeline.report.document import ComputedFigure, document_from_json, figure_text
from researchapp.pipeline.report.labels import WEAK_SECTION_NOTE
from researchapp.pipeline.report.markdown import markdown_text
from researchapp.pipeline.report.structure import structure_in
from researchapp.pipeline.text.quantities import figure_value
from researchapp.pipeline.text.support import figures_missing, support_problem
from researchapp.pipeline.values import (
    Brief,
    CheckIssue,
    Draft,
    Evidence,
    Ledger,
)

_MARKER = re.compile(r"\s*\[E\d+\]")
# Findings that account for a sub-question without a claim: reported as disputed or to verify,
# or deliberately dropped by an analyst.
_COVERING_BUCKETS = frozenset(("disputed", "gap"))


@dataclass(frozen=True)
class _ClaimUnderCheck:
    """A claim of the draft, and how its issues name it: by text in the message and in the fields."""

    index: int
    text: str
    evidence_ids: tuple[int, ...]

    @property
    def named(self) -> str:
        return describe_claim(self.text)

    def issue(
        self, code: str, message: str, *, evidence_ids: Sequence[int] = (), figure: str = ""
    ) -> CheckIssue:
        return CheckIssue(
            code, message, self.index, claim=self.text, evidence_ids=tuple(evidence_ids), figure=figure
        )


def _check_claim(
    claim: _ClaimUnderCheck,
    *,
    markdown: str,
    evidence: Mapping[int, Evidence],
    snapshots: Mapping[int, str],
    stated_as_fact: bool = True,
) -> list[CheckIssue]:
    """1. cited at all; 2. every id known, every quote matches its snapshot at its offsets;
    3. every figure appears in a matching cited quote, and the quotes support the claim;
    4. the text, followed by its markers, is in the Markdown."""
    issues: list[CheckIssue] = []
    if not claim.evidence_ids:
        issues.append(claim.issue("uncited", f"No evidence is cited for {claim.named}"))
    quotes: list[str] = []
    for evidence_id in dict.fromkeys(claim.evidence_ids):
        problem = _quote_problem(evidence_id, evidence, snapshots, cited_by=claim.named)
        if problem is None:
            quotes.append(evidence[evidence_id].quote)
        else:
            code, message = problem
            issues.append(claim.issue(code, message, evidence_ids=(evidence_id,)))
    if claim.evidence_ids:
        issues += _statement_issues(claim, quotes, stated_as_fact=stated_as_fact)
    issues += _marker_issues(claim, markdown)
    return issues


def _quote_problem(
    evidence_id: int, evidence: Mapping[int, Evidence], snapshots: Mapping[int, str], *, cited_by: str
) -> tuple[str, str] | None:
    """(code, message) when a cited id is not in the ledger or its quote is not its snapshot's text
    at its offsets; ``None`` when the quote can be checked."""
    item = evidence.get(evidence_id)
    if item is None:
        return "unknown_evidence", f"[E{evidence_id}] is not in the ledger, cited by {cited_by}"
    snapshot = snapshots.get(item.source_id)
    if snapshot is None or snapshot[item.start : item.end] != item.quote:
        return (
            "quote_mismatch",
            f"[E{evidence_id}] does not match its source snapshot at {item.start}:{item.end}, "
            f"cited by {cited_by}",
        )
    return None


def _statement_issues(
    claim: _ClaimUnderCheck, quotes: list[str], *, stated_as_fact: bool
) -> list[CheckIssue]:
    """Every figure of the claim is in a cited quote; a claim stated as fact is supported by them."""
    bare = _MARKER.sub("", claim.text)
    missing = figures_missing(bare, quotes)
    issues = [
        claim.issue(
            "number_not_in_quote", f"{figure!r} appears in no cited quote of {claim.named}", figure=figure
        )
        for figure in missing
    ]
    # A dispute's statement only says that sources disagree: its quotes show the two sides.
    problem = "" if missing or not quotes or not stated_as_fact else support_problem(bare, quotes)
    if problem:
        issues.append(claim.issue("unsupported", f"The cited quotes do not support {claim.named}: {problem}"))
    return issues


def _marker_issues(claim: _ClaimUnderCheck, markdown: str) -> list[CheckIssue]:
    """The claim's text is in the Markdown as the Markdown writes it, followed by its markers."""
    shown = markdown_text(claim.text)  # escaped, on one line
    if shown not in markdown:
        return [claim.issue("marker_missing", f"The Markdown does not contain the text of {claim.named}")]
    if f"{shown}{markers(claim.evidence_ids)}" not in markdown:
        return [
            claim.issue(
                "marker_missing",
                f"The Markdown lacks the markers{markers(claim.evidence_ids)} after {claim.named}",
            )
        ]
    return []


def computed_problems(
    figure: ComputedFigure, evidence: Mapping[int, Evidence], snapshots: Mapping[int, str]
) -> list[CheckIssue]:
    """A computed figure is shown only if each input is what its cited quote says: the quote is in
    the ledger, matches its snapshot at its offsets, and its figure ``number`` (read again with the
    calculation's own ``figure_value``) is the input's value. The sandbox is not run again."""
    named = f"the computed figure “{figure.description}”"
    issues: list[CheckIssue] = []
    if not figure.inputs:
        issues.append(CheckIssue("computed_uncited", f"No quoted input is cited for {named}"))
    for item in figure.inputs:
        problem = _quote_problem(item.evidence_id, evidence, snapshots, cited_by=named)
        if problem is not None:
            code, message = problem
            issues.append(CheckIssue(code, message, evidence_ids=(item.evidence_id,)))
            continue
        found = figure_value(evidence[item.evidence_id].quote, item.number)
        if found is None or found != item.value:
            read = "has no such number" if found is None else f"reads {figure_text(found)}"
            issues.append(
                CheckIssue(
                    "computed_input_mismatch",
                    f"{item.name} = {figure_text(item.value)} is not number {item.number} of "
                    f"[E{item.evidence_id}] (which {read}), in {named}",
                    evidence_ids=(item.evidence_id,),
                    figure=figure_text(item.value),
                )
            )
    return issues


def _markers_in_text(draft: Draft) -> list[CheckIssue]:
    """A claim's text holds no citation marker: markers come from its evidence ids alone, so a
    model cannot make "[E999]" look like a citation. Nor any other mark of the report's own
    structure (``[证据不足]``, a heading, the desk's words on what sources do not state): from a
    source or a model, they are text, and a claim holding one would pass for the report's own."""
    issues = []
    for index, claim in enumerate(draft.claims):
        named = describe_claim(claim.text)
        if MARKER_LIKE.search(claim.text):
            message = f"Citation markers belong in evidence_ids, not in the text of {named}"
            issues.append(CheckIssue("marker_in_claim", message, index, claim=claim.text))
        elif found := structure_in(claim.text):
            message = f"{found!r} is the report's own structure, not text a claim may hold: {named}"
            issues.append(CheckIssue("structure_in_claim", message, index, claim=claim.text))
    return issues


def check_draft(draft: Draft, brief: Brief, ledger: Ledger) -> list[CheckIssue]:
    """Every problem with ``draft``; an empty list means it passes."""
    evidence, snapshots = ledger.evidence, ledger.snapshots
    subquestions, findings = brief.subquestions, brief.findings
    issues: list[CheckIssue] = _markers_in_text(draft)
    for index, claim in enumerate(draft.claims):
        issues += _check_claim(
            _ClaimUnderCheck(index, claim.text, tuple(claim.evidence_ids)),
            markdown=draft.markdown,
            evidence=evidence,
            snapshots=snapshots,
            stated_as_fact=claim.section != "disputed",
        )
    if draft.document:
        for figure in document_from_json(dict(draft.document)).computed:
            issues += computed_problems(figure, evidence, snapshots)
    claimed_sections = {claim.section for claim in draft.claims if claim.evidence_ids}
    claimed_sections |= {claim.about for claim in draft.claims if claim.evidence_ids and claim.about}
    # A statement the writer's guard moved to the disputed findings still covers its sub-question.
    disputed_ids = {i for claim in draft.claims if claim.section == "disputed" for i in claim.evidence_ids}
    marked = _marked(draft)
    for subquestion in subquestions:
        if (
            str(subquestion.id) in claimed_sections
            or subquestion.id in marked
            or _reported_as_disputed(subquestion.id, findings, disputed_ids)
        ):
            continue
        # A finding whose sentence an earlier section already states is covered by that claim.
        if stated_elsewhere(subquestion.id, findings, draft.claims):
            continue
        accounted = any(
            finding.subquestion_id == subquestion.id
            and (report_bucket(finding) in _COVERING_BUCKETS or finding.resolution is Resolution.DROPPED)
            for finding in findings
        )
        if not accounted:
            issues.append(
                CheckIssue(
                    "uncovered",
                    f'Sub-question {subquestion.order + 1} "{subquestion.text}" has no claim and no '
                    "disputed, to-verify or dropped finding",
                )
            )
    return issues


def _reported_as_disputed(subquestion_id: int, findings: Sequence, disputed_ids: set[int]) -> bool:
    return any(
        link.evidence_id in disputed_ids
        for finding in findings
        if finding.subquestion_id == subquestion_id
        for link in finding.links
    )


def _marked(draft: Draft) -> set[int]:
    """Sub-questions the report marks as stating nothing (their passages state no answer): the
    report says so in their section, which accounts for them (``render.WEAK_SECTION_NOTE``)."""
    sections = dict(draft.document).get("sections", ()) if draft.document else ()
    return {int(s["subquestion_id"]) for s in sections if s.get("note") == WEAK_SECTION_NOTE}


class MechanicalChecker:
    """``Checker`` of what needs no judgement: ids, offsets, figures, markers, coverage and the
    inputs of computed figures."""

    name = "mechanical"

    def check(self, draft: Draft, brief: Brief, ledger: Ledger) -> list[CheckIssue]:
        return check_draft(draft, brief, ledger)
