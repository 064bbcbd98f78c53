"""A rejected plan's next version is that version with the analyst's feedback applied as edits.

The issue saw a rejection keep every sub-question and append a garbled one ("What does the
evidence say about please drop the third for ...?"). Here: drops remove what they name, asks add a
well-formed sub-question, the rest stays; with the model engine the previous version and the
feedback go into the prompt.
"""

from __future__ import annotations

from researchapp.pipeline.planner.extractive import plan_extractive
from researchapp.pipeline.planner.revise import revise_plan
from researchapp.pipeline.values import UsageLog
from tests.model_stages import make_engine
from tests.stubs.openai_api import StubOpenAI, by_stage

QUESTION = "What is CRISPR?"


def texts(plan) -> list[str]:
    return [sq.text for sq in plan.subquestions]


def test_a_drop_by_number_removes_that_subquestion_and_keeps_the_others() -> None:
    # given a plan of four
    before = plan_extractive(QUESTION)
    # when the analyst asks to drop the third
    revision = revise_plan(QUESTION, before, "Drop sub-question 3, it is off topic.")
    # then exactly it is gone, the others unchanged in order with their queries
    assert revision.dropped == (before.subquestions[2].text,)
    assert revision.plan.subquestions == before.subquestions[:2] + before.subquestions[3:]


def test_a_drop_by_words_removes_the_one_subquestion_it_names() -> None:
    before = plan_extractive(QUESTION)
    revision = revise_plan(QUESTION, before, "Remove the one about recent developments.")
    assert revision.dropped == ("What are the recent developments in CRISPR?",)
    assert "What are the recent developments in CRISPR?" not in texts(revision.plan)
    assert len(revision.plan.subquestions) == len(before.subquestions) - 1


def test_drop_and_add_in_one_feedback_apply_both_and_nothing_is_garbled() -> None:
    before = plan_extractive("Rust vs Go")
    after = plan_extractive(
        "Rust vs Go", feedback="Drop the second one. Also cover hiring costs.", previous=before
    )
    assert texts(after) == [
        texts(before)[0],
        *texts(before)[2:],
        "What is known about hiring costs for Rust and Go?",
    ]
    # the new sub-question searches for what it asks, with the question's options
    assert any("hiring costs" in q and "Rust" in q for q in after.subquestions[-1].queries)
    # and no text carries the asking words of the feedback
    assert not any("drop" in t.lower() or "also" in t.lower() for t in texts(after))


def test_it_adds_nothing_for_an_aspect_a_subquestion_already_asks() -> None:
    before = plan_extractive(QUESTION)
    revision = revise_plan(QUESTION, before, "Please also cover limitations and risks.")
    assert revision.plan == before and revision.added == ()


def test_a_remark_that_is_no_edit_changes_nothing_instead_of_adding_a_sentence() -> None:
    before = plan_extractive(QUESTION)
    revision = revise_plan(QUESTION, before, "The risks are already covered well.")
    assert revision.plan == before


def test_chinese_feedback_drops_by_ordinal_and_adds_a_chinese_subquestion() -> None:
    question = "电动汽车和燃油车的区别"
    before = plan_extractive(question)
    revision = revise_plan(question, before, "删除第2个子问题。需要更多关于电池安全的数据")
    assert revision.dropped == (before.subquestions[1].text,)
    assert texts(revision.plan)[-1] == "电动汽车和燃油车的电池安全如何？"
    assert len(revision.plan.subquestions) == len(before.subquestions)


def _revised_by_model(request) -> dict:
    """What a model following the prompt answers: the previous plan without sub-question 2, plus one."""
    return {
        "intent": "descriptive",
        "subquestions": [
            {"text": "What is CRISPR?", "rationale": "kept", "queries": ["CRISPR"]},
            {"text": "What are the main limitations and risks of CRISPR?", "rationale": "kept",
             "queries": ["CRISPR limitations risks"]},
            {"text": "What patent disputes surround CRISPR?", "rationale": "feedback",
             "queries": ["CRISPR patent disputes"]},
        ],
    }  # fmt: skip


def test_the_model_engine_gets_the_previous_version_and_the_feedback(llm: StubOpenAI) -> None:
    # given the rejected version
    previous = plan_extractive(QUESTION)
    llm.responder = by_stage(plan=_revised_by_model)
    # when the model planner revises it
    plan = make_engine(llm).plan(
        QUESTION, depth="quick", feedback="Drop sub-question 2; add patent disputes.", usage=UsageLog(),
        previous=previous,
    )  # fmt: skip
    # then the prompt numbered the previous version's sub-questions with their queries, and the feedback
    prompt = llm.prompt_text()
    assert "<previous_plan>" in prompt
    for number, sq in enumerate(previous.subquestions, start=1):
        assert f"{number}. {sq.text} (queries: {'; '.join(sq.queries)})" in prompt
    assert "<analyst_feedback>Drop sub-question 2; add patent disputes.</analyst_feedback>" in prompt
    assert "keep every other sub-question exactly as it is" in prompt
    # and the model's revision is the plan
    assert texts(plan)[-1] == "What patent disputes surround CRISPR?"
