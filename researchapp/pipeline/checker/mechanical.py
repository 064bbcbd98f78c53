"""Mechanical checks of a draft against the evidence ledger: no citation that cannot be checked.

Each issue names its claim by text (see ``writer.describe_claim``) and its evidence by [E<id>]
marker, so a revision can drop or fix exactly what failed.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

from researchapp.core.enums import Resolution
from researchapp.pipeline.report import MARKER_LIKE, describe_claim, markers, report_bucket, stated_elsewhere
from researchapp.pipeline.report.document import ComputedFigure, document_from_json, figure_text
from researchapp.pipeline.report.labels import WEAK_SECTION_NOTE
from researchapp.pipeline.report.markdown import markdown_text
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


def _check_claim(
    index: int,
    text: str,
    evidence_ids: Sequence[int],
    *,
    markdown: str,
    evidence: Mapping[int, Evidence],
    snapshots: Mapping[int, str],
    stated_as_fact: bool = True,
) -> list[CheckIssue]:
    """1. cited at all; 2. every id known; 3. every quote matches its snapshot at its offsets;
    4. every figure appears in a matching cited quote; 5. the text, followed by its markers,
    is in the Markdown."""
    issues: list[CheckIssue] = []
    named = describe_claim(text)
    if not evidence_ids:
        issues.append(CheckIssue("uncited", f"No evidence is cited for {named}", index))
    quotes: list[str] = []
    for evidence_id in dict.fromkeys(evidence_ids):
        item = evidence.get(evidence_id)
        if item is None:
            issues.append(
                CheckIssue(
                    "unknown_evidence", f"[E{evidence_id}] is not in the ledger, cited by {named}", index
                )
            )
            continue
        snapshot = snapshots.get(item.source_id)
        if snapshot is None or snapshot[item.start : item.end] != item.quote:
            issues.append(
                CheckIssue(
                    "quote_mismatch",
                    f"[E{evidence_id}] does not match its source snapshot at {item.start}:{item.end}, "
                    f"cited by {named}",
                    index,
                )
            )
            continue
        quotes.append(item.quote)
    if evidence_ids:
        bare = _MARKER.sub("", text)
        missing = figures_missing(bare, quotes)
        for figure in missing:
            issues.append(
                CheckIssue("number_not_in_quote", f"{figure!r} appears in no cited quote of {named}", index)
            )
        # A dispute's statement only says that sources disagree: its quotes show the two sides.
        problem = "" if missing or not quotes or not stated_as_fact else support_problem(bare, quotes)
        if problem:
            issues.append(
                CheckIssue("unsupported", f"The cited quotes do not support {named}: {problem}", index)
            )
    shown = markdown_text(text)  # as the Markdown writes it: escaped, on one line
    if shown not in markdown:
        issues.append(
            CheckIssue("marker_missing", f"The Markdown does not contain the text of {named}", index)
        )
    elif f"{shown}{markers(evidence_ids)}" not in markdown:
        issues.append(
            CheckIssue(
                "marker_missing",
                f"The Markdown lacks the markers{markers(evidence_ids)} after {named}",
                index,
            )
        )
    return issues


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
        row = evidence.get(item.evidence_id)
        if row is None:
            issues.append(
                CheckIssue(
                    "unknown_evidence", f"[E{item.evidence_id}] is not in the ledger, cited by {named}"
                )
            )
            continue
        snapshot = snapshots.get(row.source_id)
        if snapshot is None or snapshot[row.start : row.end] != row.quote:
            issues.append(
                CheckIssue(
                    "quote_mismatch",
                    f"[E{item.evidence_id}] does not match its source snapshot at {row.start}:{row.end}, "
                    f"cited by {named}",
                )
            )
            continue
        found = figure_value(row.quote, item.number)
        if found is None or found != item.value:
            read = "has no such number" if found is None else f"reads {figure_text(found)}"
            issues.append(
                CheckIssue(
                    "computed_input_mismatch",
                    f"{item.name} = {figure_text(item.value)} is not number {item.number} of "
                    f"[E{item.evidence_id}] (which {read}), in {named}",
                )
            )
    return issues


def _markers_in_text(draft: Draft) -> list[CheckIssue]:
    """A claim's text holds no citation marker: markers come from its evidence ids alone, so a
    model cannot make "[E999]" look like a citation."""
    return [
        CheckIssue(
            "marker_in_claim",
            f"Citation markers belong in evidence_ids, not in the text of {describe_claim(claim.text)}",
            index,
        )
        for index, claim in enumerate(draft.claims)
        if MARKER_LIKE.search(claim.text)
    ]


def check_draft(draft: Draft, brief: Brief, ledger: Ledger) -> list[CheckIssue]:
    """Every problem with ``draft``; an empty list means it passes."""
    evidence, snapshots = ledger.evidence, ledger.snapshots
    subquestions, findings = brief.subquestions, brief.findings
    issues: list[CheckIssue] = _markers_in_text(draft)
    for index, claim in enumerate(draft.claims):
        issues += _check_claim(
            index,
            claim.text,
            claim.evidence_ids,
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
    for subquestion in subquestions:
        if str(subquestion.id) in claimed_sections or subquestion.id in _marked(draft):
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
