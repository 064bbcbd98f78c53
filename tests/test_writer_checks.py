"""The report writer and the mechanical checks that every citation can be verified."""

from __future__ import annotations

from dataclasses import replace

import pytest

from researchapp.core.enums import FindingStatus, Resolution, Stance
from researchapp.pipeline.analyser.extractive import REJECTED_PREFIX as MODEL_REJECTED
from researchapp.pipeline.analyser.support import REJECTED_PREFIX as SUPPORT_REJECTED
from researchapp.pipeline.analyser.support import UNSUPPORTED_PREFIX
from researchapp.pipeline.checker.mechanical import check_draft
from researchapp.pipeline.report.structure import structure_in
from researchapp.pipeline.runner.rows import check_issue_value
from researchapp.pipeline.values import (
    Brief,
    CheckIssue,
    Claim,
    Draft,
    Evidence,
    EvidenceLink,
    Ledger,
    ReviewedFinding,
    SubQuestion,
)
from researchapp.pipeline.writer.extractive import write_extractive
from researchapp.pipeline.writer.render import render_draft

QUESTION = "Rust vs Go?"
COST = SubQuestion(1, "How do Rust and Go differ in cost?", ("Rust vs Go cost",), order=0)
ADOPTION = SubQuestion(2, "How do Rust and Go differ in adoption?", ("Rust vs Go adoption",), order=1)
RISKS = SubQuestion(3, "How do Rust and Go differ in risks?", ("Rust vs Go risks",), order=2)

SNAPSHOTS = {
    10: "Pricing\n\nRust and Go are free to use. Neither charges a licence fee. Hosting costs differ.",
    11: "Survey 2024: 42% of professional developers use Rust at work. Go is popular in cloud teams.",
    12: "A second survey found that 35% of professional developers use Rust at work.",
    13: "Both compilers are free to use, and Rust and Go are free to use for any purpose.",
}


def cut(
    evidence_id: int, source_id: int, subquestion: SubQuestion, start: int, end: int, score: float
) -> Evidence:
    text = SNAPSHOTS[source_id]
    return Evidence(
        id=evidence_id,
        source_id=source_id,
        subquestion_id=subquestion.id,
        start=start,
        end=end,
        quote=text[start:end],
        score=score,
        source_url=f"https://s{source_id}.example/page",
        source_title=f"Source {source_id}",
        cluster=f"c{source_id}",
    )


E_FREE = cut(21, 10, COST, 9, len(SNAPSHOTS[10]), 2.0)
E_FREE_TOO = cut(24, 13, COST, 0, len(SNAPSHOTS[13]), 1.0)
E_42 = cut(22, 11, ADOPTION, 0, len(SNAPSHOTS[11]), 2.0)
E_35 = cut(23, 12, ADOPTION, 0, len(SNAPSHOTS[12]), 1.0)
LEDGER = {e.id: e for e in (E_FREE, E_FREE_TOO, E_42, E_35)}


def finding(
    finding_id: int,
    subquestion: SubQuestion,
    status: FindingStatus,
    statement: str,
    links: tuple[tuple[Evidence, Stance], ...] = (),
    resolution: Resolution = Resolution.NONE,
) -> ReviewedFinding:
    return ReviewedFinding(
        id=finding_id,
        subquestion_id=subquestion.id,
        status=status,
        statement=statement,
        confidence="medium" if links else "",
        resolution=resolution,
        links=tuple(EvidenceLink(e.id, stance) for e, stance in links),
        evidence=tuple(e for e, _ in links),
    )


SUPPORTED = finding(
    1,
    COST,
    FindingStatus.SUPPORTED,
    "Rust and Go are free to use.",
    ((E_FREE, Stance.SUPPORTS), (E_FREE_TOO, Stance.SUPPORTS)),
)
DISPUTED = finding(
    2,
    ADOPTION,
    FindingStatus.CONFLICT,
    "Sources disagree on professional developers use Rust work: 42% vs 35%",
    ((E_42, Stance.SUPPORTS), (E_35, Stance.CONTRADICTS)),
    Resolution.DISPUTED,
)
GAP = finding(
    3, RISKS, FindingStatus.INSUFFICIENT, "[证据不足] How do Rust and Go differ in risks?", (), Resolution.GAP
)
SUBQUESTIONS = (COST, ADOPTION, RISKS)
FREE_CLAIM = Claim("Rust and Go are free to use.", (21,), "1")
FINDINGS = (SUPPORTED, DISPUTED, GAP)


