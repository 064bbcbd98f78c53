"""A rejected plan's next version is that version with the analyst's feedback applied as edits.

The issue saw a rejection keep every sub-question and append a garbled one ("What does the
evidence say about please drop the third for ...?"). Here: drops remove what they name, asks add a
well-formed sub-question, the rest stays; with the model engine the previous version and the
feedback go into the prompt.
"""

from __future__ import annotations

import pytest

from researchapp.core.messages import english
from researchapp.pipeline.planner.extractive import plan_extractive
from researchapp.pipeline.planner.feedback import feedback_clauses, read_feedback
from researchapp.pipeline.planner.feedback_notes import feedback_notes
from researchapp.pipeline.planner.revise import revise_plan
from researchapp.pipeline.text.question import read_question
from researchapp.pipeline.values import Plan, UsageLog
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


# --- feedback of several edits: each one applied, or listed as not understood -------------------------


def notes_for(question: str, before: Plan, feedback: str, after: Plan, *, by_rules: bool = True) -> list[str]:
    reading = read_question(question)
    edits = read_feedback(reading, before, feedback)
    return [english(note) for note in feedback_notes(reading, before, edits, after, by_rules=by_rules)]


@pytest.mark.parametrize(
    ("feedback", "clauses"),
    [
        ("Drop sub-question 2 and add hiring costs", ["Drop sub-question 2", "add hiring costs"]),
        ("Remove #3, then cover hiring costs", ["Remove #3", "cover hiring costs"]),
        (
            "Drop No. 3, it is off topic; add patent disputes",
            ["Drop No. 3, it is off topic", "add patent disputes"],
        ),
        ("Please also cover limitations and risks.", ["Please also cover limitations and risks"]),
        ("Add hiring costs and also drop the last one.", ["Add hiring costs", "drop the last one"]),
        ("删除第2个子问题，并增加招聘成本", ["删除第2个子问题", "增加招聘成本"]),
        ("删除第2个子问题；然后补充充电时间", ["删除第2个子问题", "补充充电时间"]),
        (
            "去掉最后一个，以及添加维修成本。这个计划太笼统了",
            ["去掉最后一个", "添加维修成本", "这个计划太笼统了"],
        ),
        ("需要更多关于电池安全以及充电时间的数据", ["需要更多关于电池安全以及充电时间的数据"]),
    ],
)
def test_feedback_is_cut_into_one_clause_per_edit_in_either_language(feedback, clauses) -> None:
    assert feedback_clauses(feedback) == clauses


def test_the_issues_feedback_drops_and_adds_in_one_sentence() -> None:
    # given the plan of a comparison
    before = plan_extractive("Rust vs Go")
    # when the analyst writes both edits in one sentence (the issue saw only the drop applied)
    feedback = "Drop sub-question 2 and add hiring costs"
    revision = revise_plan("Rust vs Go", before, feedback)
    # then both are applied
    assert revision.dropped == (before.subquestions[1].text,)
    assert texts(revision.plan) == [
        texts(before)[0],
        *texts(before)[2:],
        "What is known about hiring costs for Rust and Go?",
    ]
    # and the notes say so, edit by edit
    assert notes_for("Rust vs Go", before, feedback, revision.plan) == [
        f"Applied: dropped sub-question 2, “{before.subquestions[1].text}”.",
        "Applied: added “What is known about hiring costs for Rust and Go?” for “add hiring costs”.",
    ]


def test_several_drops_are_numbered_as_the_analyst_read_them() -> None:
    # given four sub-questions
    before = plan_extractive("Rust vs Go")
    # when two are dropped in one clause and one more in another, then two aspects are asked
    feedback = (
        "Drop sub-questions 2 and 3. Remove sub-question 4, then add hiring costs and also cover training."
    )
    revision = revise_plan("Rust vs Go", before, feedback)
    # then the numbers are those of the version read (not shifted by the first drop)
    assert revision.dropped == tuple(sq.text for sq in before.subquestions[1:4])
    assert texts(revision.plan) == [
        texts(before)[0],
        "What is known about hiring costs for Rust and Go?",
        "What is known about training for Rust and Go?",
    ]
    notes = notes_for("Rust vs Go", before, feedback, revision.plan)
    assert [note.split(",")[0] for note in notes[:3]] == [
        f"Applied: dropped sub-question {n}" for n in (2, 3, 4)
    ]
    assert notes[3:] == [
        "Applied: added “What is known about hiring costs for Rust and Go?” for “add hiring costs”.",
        "Applied: added “What is known about training for Rust and Go?” for “cover training”.",
    ]


