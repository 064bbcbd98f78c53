"""The writer's guard: two sides of a disagreement are never both written as fact.

Whichever writer drafted the report, its statements of fact (the answer and the sections) are
checked before the draft is stored:

1. A statement that states a disputed side of a conflict finding (a sentence of a linked quote
   holding a span that differs, or those words themselves) is not a fact while the conflict is
   undecided or kept as disputed: the "Disputed findings" section reports it. Once an analyst
   picked a side, the picked side may be stated and the side set aside never is: a decided
   dispute is stated once, as decided, everywhere.
2. Two remaining statements that the task's judge calls contradicting are a dispute: both leave
   the body and the "Disputed findings" section quotes both sides under a neutral statement.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from itertools import combinations

from researchapp.core.enums import FindingStatus, Resolution, Stance
from researchapp.pipeline.report import report_bucket
from researchapp.pipeline.report.document import (
    Dispute,
    Document,
    Passage,
    Statement,
    document_from_json,
    document_json,
)
from researchapp.pipeline.report.markdown import DISPUTED_NOTE
from researchapp.pipeline.text.contradiction import CONTRADICT, DisagreementJudge, Pair, evidence_side
from researchapp.pipeline.text.contradiction.statements import passage_topic
from researchapp.pipeline.text.sentences import split_sentences
from researchapp.pipeline.values import Claim, Draft, Evidence, ReviewedFinding, UsageLog
from researchapp.pipeline.writer.render import DISPUTED_SECTION, NEUTRAL_DISPUTE, draft_markdown

MIN_SHARED = 2  # topic roots two statements share before they are judged against each other
MIN_SPAN_CHARS = 3


def _plain(text: str) -> str:
    return " ".join(text.lower().split())


def _states(claim: Claim, item: Evidence, spans: Sequence[tuple[int, int]]) -> bool:
    """The claim states a disputed span of ``item``: it holds a sentence of the quote that holds
    the span (or is held by it), or, citing the quote, the span's own words."""
    said = _plain(claim.text)
    for start, end in spans or ((0, len(item.quote)),):
        for s, e in split_sentences(item.quote):
            if s < end and start < e:
                sentence = _plain(item.quote[s:e])
                if sentence and (sentence in said or said in sentence):
                    return True
        words = _plain(item.quote[start:end])
        if item.id in claim.evidence_ids and len(words) >= MIN_SPAN_CHARS and words in said and spans:
            return True
    return False


def _disputed_sides(findings: Sequence[ReviewedFinding]) -> list[tuple[Evidence, Sequence[tuple[int, int]]]]:
    """(quote, its differing spans) for every side no report may state as fact."""
    sides = []
    for finding in findings:
        if finding.status is not FindingStatus.CONFLICT or report_bucket(finding) == "left_out":
            continue
        spans: Mapping[int, Sequence[tuple[int, int]]] = (
            finding.disagreement.spans if finding.disagreement else {}
        )
        picked = finding.resolution is Resolution.PICKED
        ids = {link.evidence_id for link in (finding.set_aside if picked else finding.links)}
        sides += [(item, spans.get(item.id, ())) for item in finding.evidence if item.id in ids]
    return sides


def _anchor(claim: Claim, evidence: Mapping[int, Evidence]) -> tuple[Evidence, tuple[int, int]] | None:
    """The quote a statement stands on, and where in it the statement is (the whole quote for a
    statement that is not one of its sentences)."""
    cited = [evidence[i] for i in claim.evidence_ids if i in evidence]
    if not cited:
        return None
    said = _plain(claim.text)
    for item in cited:
        for start, end in split_sentences(item.quote):
            if _plain(item.quote[start:end]) == said:
                return item, (start, end)
    return cited[0], (0, len(cited[0].quote))


