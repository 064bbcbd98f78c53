"""Plans that ask a factual question's own facets, facets reported only when the question is
answered, and a report that answers first, says what is not stated, and keeps a task alive."""

from __future__ import annotations

from dataclasses import replace

from researchapp.core.enums import FindingStatus, Resolution, Stance
from researchapp.pipeline.analyser.facets import gate_facets
from researchapp.pipeline.checker.mechanical import check_draft
from researchapp.pipeline.collector.answering import with_answer_passages
from researchapp.pipeline.collector.local import LocalCorpus
from researchapp.pipeline.collector.passages import PassagePool
from researchapp.pipeline.planner.checks import is_filler, validated_plan
from researchapp.pipeline.planner.extractive import plan_extractive
from researchapp.pipeline.report.labels import WEAK_SECTION_NOTE
from researchapp.pipeline.text.salience import asked_of
from researchapp.pipeline.values import (
    Brief,
    CheckIssue,
    Disagreement,
    Evidence,
    EvidenceLink,
    Ledger,
    ProposedFinding,
    ReviewedFinding,
    Source,
    SubQuestion,
)
from researchapp.pipeline.writer.extractive import write_extractive
from researchapp.providers.base import Document

QUESTION = "What is the default port of the Quill server?"


def test_a_factual_question_is_planned_on_its_own_facets_without_filler() -> None:
    plan = plan_extractive(QUESTION)
    texts = [sq.text for sq in plan.subquestions]
    assert texts[0] == QUESTION
    assert "How is it set or changed?" in texts
    assert not any("recent developments" in t or "facts and figures" in t for t in texts)


def test_the_plan_validator_rejects_template_filler() -> None:
    # "What is known about Quill?" in a corpus every page of which names Quill identifies nothing
    assert is_filler("What is known about Quill?", question=QUESTION, common=frozenset({"quill"}))
    assert not is_filler("What is known about Quill?", question=QUESTION)
    # a template that fits any topic is filler for a factual question, not for an open request
    assert is_filler("Which facts and figures bear on this?", question=QUESTION)
    assert not is_filler("Which facts and figures bear on this?", question="Research the Quill server market")
    plan = plan_extractive("What is the weekly salary of a Quill maintainer in Norway?")
    kept = validated_plan(plan, plan, question=plan.subquestions[0].text, common=frozenset({"quill"}))
    assert all(not is_filler(sq.text, question=plan.subquestions[0].text) for sq in kept.subquestions)


def _finding(key: str, subquestion: int, status: FindingStatus) -> ProposedFinding:
    return ProposedFinding(key=key, subquestion_id=subquestion, status=status, statement="x")


def test_a_facet_is_reported_only_when_the_question_is_answered() -> None:
    subquestions = [SubQuestion(1, QUESTION, ()), SubQuestion(2, "How is it set or changed?", ())]
    facet = [_finding("f", 2, FindingStatus.SUPPORTED)]
    # when the question itself is not answered, the facet becomes a point to verify that says why
    gated = gate_facets(QUESTION, subquestions, {1: [_finding("m", 1, FindingStatus.INSUFFICIENT)], 2: facet})
    assert gated[2][0].status is FindingStatus.INSUFFICIENT and "not answered" in gated[2][0].statement
    # when it is, the facet stays
    kept = gate_facets(QUESTION, subquestions, {1: [_finding("m", 1, FindingStatus.SUPPORTED)], 2: facet})
    assert kept[2] == facet
    # a conflict answers only where it is about the asked value: two ports, not "supported" vs "not"
    about = {
        kind: replace(_finding("c", 1, FindingStatus.CONFLICT), disagreement=Disagreement(kind, {}, ""))
        for kind in ("number", "negation")
    }
    assert gate_facets(QUESTION, subquestions, {1: [about["number"]], 2: facet})[2] == facet
    assert gate_facets(QUESTION, subquestions, {1: [about["negation"]], 2: facet})[2][0].status is (
        FindingStatus.INSUFFICIENT
    )


def _evidence(evidence_id: int, quote: str, subquestion: int) -> Evidence:
    return Evidence(
        evidence_id, evidence_id, subquestion, 0, len(quote), quote, 1.0, cluster=f"c{evidence_id}"
    )