def test_what_is_not_understood_is_listed_and_the_rest_applied() -> None:
    before = plan_extractive(QUESTION)
    feedback = (
        "Remove sub-question 9 and add patent disputes. Looks too generic to me. Drop the one about bananas."
    )
    revision = revise_plan(QUESTION, before, feedback)
    # the one edit it could read is applied
    assert texts(revision.plan) == [*texts(before), "What is known about patent disputes for CRISPR?"]
    # and every other clause is named, with why
    assert notes_for(QUESTION, before, feedback, revision.plan) == [
        "Not applied: “Remove sub-question 9” names sub-question 9, and the plan has no such sub-question.",
        "Applied: added “What is known about patent disputes for CRISPR?” for “add patent disputes”.",
        "Not understood, so not applied: “Looks too generic to me”.",
        "Not understood: “Drop the one about bananas” names no one sub-question clearly, "
        "so nothing was dropped.",
    ]


def test_a_replacement_drops_and_adds() -> None:
    before = plan_extractive(QUESTION)
    revision = revise_plan(QUESTION, before, "Replace sub-question 1 with patent disputes")
    assert texts(revision.plan) == [*texts(before)[1:], "What is known about patent disputes for CRISPR?"]


def test_an_aspect_already_asked_and_an_unchanged_plan_are_said() -> None:
    before = plan_extractive(QUESTION)
    feedback = "Please also cover limitations and risks."
    revision = revise_plan(QUESTION, before, feedback)
    assert notes_for(QUESTION, before, feedback, revision.plan) == [
        "Nothing added for “Please also cover limitations and risks”: sub-question 4 already asks about it.",
        "Nothing in the feedback changed the plan, "
        "so this version is the rejected one unchanged: edit it here.",
    ]


def test_chinese_feedback_of_several_edits_applies_each() -> None:
    question = "电动汽车和燃油车的区别"
    before = plan_extractive(question)
    feedback = "删除第2和第3个子问题；需要更多关于电池安全的数据，然后补充充电时间。这个计划太笼统了"
    revision = revise_plan(question, before, feedback)
    assert texts(revision.plan) == [
        texts(before)[0],
        *texts(before)[3:],
        "电动汽车和燃油车的电池安全如何？",
        "电动汽车和燃油车的充电时间如何？",
    ]
    notes = notes_for(question, before, feedback, revision.plan)
    assert notes == [
        f"Applied: dropped sub-question 2, “{texts(before)[1]}”.",
        f"Applied: dropped sub-question 3, “{texts(before)[2]}”.",
        "Applied: added “电动汽车和燃油车的电池安全如何？” for “需要更多关于电池安全的数据”.",
        "Applied: added “电动汽车和燃油车的充电时间如何？” for “补充充电时间”.",
        "Not understood, so not applied: “这个计划太笼统了”.",
    ]


def test_a_chinese_drop_and_add_in_one_sentence_and_the_last_one() -> None:
    question = "电动汽车和燃油车的区别"
    before = plan_extractive(question)
    revision = revise_plan(question, before, "去掉最后一个，并增加维修成本")
    assert texts(revision.plan) == [*texts(before)[:-1], "电动汽车和燃油车的维修成本如何？"]


def test_additions_past_six_leave_out_the_planners_last_ones_and_say_so() -> None:
    before = plan_extractive(QUESTION)  # four
    feedback = "Add patent disputes. Add funding. Add ethics boards."
    revision = revise_plan(QUESTION, before, feedback)
    assert len(revision.plan.subquestions) == 6
    notes = notes_for(QUESTION, before, feedback, revision.plan)
    assert notes[-1] == (f"Left out to keep six sub-questions at most: sub-question 4, “{texts(before)[3]}”.")


def test_a_models_revision_is_checked_edit_by_edit() -> None:
    # given a model that dropped what it was asked to but added nothing, and a clause the desk cannot read
    before = plan_extractive(QUESTION)
    after = Plan(before.intent, before.subquestions[:1] + before.subquestions[2:])
    feedback = "Drop sub-question 2 and add patent disputes. Make it punchier"
    notes = notes_for(QUESTION, before, feedback, after, by_rules=False)
    assert notes == [
        f"Applied: dropped sub-question 2, “{texts(before)[1]}”.",
        "Not applied: no sub-question was added for “add patent disputes”.",
        "Not read as an edit by the desk: “Make it punchier”. "
        "The model was given it; check the changes below.",
    ]


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