def _contradicting(
    claims: Sequence[Claim], evidence: Mapping[int, Evidence], judge: DisagreementJudge, usage: UsageLog
) -> list[tuple[Claim, Claim]]:
    """Pairs of statements citing different sources, about one thing, that the judge calls
    contradicting. Their quotes are judged (a sentence alone may not name what it is about: "the
    company rates the battery for 6,000 cycles"), and what differs must be in the statements."""
    anchored = [(c, anchor) for c in claims if (anchor := _anchor(c, evidence)) is not None]
    pairs = []
    for (a, anchor_a), (b, anchor_b) in combinations(anchored, 2):
        if anchor_a[0].source_id == anchor_b[0].source_id:
            continue
        if len(passage_topic(a.text) & passage_topic(b.text)) < MIN_SHARED:
            continue
        pair = Pair(evidence_side(anchor_a[0]), evidence_side(anchor_b[0]))
        pairs.append((a, b, anchor_a[1], anchor_b[1], pair))
    found = []
    verdicts = {id(j.pair): j for j in judge.judge([pair for *_, pair in pairs], usage=usage)}
    for a, b, where_a, where_b, pair in pairs:
        judgement = verdicts.get(id(pair))
        if judgement is None or judgement.verdict != CONTRADICT:
            continue
        within = all(
            not spans or any(s < end and start < e for s, e in spans)
            for spans, (start, end) in ((judgement.first_spans, where_a), (judgement.second_spans, where_b))
        )
        if within:
            found.append((a, b))
    return found


def _claim_dispute(a: Claim, b: Claim) -> tuple[Dispute, Claim]:
    ids = tuple(dict.fromkeys(a.evidence_ids + b.evidence_ids))
    passages = tuple(Passage(i, Stance.SUPPORTS.value) for i in a.evidence_ids) + tuple(
        Passage(i, Stance.CONTRADICTS.value) for i in b.evidence_ids if i not in a.evidence_ids
    )
    section = a.section if a.section.isdigit() else b.section if b.section.isdigit() else "0"
    claim = Claim(NEUTRAL_DISPUTE, ids, DISPUTED_SECTION)
    dispute = Dispute(0, int(section), NEUTRAL_DISPUTE, Statement(NEUTRAL_DISPUTE, ids), passages)
    return dispute, claim


def _without(document: Document, dropped: set[tuple[str, tuple[int, ...]]]) -> Document:
    def kept(statements: Sequence[Statement]) -> tuple[Statement, ...]:
        return tuple(s for s in statements if (s.text, tuple(s.evidence_ids)) not in dropped)

    sections = tuple(
        replace(section, statements=kept(section.statements), note=section.note or DISPUTED_NOTE)
        if kept(section.statements) != section.statements and not kept(section.statements)
        else replace(section, statements=kept(section.statements))
        for section in document.sections
    )
    return replace(document, answer=kept(document.answer), sections=sections)


def guard_draft(
    draft: Draft, findings: Sequence[ReviewedFinding], judge: DisagreementJudge, usage: UsageLog
) -> Draft:
    """The draft with no disputed side stated as fact (see the module's docstring); unchanged when
    nothing needed moving."""
    evidence = {item.id: item for finding in findings for item in finding.evidence}
    facts = [claim for claim in draft.claims if claim.section != DISPUTED_SECTION]
    sides = _disputed_sides(findings)
    disputed = [c for c in facts if any(_states(c, item, spans) for item, spans in sides)]
    rest = [c for c in facts if c not in disputed]
    contradicting = _contradicting(rest, evidence, judge, usage)
    dropped = {(c.text, tuple(c.evidence_ids)) for c in disputed}
    dropped |= {(c.text, tuple(c.evidence_ids)) for pair in contradicting for c in pair}
    if not dropped or not draft.document:
        return draft
    document = _without(document_from_json(dict(draft.document)), dropped)
    new_disputes, new_claims = [], []
    for a, b in contradicting:
        dispute, claim = _claim_dispute(a, b)
        new_disputes.append(dispute)
        new_claims.append(claim)
    document = replace(document, disputes=document.disputes + tuple(new_disputes))
    claims = [c for c in draft.claims if (c.text, tuple(c.evidence_ids)) not in dropped] + new_claims
    return Draft(
        markdown=draft_markdown(document, evidence), claims=tuple(claims), document=document_json(document)
    )
