"""The extractive writer: claims without a model, each a verbatim sentence of a cited quote."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from researchapp.core.enums import FindingStatus, Resolution, Stance
from researchapp.pipeline.report import WRITTEN_MARKER, report_bucket
from researchapp.pipeline.report.structure import structure_in, structure_spans
from researchapp.pipeline.text.relevance import GENERIC_TERMS, says_the_same
from researchapp.pipeline.text.sentences import best_sentence, is_statement
from researchapp.pipeline.text.tokens import tokenize
from researchapp.pipeline.values import (
    Brief,
    CheckIssue,
    Claim,
    Draft,
    ReviewedFinding,
    SubQuestion,
    UsageLog,
)
from researchapp.pipeline.writer.answer import answer_claims, display_text
from researchapp.pipeline.writer.render import NEUTRAL_DISPUTE, render_draft

# --- the extractive writer --------------------------------------------------------------------

_EVIDENCE_CODES = frozenset(("quote_mismatch", "unknown_evidence", "analyst_feedback"))


def _rejections(feedback: Sequence[CheckIssue]) -> tuple[set[str], set[int]]:
    """Claim texts to leave out and evidence ids not to cite, from the issues' fields.

    Issues name claims by text, not only by index: the runner passes every issue so far, and
    indices of an earlier draft do not survive a revision that dropped claims. A bad quote costs
    the claim only that citation; any other fault (or a bad quote the issue does not name) costs
    the claim.
    """
    texts: set[str] = set()
    bad_ids: set[int] = set()
    for issue in feedback:
        if issue.code in _EVIDENCE_CODES and (issue.evidence_ids or not issue.claim):
            bad_ids.update(issue.evidence_ids)
            continue
        if issue.claim:
            texts.add(issue.claim)
    return texts, bad_ids


# Words of an analyst's comment that say what to do, not what it is about.
_COMMENT_NOISE = frozenset(
    """please these those this that they them about wrong irrelevant unrelated off topic remove drop
    delete cut leave out keep report draft claim claims sentence sentences section sections quote
    quotes source sources answer question nothing anything something fix change rewrite again not
    only also too more less instead here there should must need needs""".split()
)


def objected_terms(question: str, feedback: Sequence[CheckIssue]) -> set[str]:
    """What an analyst's send-back comment objects to ("these are about batteries" → battery):
    the comment's content words that the question itself does not use. A claim holding one is
    left out of the next draft, so a comment changes the result even without naming a claim."""
    asked = set(tokenize(question))
    comments = " ".join(issue.message for issue in feedback if issue.code == "analyst_feedback")
    return {
        term
        for term in tokenize(WRITTEN_MARKER.sub(" ", comments))
        if term not in asked and term not in _COMMENT_NOISE and not term.isdigit()
    }


def _claim_for(finding: ReviewedFinding, terms: Sequence[str], bad_ids: set[int]) -> Claim | None:
    """A verbatim sentence of the best kept quote, citing every kept quote that says it."""
    supporting = {link.evidence_id for link in finding.links if link.stance is Stance.SUPPORTS}
    kept = sorted(
        (item for item in finding.evidence if item.id in supporting and item.id not in bad_ids),
        key=lambda item: (-item.score, item.id),
    )
    if not kept:
        return None
    best = kept[0]
    if finding.statement and finding.statement in best.quote and not structure_in(finding.statement):
        start = best.quote.index(finding.statement)
        end = start + len(finding.statement)
    else:
        # The best other sentence of the quote: one holding "[证据不足]" or "[E3]" is text, never a claim.
        wanted = list(dict.fromkeys([*tokenize(finding.statement), *terms]))
        picked = best_sentence(best.quote, wanted, avoid=structure_spans(best.quote))
        if picked is None:
            return None
        (start, end), _ = picked
    sentence = best.quote[start:end]
    if not is_statement(best.quote, (start, end)):
        return None  # a heading, a line of a table, a fragment: never a claim
    ids = [best.id] + [item.id for item in kept[1:] if says_the_same(sentence, item.quote)]
    return Claim(display_text(sentence), tuple(ids), str(finding.subquestion_id))


def write_extractive(
    question: str,
    subquestions: Sequence[SubQuestion],
    findings: Sequence[ReviewedFinding],
    *,
    feedback: Sequence[CheckIssue] = (),
) -> Draft:
    """Claims from supported findings and picked conflicts, then the shared rendering.

    1. Read the feedback: claims to drop, evidence not to cite.
    2. The direct answer: the sentences that best answer the question itself (``answer_claims``).
    3. One claim per reportable finding, in sub-question order; a sentence already claimed
       (in the answer, this section or an earlier one) is not printed again: its evidence joins
       that claim.
    4. Disputed findings lose links to rejected evidence; a rejected dispute statement is
       replaced by a neutral one that asserts nothing.
    """
    rejected_texts, bad_ids = _rejections(feedback)
    objected = objected_terms(question, feedback)
    known = {sq.id: sq for sq in subquestions}

    def rejected(claim: Claim) -> bool:
        return claim.text in rejected_texts or bool(objected.intersection(tokenize(claim.text)))

    answer = answer_claims(question, _without(findings, bad_ids))
    # A body sentence the answer already states is not printed again: its evidence joins the answer.
    claims: dict[str, Claim] = {claim.text: claim for claim in answer if not rejected(claim)}
    for finding in sorted(findings, key=lambda f: (_order(known, f.subquestion_id), f.id)):
        if report_bucket(finding) != "body" or finding.status is FindingStatus.INSUFFICIENT:
            continue
        subquestion = known.get(finding.subquestion_id)
        terms = _content_terms(subquestion.text if subquestion else "")
        claim = _claim_for(finding, terms, bad_ids)
        if claim is None or rejected(claim):
            continue
        if claim.text in claims:
            merged = tuple(dict.fromkeys(claims[claim.text].evidence_ids + claim.evidence_ids))
            claims[claim.text] = replace(claims[claim.text], evidence_ids=merged)
        else:
            claims[claim.text] = claim
    reportable = _revised_disputes(findings, rejected_texts, bad_ids)
    return render_draft(question, subquestions, reportable, list(claims.values()))


def _without(findings: Sequence[ReviewedFinding], bad_ids: set[int]) -> list[ReviewedFinding]:
    """The findings with the evidence a check or an analyst rejected taken out."""
    return [
        replace(finding, evidence=tuple(item for item in finding.evidence if item.id not in bad_ids))
        for finding in findings
    ]


def _order(known: dict[int, SubQuestion], subquestion_id: int) -> tuple[int, int]:
    subquestion = known.get(subquestion_id)
    return (subquestion.order, subquestion.id) if subquestion else (1 << 30, subquestion_id)


def _content_terms(text: str) -> list[str]:
    return [term for term in dict.fromkeys(tokenize(text)) if term not in GENERIC_TERMS]


def _revised_disputes(
    findings: Sequence[ReviewedFinding], rejected_texts: set[str], bad_ids: set[int]
) -> list[ReviewedFinding]:
    revised: list[ReviewedFinding] = []
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


class ExtractiveWriter:
    """``Writer`` without a model: every claim is a verbatim sentence of a cited quote."""

    name = "extractive"
    note = ""

    def write(self, brief: Brief, *, usage: UsageLog) -> Draft:
        return write_extractive(brief.question, brief.subquestions, brief.findings, feedback=brief.feedback)