def check(draft: Draft, *, ledger=LEDGER, snapshots=SNAPSHOTS, findings=FINDINGS) -> list[CheckIssue]:
    brief = Brief(QUESTION, SUBQUESTIONS, tuple(findings))
    return check_draft(draft, brief, Ledger(evidence=ledger, snapshots=snapshots))


def test_it_writes_a_report_that_passes_every_check() -> None:
    # when
    draft = write_extractive(QUESTION, SUBQUESTIONS, FINDINGS)
    # then
    assert check(draft) == []
    markdown = draft.markdown
    assert markdown.startswith("# Rust vs Go?\n")
    assert "verbatim quotes" in markdown
    assert "- Rust and Go are free to use. [E21] [E24]\n" in markdown
    assert markdown.index("## How do Rust and Go differ in cost?") < markdown.index("## Disputed findings")
    assert markdown.index("## Disputed findings") < markdown.index("## To verify [证据不足]")
    assert markdown.index("## To verify [证据不足]") < markdown.index("## References")


def test_it_cites_every_quote_that_states_the_claim() -> None:
    # when
    draft = write_extractive(QUESTION, SUBQUESTIONS, FINDINGS)
    # then
    # (the sentence answers "Rust vs Go?" itself, so it is the report's direct answer)
    body = [claim for claim in draft.claims if claim.section in ("1", "answer")]
    assert body == [Claim("Rust and Go are free to use.", (21, 24), "answer", about="1")]


def test_it_reports_disputed_findings_with_both_sides_verbatim() -> None:
    # when
    draft = write_extractive(QUESTION, SUBQUESTIONS, FINDINGS)
    # then
    assert f"- Says so E22: “{E_42.quote}”" in draft.markdown
    assert f"- Disagrees E23: “{E_35.quote}”" in draft.markdown
    assert Claim(DISPUTED.statement, (22, 23), "disputed") in draft.claims


def test_it_lists_gaps_to_verify_never_as_facts() -> None:
    # when
    draft = write_extractive(QUESTION, SUBQUESTIONS, FINDINGS)
    # then
    gaps = draft.markdown.split("## To verify [证据不足]")[1].split("## References")[0]
    assert "### [证据不足] How do Rust and Go differ in risks?" in gaps
    assert "- Searched:" in gaps and "- No passage came close." in gaps
    assert not any("risks" in claim.text for claim in draft.claims)


def test_it_lists_each_cited_evidence_once_in_the_references() -> None:
    # when
    draft = write_extractive(QUESTION, SUBQUESTIONS, FINDINGS)
    references = draft.markdown.split("## References")[1]
    # then
    quote = " ".join(E_FREE.quote.split())  # one line in Markdown
    assert f"[E21] “{quote}” — Source 10, https\\://s10.example/page" in references
    for evidence_id in (21, 22, 23, 24):
        assert references.count(f"[E{evidence_id}]") == 1


def test_it_leaves_out_dropped_findings_and_those_sent_for_more_research() -> None:
    # given
    dropped = replace(SUPPORTED, resolution=Resolution.DROPPED)
    more = replace(DISPUTED, resolution=Resolution.MORE_RESEARCH)
    # when
    draft = write_extractive(QUESTION, SUBQUESTIONS, (dropped, more, GAP))
    # then
    assert "free to use" not in draft.markdown
    assert "42%" not in draft.markdown
    assert "## Disputed findings" not in draft.markdown


def test_it_writes_the_picked_side_of_a_conflict_as_a_claim() -> None:
    # given an analyst picked the 35% side (the runner keeps only the kept links, as supports)
    picked = finding(
        4, ADOPTION, FindingStatus.CONFLICT, DISPUTED.statement, ((E_35, Stance.SUPPORTS),), Resolution.PICKED
    )
    # when
    draft = write_extractive(QUESTION, SUBQUESTIONS, (SUPPORTED, picked, GAP))
    # then the picked side answers its sub-question in the opening lines
    assert (
        Claim(
            "A second survey found that 35% of professional developers use Rust at work.",
            (23,),
            "answer",
            "A second survey found that 35% of professional developers use Rust at work.",
            about="2",
        )
        in draft.claims
    )
    sections, disputed = draft.markdown.split("## References")[0].split("## Disputed findings")
    assert "42%" not in sections
    # and the decision stays on record under the disputes, with the kept side quoted, never cited
    assert "- Kept E23: “A second survey found" in disputed
    assert "Decision: one side picked" in disputed
    assert check(draft, findings=(SUPPORTED, picked, GAP)) == []