def _reviewed(
    fid: int, sq: int, status: FindingStatus, statement: str, items=(), answer=""
) -> ReviewedFinding:
    return ReviewedFinding(
        id=fid,
        subquestion_id=sq,
        status=status,
        statement=statement,
        confidence="medium" if items else "",
        resolution=Resolution.GAP if status is FindingStatus.INSUFFICIENT else Resolution.NONE,
        links=tuple(EvidenceLink(item.id, Stance.SUPPORTS) for item in items),
        evidence=tuple(items),
        answer=answer,
    )


SUBQUESTIONS = (
    SubQuestion(1, QUESTION, (), 0),
    SubQuestion(2, "How is it set or changed?", (), 1),
    SubQuestion(3, "What conditions or exceptions apply?", (), 2),
)
PORT = _evidence(1, "The Quill server listens on port 7311 by default.", 1)
FRAGMENT = _evidence(2, "| port | 7311 |", 2)


def _findings() -> tuple[ReviewedFinding, ...]:
    return (
        _reviewed(1, 1, FindingStatus.SUPPORTED, PORT.quote, (PORT,), answer="7311"),
        _reviewed(2, 2, FindingStatus.SUPPORTED, "| port | 7311 |", (FRAGMENT,)),  # states no sentence
        _reviewed(3, 3, FindingStatus.INSUFFICIENT, "[证据不足] What conditions or exceptions apply?"),
    )


def test_the_report_opens_with_the_answer_and_says_what_is_not_stated() -> None:
    draft = write_extractive(QUESTION, SUBQUESTIONS, _findings())
    opening = draft.markdown.split("## Answer")[1].split("\n## ")[0]
    assert "**Answer:** 7311 — The Quill server listens on port 7311 by default. [E1]" in opening
    assert "The sources do not state: What conditions or exceptions apply?" in opening
    # the quote is stated once: its section opens with the answer, not the sentence again
    section = draft.markdown.split(f"## {QUESTION}")[1].split("\n## ")[0]
    assert "7311" in section and "listens on port" not in section


def test_a_sub_question_whose_passages_state_no_answer_is_marked_and_the_task_goes_on() -> None:
    draft = write_extractive(QUESTION, SUBQUESTIONS, _findings())
    (marked,) = [s for s in draft.document["sections"] if s["subquestion_id"] == 2]
    assert marked["note"] == WEAK_SECTION_NOTE
    ledger = Ledger({e.id: e for e in (PORT, FRAGMENT)}, {1: PORT.quote, 2: FRAGMENT.quote})
    issues = check_draft(draft, Brief(QUESTION, SUBQUESTIONS, _findings()), ledger)
    assert not [issue for issue in issues if issue.code == "uncovered"]


def test_an_overall_comment_is_acted_on_or_the_next_version_says_why_not() -> None:
    # a comment that objects to nothing drops nothing, and says so
    plain = write_extractive(
        QUESTION, SUBQUESTIONS, _findings(), feedback=(CheckIssue("analyst_feedback", "Hm."),)
    )
    assert any("listens on port 7311" in c.text for c in plain.claims)
    assert plain.document["responses"] and plain.document["responses"][0].startswith("Not acted on")
    # a comment that objects to what a statement says leaves that statement out, and says so
    objecting = CheckIssue("analyst_feedback", "The sentence saying it listens is irrelevant, remove it.")
    acted = write_extractive(QUESTION, SUBQUESTIONS, _findings(), feedback=(objecting,))
    assert not any("listens" in c.text for c in acted.claims)
    assert acted.document["responses"][0].startswith("Acted on")


def test_the_corpus_names_its_common_terms_and_the_passage_stating_the_value_joins_the_evidence() -> None:
    documents = [
        Document(f"corpus://q/{i}", f"Quill page {i}", f"Quill notes {i}.", extraction="corpus")
        for i in range(4)
    ]
    assert "quill" in LocalCorpus(documents).common_terms
    text = (
        "The Quill server accepts connections from clients on the local network.\n\n"
        "The Quill server starts workers, whose number is a setting of its own. "
        "The default value of this setting is 16."
    )
    source = Source(1, "corpus://q/workers", "Quill worker settings", text)
    pool = PassagePool([source])
    subquestion = SubQuestion(
        1, "By default, how many workers does the Quill server start?", ("Quill server workers",)
    )
    added = with_answer_passages(pool, subquestion, [], asked=asked_of(subquestion, subquestion.text))
    assert any("16" in passage.quote and passage.clears_bar for passage in added)
