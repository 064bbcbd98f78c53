"""The model's plan is the plan when it is usable (issue 17.5): a small model's short plan is kept
and topped up, its filler sub-questions dropped by the plan validator, never replaced whole by
the template."""

from __future__ import annotations

from pathlib import Path

import pytest

from researchapp.services.corpus import corpus_import
from researchapp.services.dispatch import inline
from researchapp.services.stages import stage_plan
from researchapp.services.submission import task_submit
from tests.model_stages import KEY
from tests.stubs.openai_api import by_stage

pytestmark = pytest.mark.django_db
FIXTURES = Path(__file__).parent / "fixtures"
QUESTION = "How tall is the Greywater Point lighthouse?"


def _plan_of(owner, llm, settings, answer: dict):
    settings.RESEARCH = {**settings.RESEARCH, "OPENAI_API_KEY": KEY, "OPENAI_BASE_URL": llm.base_url}
    llm.responder = by_stage(plan=answer)
    corpus = corpus_import(path=FIXTURES / "pages").corpus
    with inline():  # the stages run by hand
        task = task_submit(owner=owner, question=QUESTION, corpus=corpus, engine="openai")
    stage_plan(task)
    return task.plans.get(version=1)


def test_a_short_model_plan_with_filler_is_kept_and_topped_up(researcher, llm, settings):
    # given a small model's plan: one sub-question of the question's own, and a template filler
    measured = "How was the height of the Greywater Point lighthouse measured?"
    answer = {"intent": "descriptive", "subquestions": [
        {"text": measured, "rationale": "r", "queries": ["Greywater Point lighthouse measured height"]},
        {"text": "Which facts and figures bear on this?", "rationale": "r", "queries": ["facts"]},
    ]}  # fmt: skip
    # when the plan stage runs
    plan = _plan_of(researcher, llm, settings, answer)
    texts = list(plan.subquestions.order_by("order").values_list("text", flat=True))
    # then the model's plan is the plan: its own sub-questions first, in order, asked once
    assert plan.engine == "openai" and not plan.engine_note
    assert texts[0] == measured
    assert len(llm.chats) == 1
    # and the filler is gone; the template only tops it up to three
    assert 3 <= len(texts) <= 6
    assert not any("facts and figures" in t for t in texts)


def test_a_model_plan_of_filler_only_is_asked_again_then_the_template_stands_in(researcher, llm, settings):
    # given a model whose every answer is blank sub-questions
    answer = {"intent": "descriptive", "subquestions": [{"text": "", "rationale": "", "queries": ["x"]}]}
    # when
    plan = _plan_of(researcher, llm, settings, answer)
    # then the answer was rejected twice, and the template plan says so
    assert len(llm.chats) == 2
    assert plan.engine == "extractive" and "rejected twice" in plan.engine_note