def test_it_renders_model_written_claims_in_their_sections() -> None:
    # given claims as another engine would write them
    claims = [Claim("Neither charges a licence fee.", (21,), "1"), Claim("Nowhere to go.", (21,), "99")]
    # when
    draft = render_draft(QUESTION, SUBQUESTIONS, FINDINGS, claims)
    # then the unplaced claim is neither printed nor returned
    assert "- Neither charges a licence fee. [E21]" in draft.markdown
    assert "Nowhere to go." not in draft.markdown
    assert [c.section for c in draft.claims] == ["1", "disputed"]


def test_a_check_catches_a_tampered_quote() -> None:
    # given the snapshot changed after the quote was taken
    draft = write_extractive(QUESTION, SUBQUESTIONS, FINDINGS)
    tampered = dict(SNAPSHOTS)
    tampered[10] = SNAPSHOTS[10].replace("free", "cheap")
    # when
    issues = check(draft, snapshots=tampered)
    # then
    assert [issue.code for issue in issues] == ["quote_mismatch"]
    assert "[E21]" in issues[0].message
    # and its fields name the claim and the citation at fault, for the writer to read
    assert issues[0].claim_index == 0 and issues[0].claim == draft.claims[0].text
    assert issues[0].evidence_ids == (21,)


def test_a_check_catches_a_number_absent_from_the_quote() -> None:
    # given a claim whose figure no cited quote states
    claims = [FREE_CLAIM, Claim("Go is used by 55% of cloud teams.", (22,), "2")]
    draft = render_draft(QUESTION, SUBQUESTIONS, FINDINGS, claims)
    # when
    issues = check(draft)
    # then
    assert [(issue.code, issue.claim_index) for issue in issues] == [("number_not_in_quote", 1)]
    assert "55%" in issues[0].message
    assert (issues[0].claim, issues[0].figure) == ("Go is used by 55% of cloud teams.", "55%")


def test_a_check_accepts_a_figure_written_another_way() -> None:
    # given "42 percent" for a quote that says "42%"
    claims = [FREE_CLAIM, Claim("Rust is used by 42 percent of them.", (22,), "2")]
    draft = render_draft(QUESTION, SUBQUESTIONS, FINDINGS, claims)
    # when / then
    assert check(draft) == []


def test_a_check_catches_uncited_and_unknown_evidence() -> None:
    # given
    claims = [
        Claim("Rust and Go are free to use.", (), "1"),
        Claim("Rust and Go are free to use.", (99,), "1"),
    ]
    draft = render_draft(QUESTION, SUBQUESTIONS, FINDINGS, claims)
    # when
    codes = {(issue.code, issue.claim_index) for issue in check(draft)}
    # then
    assert ("uncited", 0) in codes
    assert ("unknown_evidence", 1) in codes
    [unknown] = [issue for issue in check(draft) if issue.code == "unknown_evidence"]
    assert unknown.evidence_ids == (99,)


def test_a_check_catches_an_uncovered_subquestion() -> None:
    # given the gap finding is missing, so nothing accounts for the risks sub-question
    draft = write_extractive(QUESTION, SUBQUESTIONS, (SUPPORTED, DISPUTED))
    # when
    issues = check(draft, findings=(SUPPORTED, DISPUTED))
    # then
    assert [issue.code for issue in issues] == ["uncovered"]
    assert "How do Rust and Go differ in risks?" in issues[0].message


def test_a_check_counts_a_dropped_finding_as_covering_its_subquestion() -> None:
    # given the analyst dropped the only finding of the risks sub-question
    dropped_gap = replace(GAP, resolution=Resolution.DROPPED)
    draft = write_extractive(QUESTION, SUBQUESTIONS, (SUPPORTED, DISPUTED, dropped_gap))
    # when / then
    assert check(draft, findings=(SUPPORTED, DISPUTED, dropped_gap)) == []


def test_a_check_catches_a_claim_missing_from_the_markdown() -> None:
    # given a draft whose Markdown lost a claim's marker
    draft = write_extractive(QUESTION, SUBQUESTIONS, FINDINGS)
    broken = replace(draft, markdown=draft.markdown.replace("free to use. [E21] [E24]", "free to use. [E21]"))
    # when
    issues = check(broken)
    # then
    assert [issue.code for issue in issues] == ["marker_missing"]


