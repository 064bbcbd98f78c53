"""What a report is made of: where each finding goes, and how claims and their markers are written.

Shared by the writers, which render reports, and the checker, which verifies them.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from researchapp.core.enums import FindingStatus, Resolution, Stance
from researchapp.pipeline.values import Claim, ReviewedFinding

MAX_AUTHORS = 3  # more are "et al."


def paper_reference(authors: Sequence[str], venue: str, year: int | None, doi: str = "") -> str:
    """ "Lima, Zhang, Okafor et al. · Journal of Photovoltaics · 2023 · DOI 10.1/x"; "" for a web page."""
    names = ", ".join(authors[:MAX_AUTHORS]) + (" et al." if len(authors) > MAX_AUTHORS else "")
    return " · ".join(part for part in (names, venue, str(year or ""), f"DOI {doi}" if doi else "") if part)


def report_bucket(finding: ReviewedFinding) -> str:
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


def describe_claim(text: str) -> str:
    """How check messages name a claim for people; code reads ``CheckIssue.claim``."""
    return f'claim "{text}"'


def markers(evidence_ids: Iterable[int]) -> str:
    return "".join(f" [E{evidence_id}]" for evidence_id in dict.fromkeys(evidence_ids))


# Anything a reader could take for a citation marker: "[E12]", "[E1, E2]", "[ e 3 ]", "【E4】".
# Claim text may hold none: markers are drawn from a claim's evidence ids, never taken from its text.
MARKER_LIKE = re.compile(r"[\[【［]\s*E\s*\d+", re.IGNORECASE)
# A marker as people write one in a comment ("[E12] is out of date"), read where the comment is taken.
WRITTEN_MARKER = re.compile(r"\[E(\d+)\]")
# A marker as the Markdown renders one: "[E12]" not preceded by the backslash that escapes text.
RENDERED_MARKER = re.compile(r"(?<!\\)\[E(\d+)\]")


def written_marker_ids(text: str) -> tuple[int, ...]:
    """The evidence ids a person's comment names as "[E12]", each once, in order."""
    return tuple(dict.fromkeys(int(found) for found in WRITTEN_MARKER.findall(text)))


def marker_ids(markdown: str) -> list[int]:
    """The evidence ids of the citation markers a Markdown text renders, in order."""
    return [int(found) for found in RENDERED_MARKER.findall(markdown)]


def stated_elsewhere(
    subquestion_id: int, findings: Sequence[ReviewedFinding], claims: Sequence[Claim]
) -> bool:
    """A claim of the report cites evidence of one of this sub-question's reportable findings."""
    cited = {evidence_id for claim in claims for evidence_id in claim.evidence_ids}
    return any(
        link.evidence_id in cited
        for finding in findings
        if finding.subquestion_id == subquestion_id and report_bucket(finding) == "body"
        for link in finding.links
        if link.stance is Stance.SUPPORTS
    )
