"""Reject with feedback, through the gate and the plan stage, in both engines: the next version
is the rejected one with the feedback applied (the issue saw every sub-question kept and a garbled
one appended)."""

from __future__ import annotations

from pathlib import Path

import pytest
from django.conf import settings as django_settings
from django.urls import reverse

from researchapp.core.messages import english
from researchapp.models import Plan, ResearchTask
from researchapp.services.corpus import corpus_import
from researchapp.services.dispatch import inline
from researchapp.services.stages import stage_plan
from researchapp.services.submission import task_submit
from reviews.services import plan_decide
from tests.helpers import client_for
from tests.model_stages import KEY
from tests.stubs.openai_api import by_stage

pytestmark = pytest.mark.django_db
FIXTURES = Path(__file__).parent / "fixtures"
Status = ResearchTask.Status
QUESTION = "How tall is the Greywater Point lighthouse?"


def _submitted(owner, **fields) -> ResearchTask:
    corpus = corpus_import(path=FIXTURES / "pages").corpus
    with inline():  # the stages run by hand below
        return task_submit(owner=owner, question=QUESTION, corpus=corpus, **fields)


def _texts(plan: Plan) -> list[str]:
    return list(plan.subquestions.order_by("order").values_list("text", flat=True))


def _reject(task: ResearchTask, analyst, feedback: str) -> Plan:
    first = task.plans.get(version=1)
    with inline():
        plan_decide(plan=first, actor=analyst, decision="reject", version_seen=1, note=feedback)
    task.refresh_from_db()
    assert task.status == Status.PLANNING
    stage_plan(task)
    task.refresh_from_db()
    return task.plans.get(version=2)


def test_the_extractive_engine_applies_the_feedback_to_the_rejected_version(researcher, analyst):
    # given the first version at the gate
    task = _submitted(researcher)
    stage_plan(task)
    first = _texts(task.plans.get(version=1))
    assert len(first) >= 3
    # when the analyst rejects it: drop the second sub-question, ask for the keeper's history
    second = _reject(task, analyst, "Drop sub-question 2. Please add the history of its keepers.")
    # then v2 is v1 without its second sub-question, plus one well-formed sub-question
    assert task.status == Status.AWAITING_PLAN_REVIEW
    texts = _texts(second)
    assert texts[:-1] == [first[0], *first[2:]]
    assert texts[-1] == "What is known about history of its keepers for the Greywater Point lighthouse?"
    assert all(sq.queries for sq in second.subquestions.all())
    assert second.engine == "extractive" and not second.engine_note


def _gate_page(user, task: ResearchTask, language: str) -> str:
    client = client_for(user)
    client.cookies[django_settings.LANGUAGE_COOKIE_NAME] = language
    page = client.get(reverse("plan_review", args=[task.pk]))
    assert page.status_code == 200
    return page.content.decode()


def test_the_gate_lists_each_edit_of_the_feedback_applied_or_not_understood(researcher, analyst):
    # given the first version at the gate
    task = _submitted(researcher)
    stage_plan(task)
    first = _texts(task.plans.get(version=1))
    # when the analyst rejects it with two edits in one sentence and a remark the desk cannot act on
    second = _reject(
        task, analyst, "Drop sub-question 2 and add the history of its keepers. Make it punchier."
    )
    # then both edits are in v2
    added = "What is known about history of its keepers for the Greywater Point lighthouse?"
    assert _texts(second) == [first[0], *first[2:], added]
    # and the gate says what was applied and what was not understood, in English ...
    english = _gate_page(analyst, task, "en")
    assert "What the feedback on v1 changed" in english
    assert f"Applied: dropped sub-question 2, “{first[1]}”." in english
    assert f"Applied: added “{added}” for “add the history of its keepers”." in english
    assert "Not understood, so not applied: “Make it punchier”." in english
    # ... and in Chinese, the analyst's words and the sub-questions quoted as written
    chinese = _gate_page(analyst, task, "zh-hans")
    assert "反馈对 v1 的修改" in chinese
    assert f"已执行：删除了第 2 个子问题“{first[1]}”。" in chinese
    assert f"已执行：为“add the history of its keepers”添加了“{added}”。" in chinese
    assert "未能理解，因此未执行：“Make it punchier”。" in chinese
    assert "Applied:" not in chinese and "Not understood" not in chinese


def test_the_extractive_engine_says_so_when_the_feedback_names_no_edit(researcher, analyst):
    task = _submitted(researcher)
    stage_plan(task)
    first = _texts(task.plans.get(version=1))
    second = _reject(task, analyst, "Looks too generic to me.")
    assert _texts(second) == first
    page = _gate_page(analyst, task, "en")
    assert "Not understood, so not applied: “Looks too generic to me”." in page
    assert "this version is the rejected one unchanged" in page


def test_the_model_engine_revises_the_version_it_is_shown(researcher, analyst, llm, settings):
    # given the model engine on the stub chat server
    settings.RESEARCH = {**settings.RESEARCH, "OPENAI_API_KEY": KEY, "OPENAI_BASE_URL": llm.base_url}
    task = _submitted(researcher, engine="openai")
    stage_plan(task)
    first = _texts(task.plans.get(version=1))
    revised = [first[0], *first[2:], "Who kept the Greywater Point lighthouse, and when?"]

    def revision(request) -> dict:
        return {
            "intent": "descriptive",
            "subquestions": [
                {"text": text, "rationale": "r", "queries": [f"Greywater Point lighthouse {i}"]}
                for i, text in enumerate(revised)
            ],
        }

    llm.responder = by_stage(plan=revision)
    # when the analyst rejects v1 with feedback
    second = _reject(task, analyst, "Drop sub-question 2; add who kept the lighthouse.")
    # then the model was shown v1, numbered, and the feedback
    prompt = llm.prompt_text()
    assert "<previous_plan>" in prompt
    for number, text in enumerate(first, start=1):
        assert f"{number}. {text} (queries:" in prompt
    assert "<analyst_feedback>Drop sub-question 2; add who kept the lighthouse.</analyst_feedback>" in prompt
    # and v2 is its revision, each edit of the feedback checked against it
    assert _texts(second) == revised
    assert second.engine == "openai"
    assert [english(note) for note in second.revision_notes] == [
        f"Applied: dropped sub-question 2, “{first[1]}”.",
        f"Applied: added “{revised[-1]}” for “add who kept the lighthouse”.",
    ]


def test_the_model_engine_through_the_stubs_default_answers_drops_and_adds(
    researcher, analyst, llm, settings
):
    # given the model engine, the stub answering as a model that follows the revision prompt
    settings.RESEARCH = {**settings.RESEARCH, "OPENAI_API_KEY": KEY, "OPENAI_BASE_URL": llm.base_url}
    task = _submitted(researcher, engine="openai")
    stage_plan(task)
    first = _texts(task.plans.get(version=1))
    # when the analyst drops the second sub-question and asks for the keepers
    second = _reject(task, analyst, "Drop sub-question 2. Add the keepers of the lighthouse.")
    # then v2 is v1 without it, plus the asked-for sub-question
    assert _texts(second) == [first[0], *first[2:], "What is known about keepers of the lighthouse?"]