def test_it_drops_the_claim_a_failed_check_names_on_revision() -> None:
    # given a first draft that fails because one quote no longer matches
    tampered = dict(SNAPSHOTS)
    tampered[13] = "changed"
    first = write_extractive(QUESTION, SUBQUESTIONS, FINDINGS)
    issues = check(first, snapshots=tampered)
    assert [issue.code for issue in issues] == ["quote_mismatch"]
    # when the writer revises with the issues as feedback
    revised = write_extractive(QUESTION, SUBQUESTIONS, FINDINGS, feedback=issues)
    # then the bad evidence is no longer cited and the draft passes
    # (it is the direct answer to "Rust vs Go?", so it opens the report)
    assert Claim("Rust and Go are free to use.", (21,), "answer", about="1") in revised.claims
    assert check(revised, snapshots=tampered) == []


def test_it_drops_the_claim_an_issue_names_in_its_fields_whatever_its_message_says() -> None:
    # given a number issue whose fields name the claim, and whose message (for people) names another
    issue = CheckIssue(
        "number_not_in_quote",
        "'42%' appears in no cited quote of claim \"Go is popular in cloud teams.\"",
        0,
        claim="Rust and Go are free to use.",
        figure="42%",
    )
    # when
    revised = write_extractive(QUESTION, SUBQUESTIONS, FINDINGS, feedback=[issue])
    # then the claim the fields name is left out
    assert not any(claim.text == "Rust and Go are free to use." for claim in revised.claims)


def test_a_bad_quote_costs_its_claim_only_the_citation_the_issue_names() -> None:
    # given a quote issue naming E24 in its fields (its message names E21)
    issue = CheckIssue(
        "quote_mismatch",
        '[E21] does not match its source snapshot at 0:1, cited by claim "Rust and Go are free to use."',
        0,
        claim="Rust and Go are free to use.",
        evidence_ids=(24,),
    )
    # when
    revised = write_extractive(QUESTION, SUBQUESTIONS, FINDINGS, feedback=[issue])
    # then the claim stays, citing E21 alone
    assert Claim("Rust and Go are free to use.", (21,), "answer", about="1") in revised.claims


def test_a_stored_issue_reads_back_as_it_was_and_an_old_row_names_its_claim_by_index() -> None:
    # given an issue as a draft stores it now, and a row stored before issues had fields
    issue = CheckIssue("quote_mismatch", "[E24] does not match", 1, claim="B.", evidence_ids=(24,))
    claims = [{"text": "A.", "evidence_ids": [21]}, {"text": "B.", "evidence_ids": [24]}]
    old_row = {"code": "number_not_in_quote", "message": "'9%' appears in no cited quote", "claim_index": 1}
    # when they are read back
    # then the new one is the same value, and the old one names the claim at its index
    assert check_issue_value(issue.as_json(), claims) == issue
    assert check_issue_value(old_row, claims) == CheckIssue(
        "number_not_in_quote", "'9%' appears in no cited quote", 1, claim="B."
    )
    assert check_issue_value({**old_row, "claim_index": None}, claims).claim == ""


def test_it_states_a_claim_once_even_when_two_sections_find_it() -> None:
    # given the adoption sub-question found the same sentence as the cost one, in its own evidence
    e_again = cut(25, 10, ADOPTION, 9, len(SNAPSHOTS[10]), 1.5)
    again = finding(
        5, ADOPTION, FindingStatus.SUPPORTED, "Rust and Go are free to use.", ((e_again, Stance.SUPPORTS),)
    )
    findings = (SUPPORTED, again, GAP)
    # when
    draft = write_extractive(QUESTION, SUBQUESTIONS, findings)
    # then the sentence is printed once, as the direct answer, citing both sections' evidence
    body = draft.markdown.split("## References")[0]
    assert body.count("Rust and Go are free to use.") == 1
    assert [claim for claim in draft.claims if claim.text == "Rust and Go are free to use."] == [
        Claim("Rust and Go are free to use.", (21, 24, 25), "answer", about="1")
    ]
    # and the later section points back instead of repeating, which the check accepts as covered
    adoption = draft.markdown.split("## How do Rust and Go differ in adoption?")[1].split("##")[0]
    assert "stated in an earlier section" in adoption
    assert check(draft, ledger=LEDGER | {25: e_again}, findings=findings) == []


