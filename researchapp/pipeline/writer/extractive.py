"""The extractive writer: claims without a model, each a verbatim sentence of a cited quote."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from researchapp.core.enums import FindingStatus, Resolution, Stance
from researchapp.pipeline.report import report_bucket
from researchapp.pipeline.report.structure import structure_in, structure_spans
from researchapp.pipeline.text.relevance import GENERIC_TERMS, says_the_same
from researchapp.pipeline.text.sentences import best_sentence, is_statement, split_sentences
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
from researchapp.pipeline.writer.answer import (
    bears_on_a_question,
    display_text,
    is_answer_piece,
    is_clean_sentence,
    opening_claims,
)
from researchapp.pipeline.writer.comments import comment_responses, objected_terms  # noqa: F401
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


def _claim_for(finding: ReviewedFinding, terms: Sequence[str], bad_ids: set[int]) -> Claim | None:
    """The finding's statement, verbatim in its best kept quote, citing every kept quote that says
    it; a finding the reader answered keeps its answer span and its whole piece (a list, a term
    with its description); any other a whole sentence of the quote."""
    supporting = {link.evidence_id for link in finding.links if link.stance is Stance.SUPPORTS}
    kept = sorted(
        (item for item in finding.evidence if item.id in supporting and item.id not in bad_ids),
        key=lambda item: (-item.score, item.id),
    )
    if not kept:
        return None
    holding = [item for item in kept if finding.statement and finding.statement in item.quote]
    best = holding[0] if holding else kept[0]
    if (
        finding.answer
        and holding
        and is_answer_piece(finding.statement)
        and not structure_in(finding.statement)
    ):
        ids = [item.id for item in holding] + [
            item.id for item in kept if item not in holding and finding.answer in item.quote
        ]
        return Claim(display_text(finding.statement), tuple(ids), str(finding.subquestion_id), finding.answer)
    if finding.statement and finding.statement in best.quote and not structure_in(finding.statement):
        start = best.quote.index(finding.statement)
        end = start + len(finding.statement)
    else:
        # The best other sentence of the quote: one holding "[证据不足]" or "[E3]" is text, never a claim.
        wanted = list(dict.fromkeys([*tokenize(finding.statement), *terms]))
        # A sentence about the writer's own doings ("We tested ... in our climate chamber"), a page's
        # navigation or a mark of the report's own structure is never a statement.
        aside = [(s, e) for s, e in split_sentences(best.quote) if not bears_on_a_question(best.quote[s:e])]
        picked = best_sentence(best.quote, wanted, avoid=[*structure_spans(best.quote), *aside])
        if picked is None:
            return None
        (start, end), _ = picked
    sentence = best.quote[start:end]
    if (
        not is_statement(best.quote, (start, end))
        or not is_clean_sentence(sentence)
        or not bears_on_a_question(sentence)
    ):
        return None  # a heading, a line of a table, a fragment, a test method: never a claim
    ids = [best.id] + [item.id for item in kept[1:] if says_the_same(sentence, item.quote)]
    # The side an analyst picked answers its sub-question: the opening states it.
    decided = display_text(sentence) if finding.resolution is Resolution.PICKED else ""
    return Claim(display_text(sentence), tuple(ids), str(finding.subquestion_id), decided)


def write_extractive(
    question: str,
    subquestions: Sequence[SubQuestion],
    findings: Sequence[ReviewedFinding],
    *,
    feedback: Sequence[CheckIssue] = (),
) -> Draft:
    """Claims from supported findings and picked conflicts, the opening, then the shared rendering.

    1. Read the feedback: claims to drop, evidence not to cite, words an analyst objects to.
    2. One claim per reportable finding, in sub-question order; a sentence already claimed (in this
       section or an earlier one) is not printed again: its evidence joins that claim.
    3. The opening: each sub-question's answer claims move to the top (``opening_claims``).
    4. Disputed findings lose links to rejected evidence; a rejected dispute statement is
       replaced by a neutral one that asserts nothing.
    5. Say what was done with an analyst's comment on the whole report (``comment_responses``).
    """
    rejected_texts, bad_ids = _rejections(feedback)
    objected = objected_terms(question, feedback)
    known = {sq.id: sq for sq in subquestions}
    claims: dict[str, Claim] = {}
    left_out = 0
    # Within a sub-question, the side an analyst picked comes first: the opening states it.
    decided_first = sorted(
        findings, key=lambda f: (_order(known, f.subquestion_id), f.resolution is not Resolution.PICKED, f.id)
    )
    for finding in decided_first:
        if report_bucket(finding) != "body" or finding.status is FindingStatus.INSUFFICIENT:
            continue
        subquestion = known.get(finding.subquestion_id)
        claim = _claim_for(finding, _content_terms(subquestion.text if subquestion else ""), bad_ids)
        if claim is None or claim.text in rejected_texts:
            continue
        if objected.intersection(tokenize(claim.text)):
            left_out += 1
            continue
        if claim.text in claims:
            merged = tuple(dict.fromkeys(claims[claim.text].evidence_ids + claim.evidence_ids))
            claims[claim.text] = replace(claims[claim.text], evidence_ids=merged)
        else:
            claims[claim.text] = claim
    reportable = _revised_disputes(findings, rejected_texts, bad_ids)
    opening = opening_claims(subquestions, list(claims.values()))
    responses = comment_responses(feedback, objected, left_out)
    return render_draft(question, subquestions, reportable, opening, responses)


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
