"""The report's structure and Markdown, shared by every writer (the model-backed one passes its claims).

``render_draft`` decides what the report says where (``pipeline.report.document``) and writes the
draft's Markdown from that structure; every export renders the same structure again.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from researchapp.core.enums import INSUFFICIENT_MARK, FindingStatus, Resolution
from researchapp.pipeline.report import report_bucket, stated_elsewhere
from researchapp.pipeline.report.document import (
    CLOSEST,
    KEPT,
    SET_ASIDE,
    ComputedFigure,
    Decision,
    Dispute,
    Document,
    Gap,
    Passage,
    Section,
    Statement,
    TestedHypothesis,
    document_from_json,
    document_json,
)
from researchapp.pipeline.report.labels import (
    EN,
    STATED_ABOVE_NOTE,
    WEAK_SECTION_NOTE,
    Labels,
    labels_of_title,
)
from researchapp.pipeline.report.markdown import (
    DISPUTED_NOTE,
    GAP_NOTE,
    NO_CLAIMS_LINE,
    STATED_ABOVE_LINE,
    body_markdown,
    markdown_text,
    role_label,
)
from researchapp.pipeline.text.facets import UNANSWERED_NOTE
from researchapp.pipeline.values import Claim, Draft, Evidence, ReviewedFinding, SubQuestion

ANSWER_SECTION = "answer"  # claims that answer the question directly; rendered first
DISPUTED_SECTION = "disputed"
NEUTRAL_DISPUTE = "Sources disagree on this point; see the quoted passages."
# A section whose whole answer is a sentence the opening states: it is not written again.
ANSWERED_ABOVE_NOTE = STATED_ABOVE_NOTE


def _evidence_index(findings: Sequence[ReviewedFinding]) -> dict[int, Evidence]:
    index: dict[int, Evidence] = {}
    for finding in findings:
        for item in finding.evidence:
            index.setdefault(item.id, item)
    return index


def _source_words(item: Evidence) -> str:
    parts = (item.source_title, item.source_reference, item.source_url)
    return ", ".join(markdown_text(part) for part in parts if part)


def _reference(item: Evidence) -> str:
    # A paragraph, not a list item: one line per reference, whatever the quote holds.
    where = _source_words(item)
    quoted = f"[E{item.id}] “{markdown_text(item.quote)}”"
    return f"{quoted} — {where}" if where else quoted


def _decision(finding: ReviewedFinding) -> Decision:
    return Decision(
        resolution=finding.resolution.value, by=finding.decided_by, at=finding.decided_at, note=finding.note
    )


def _statement(claim: Claim) -> Statement:
    return Statement(claim.text, tuple(dict.fromkeys(claim.evidence_ids)), claim.answer)


def _dispute(finding: ReviewedFinding) -> tuple[Dispute, Claim | None]:
    """A disagreement: its claim (none once a side is picked: the body states that side) and both sides."""
    if finding.resolution is Resolution.PICKED:
        passages = [Passage(link.evidence_id, KEPT) for link in finding.links]
        passages += [Passage(link.evidence_id, SET_ASIDE) for link in finding.set_aside]
        claim = None
    else:
        passages = [Passage(link.evidence_id, link.stance.value) for link in finding.links]
        ids = tuple(dict.fromkeys(link.evidence_id for link in finding.links))
        claim = Claim(finding.statement, ids, DISPUTED_SECTION)
    dispute = Dispute(
        finding_id=finding.id,
        subquestion_id=finding.subquestion_id,
        topic=finding.statement,
        claim=_statement(claim) if claim else None,
        passages=tuple(passages),
        decision=_decision(finding),
    )
    return dispute, claim


def _gap(finding: ReviewedFinding) -> Gap:
    return Gap(
        finding_id=finding.id,
        subquestion_id=finding.subquestion_id,
        statement=_gap_statement(finding),
        searched=finding.searched,
        # The closest passages that did not clear the bar: quoted as what was found, never cited.
        passages=tuple(Passage(link.evidence_id, CLOSEST) for link in finding.links),
        decision=_decision(finding),
    )


def _gap_statement(finding: ReviewedFinding) -> str:
    """The analyser opens an insufficient finding's statement with its mark, which the renderers
    write themselves; the same characters anywhere else (a source's own sentence) are text."""
    if finding.status is FindingStatus.INSUFFICIENT:
        return finding.statement.removeprefix(INSUFFICIENT_MARK).strip()
    return finding.statement


def _why_no_claims(
    subquestion_id: int, findings: Sequence[ReviewedFinding], claims: Sequence[Claim], answered_above: bool
) -> str:
    if answered_above:
        return ""
    if stated_elsewhere(subquestion_id, findings, claims):
        return STATED_ABOVE_LINE
    own = [finding for finding in findings if finding.subquestion_id == subquestion_id]
    if any(_is_shown_as_dispute(finding) for finding in own):
        return DISPUTED_NOTE
    if any(report_bucket(finding) == "gap" for finding in own):
        return GAP_NOTE
    if any(report_bucket(finding) == "body" for finding in own):
        return WEAK_SECTION_NOTE  # what it found states no answer: marked, and the task goes on
    return NO_CLAIMS_LINE


def _is_shown_as_dispute(finding: ReviewedFinding) -> bool:
    return report_bucket(finding) == "disputed" or finding.resolution is Resolution.PICKED


def _not_stated(subquestions: Sequence[SubQuestion], findings: Sequence[ReviewedFinding]) -> tuple[str, ...]:
    """The sub-questions every finding of which is a point to verify (not a facet left unreported
    because the question itself is not answered): what the opening says the sources do not state."""
    missing = []
    for subquestion in sorted(subquestions, key=lambda sq: (sq.order, sq.id)):
        own = [f for f in findings if f.subquestion_id == subquestion.id and report_bucket(f) != "left_out"]
        if own and all(report_bucket(f) == "gap" and UNANSWERED_NOTE not in f.statement for f in own):
            missing.append(" ".join(subquestion.text.split()))
    return tuple(missing)


def _section_answer(claims: Sequence[Claim]) -> str:
    """The answer a section opens with: the span its opening claim states, when it is shorter
    than the sentence (a whole-sentence answer is not written twice)."""
    for claim in claims:
        if claim.answer and " ".join(claim.answer.split()) != " ".join(claim.text.split()):
            return " ".join(claim.answer.split())
    return ""


def build_document(
    question: str,
    subquestions: Sequence[SubQuestion],
    findings: Sequence[ReviewedFinding],
    claims: Sequence[Claim],
    responses: Sequence[str] = (),
) -> tuple[Document, list[Claim]]:
    """What the report says where, and every claim it makes (disputed statements included).

    1. The opening: each sub-question's answer (claims of the "answer" section, in plan order),
       then what the sources do not state.
    2. One section per sub-question: it opens with its answer (stated above), then its other
       claims, or a note: answered above, nothing supported, disputed, to verify, or marked (the
       passages found state no answer: the section says so, the task goes on).
    3. Disputes: each disagreement once, both sides quoted, the analyst's decision; a picked side is
       stated in the body and the other side kept on record here.
    4. Gaps ([证据不足]): what was searched and the closest passages.
    Claims whose section names neither the answer nor a sub-question are left out: nothing unplaced
    is printed.
    """
    opening = [claim for claim in claims if claim.section == ANSWER_SECTION]
    rendered: list[Claim] = list(opening)
    sections = []
    for subquestion in sorted(subquestions, key=lambda sq: (sq.order, sq.id)):
        own = [claim for claim in claims if claim.section == str(subquestion.id)]
        above = [claim for claim in opening if claim.about == str(subquestion.id)]
        rendered += own
        note = "" if own else _why_no_claims(subquestion.id, findings, claims, bool(above))
        note = note or ("" if own or not above or _section_answer(above) else ANSWERED_ABOVE_NOTE)
        sections.append(
            Section(
                subquestion.id, subquestion.text, tuple(map(_statement, own)), note, _section_answer(above)
            )
        )
    disputes, shown = [], set()
    for finding in filter(_is_shown_as_dispute, findings):
        if finding.statement in shown:  # one disagreement found under two sub-questions
            continue
        shown.add(finding.statement)
        dispute, claim = _dispute(finding)
        disputes.append(dispute)
        rendered += [claim] if claim else []
    gaps = tuple(_gap(finding) for finding in findings if report_bucket(finding) == "gap")
    document = Document(
        title=" ".join(question.split()),
        answer=tuple(map(_statement, opening)),
        sections=tuple(sections),
        disputes=tuple(disputes),
        gaps=gaps,
        not_stated=_not_stated(subquestions, findings),
        responses=tuple(responses),
    )
    return document, rendered


def _passage_line(index: dict[int, Evidence], labels: Labels = EN):
    def line(passage: Passage) -> str:
        item = index.get(passage.evidence_id)
        quote = f"“{markdown_text(item.quote)}” — {_source_words(item)}" if item else "(not in the ledger)"
        return f"{role_label(passage.role, labels)} E{passage.evidence_id}: {quote}"

    return line


def render_draft(
    question: str,
    subquestions: Sequence[SubQuestion],
    findings: Sequence[ReviewedFinding],
    claims: Sequence[Claim],
    responses: Sequence[str] = (),
) -> Draft:
    """The draft: its structure, its claims, and its Markdown (title, provenance line, body, and
    references: every cited evidence id once, in reading order, with its quote and source).
    ``responses``: what the writer did with the analyst's comment on the version before."""
    document, rendered = build_document(question, subquestions, findings, claims, responses)
    index = _evidence_index(findings)
    return Draft(
        markdown=draft_markdown(document, index), claims=tuple(rendered), document=document_json(document)
    )


def with_hypotheses(
    draft: Draft, hypotheses: Sequence[TestedHypothesis], evidence: Sequence[Evidence]
) -> Draft:
    """The draft with a "Hypotheses tested" section: each hypothesis, the passages on each side
    (``evidence`` holds their quotes and every quote the draft already had) and the verdict."""
    if not hypotheses:
        return draft
    document = replace(document_from_json(dict(draft.document)), hypotheses=tuple(hypotheses))
    index = {item.id: item for item in evidence}
    return replace(draft, markdown=draft_markdown(document, index), document=document_json(document))


def with_computed(draft: Draft, figures: Sequence[ComputedFigure], evidence: Sequence[Evidence]) -> Draft:
    """The draft with a "Computed figures" section: each figure's result, its code, and each input
    with the passage it was read from (``evidence`` holds their quotes and every quote the draft
    already had)."""
    if not figures:
        return draft
    document = replace(document_from_json(dict(draft.document)), computed=tuple(figures))
    index = {item.id: item for item in evidence}
    return replace(draft, markdown=draft_markdown(document, index), document=document_json(document))


def draft_markdown(document: Document, index: dict[int, Evidence]) -> str:
    """The draft's Markdown, its headings and labels in the report's language (``labels``)."""
    labels = labels_of_title(document.title)
    lines = [f"# {markdown_text(document.title)}", "", f"*{labels.provenance}*"]
    lines += body_markdown(document, _passage_line(index, labels), labels=labels)
    references = [_reference(index[i]) for i in document.cited_ids() if i in index]
    if references:
        lines += ["", f"## {labels.references}"]
        for reference in references:
            lines += ["", reference]
    return "\n".join(lines) + "\n"