def test_it_shows_one_dispute_once_when_two_subquestions_report_it() -> None:
    # given the same disputed finding under two sub-questions
    twin = replace(DISPUTED, id=6, subquestion_id=COST.id)
    # when
    draft = write_extractive(QUESTION, SUBQUESTIONS, (SUPPORTED, DISPUTED, twin, GAP))
    # then
    assert draft.markdown.split("## References")[0].count(DISPUTED.statement) == 1
    assert check(draft, findings=(SUPPORTED, DISPUTED, twin, GAP)) == []


# --- marks of the report's own structure, from a source, are text -----------------------------


@pytest.mark.parametrize(
    "text",
    [
        "[证据不足] Rust and Go are free to use.",
        "Rust and Go are free to use 【 证据不足 】.",
        "Rust and Go are free to use. [insufficient evidence]",
        "To verify: Rust and Go are free to use.",
        "待核实：Rust and Go are free to use.",
        "## Answer",
        "Answer: Rust and Go are free to use.",
        "Rust and Go are free to use; the support check found that its passages do not state it.",
        "此子问题没有得到支持的发现。",
    ],
)
def test_a_check_refuses_a_claim_holding_a_mark_of_the_reports_structure(text) -> None:
    # given a claim whose text (a source's sentence, or a model's) holds a mark the report writes itself
    claim = Claim(text, (21,), "1")
    draft = render_draft(QUESTION, SUBQUESTIONS, FINDINGS, [claim])
    # when / then the checker refuses it as structure, naming the claim so a revision drops it
    issues = [issue for issue in check(draft) if issue.code == "structure_in_claim"]
    assert [issue.claim_index for issue in issues] == [0]
    assert issues[0].claim == text


def test_the_analysers_own_words_on_unsupported_statements_are_recognised() -> None:
    # the phrases the analysers write into a point to verify are in the checker's list
    for words in (UNSUPPORTED_PREFIX, SUPPORT_REJECTED, f"{MODEL_REJECTED}a reason"):
        assert structure_in(f"Rust is free; {words}."), words
    assert structure_in("Rust and Go are free to use. Answer rates rose.") == ""


def test_the_writer_never_claims_a_source_sentence_holding_the_gap_mark() -> None:
    # given a supported finding whose statement is a source's sentence beginning with the gap mark
    snapshot = "[证据不足] Rust and Go are free to use. Neither compiler charges a licence fee at all."
    faked = replace(E_FREE, source_id=99, start=0, end=len(snapshot), quote=snapshot)
    sneaky = finding(
        1,
        COST,
        FindingStatus.SUPPORTED,
        "[证据不足] Rust and Go are free to use.",
        ((faked, Stance.SUPPORTS),),
    )
    findings = (sneaky, DISPUTED, GAP)
    # when the extractive writer writes the report
    draft = write_extractive(QUESTION, SUBQUESTIONS, findings)
    # then the claim is the quote's other sentence, and the draft passes every check
    assert [claim.text for claim in draft.claims if "1" in (claim.section, claim.about)] == [
        "Neither compiler charges a licence fee at all."
    ]
    assert (
        check(
            draft,
            ledger={**LEDGER, faked.id: faked},
            snapshots={**SNAPSHOTS, 99: snapshot},
            findings=findings,
        )
        == []
    )
    # and the only gap marks the Markdown writes unescaped are its own: the section and the one gap
    # (the source's, in the references, is escaped text: "\\[证据不足\\]")
    assert draft.markdown.count("[证据不足]") == 2
    assert "“\\[证据不足\\] Rust and Go are free to use." in draft.markdown


def test_a_gap_statement_keeps_the_mark_a_source_wrote_as_text() -> None:
    # given a conflict the analyst kept as a point to verify, whose statement is a source's sentence
    kept = replace(DISPUTED, statement="[证据不足] 42% of developers use Rust", resolution=Resolution.GAP)
    draft = render_draft(QUESTION, SUBQUESTIONS, (SUPPORTED, kept, GAP), [FREE_CLAIM])
    # then the source's mark stays in the statement as escaped text; the analyser's own mark does not
    assert "### [证据不足] \\[证据不足\\] 42% of developers use Rust" in draft.markdown
    assert "### [证据不足] How do Rust and Go differ in risks?" in draft.markdown
