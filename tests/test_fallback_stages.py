"""A model stage's stand-in: the template planner and the extractive writer do a piece of work only
when the model's answer was rejected twice, and say why; any other failure is the model's to raise.
The real ``openai`` SDK against the stub chat API on 127.0.0.1."""

from __future__ import annotations

import pytest

from researchapp.core.enums import FindingStatus, Resolution, Stance
from researchapp.pipeline.planner.extractive import ExtractivePlanner, plan_extractive
from researchapp.pipeline.planner.fallback import FallbackPlanner
from researchapp.pipeline.values import Brief, Evidence, EvidenceLink, ReviewedFinding, SubQuestion, UsageLog
from researchapp.pipeline.writer.extractive import ExtractiveWriter, write_extractive
from researchapp.pipeline.writer.fallback import FallbackWriter
from researchapp.providers.base import ProviderError
from tests.model_stages import make_engine
from tests.stubs.openai_api import Failure, StubOpenAI, by_stage

QUESTION = "Solar panels versus heat pumps for a terraced house?"
NOT_JSON = "Sure! Here is the plan you asked for."
EFFICIENCY = SubQuestion(id=7, text="How efficient are heat pumps?", queries=("heat pump COP",), order=0)
COP = Evidence(
    id=12, source_id=120, subquestion_id=7, start=0, end=51, score=1.0,
    quote="The survey measured a seasonal COP of 3.2 in 2023.", source_url="https://s12.example/",
)  # fmt: skip
SUPPORTED = ReviewedFinding(
    id=1, subquestion_id=7, status=FindingStatus.SUPPORTED, statement=COP.quote, confidence="medium",
    resolution=Resolution.NONE, links=(EvidenceLink(12, Stance.SUPPORTS),), evidence=(COP,),
)  # fmt: skip
BRIEF = Brief("How efficient are heat pumps?", (EFFICIENCY,), (SUPPORTED,))


def fallback_planner(llm: StubOpenAI) -> FallbackPlanner:
    return FallbackPlanner(make_engine(llm).planner, ExtractivePlanner())


def test_the_template_planner_drafts_the_plan_the_model_could_not_and_says_why(llm: StubOpenAI) -> None:
    # given a model whose plan is not JSON, twice
    llm.responder = by_stage(plan=NOT_JSON)
    planner = fallback_planner(llm)
    usage = UsageLog()
    # when
    plan = planner.plan(QUESTION, depth="quick", usage=usage)
    # then the template plan stands in, named as such, with the reason the model's was rejected
    assert plan == plan_extractive(QUESTION, depth="quick")
    assert planner.name == ExtractivePlanner.name and planner.fallback_reason
    assert planner.note == (
        "The model's plan was rejected twice, so the template planner drafted this one: "
        + planner.fallback_reason
    )
    # and both rejected answers are on the record
    assert [(call.stage, call.ok) for call in usage.calls] == [("plan", False), ("plan", False)]


def test_the_models_plan_stands_when_it_is_accepted_even_after_an_earlier_fallback(llm: StubOpenAI) -> None:
    # given a planner that fell back once
    planner = fallback_planner(llm)
    llm.responder = by_stage(plan=NOT_JSON)
    planner.plan(QUESTION, depth="quick", usage=UsageLog())
    # when the model answers well the next time
    llm.responder = by_stage()
    plan = planner.plan(QUESTION, depth="quick", usage=UsageLog())
    # then its plan stands, and nothing says otherwise
    assert (planner.name, planner.note, planner.fallback_reason) == ("openai", "", "")
    assert plan != plan_extractive(QUESTION, depth="quick") and plan.subquestions


def test_the_planner_does_not_stand_in_for_a_model_that_failed_otherwise(llm: StubOpenAI) -> None:
    # given an account without credit
    llm.fail_next(Failure.http(429, "You exceeded your current quota", code="insufficient_quota"))
    # when / then the error is the model's, and no plan is made
    with pytest.raises(ProviderError) as raised:
        fallback_planner(llm).plan(QUESTION, depth="quick", usage=UsageLog())
    assert raised.value.code == "quota_exceeded"


def test_the_extractive_writer_writes_the_draft_the_model_could_not_and_says_why(llm: StubOpenAI) -> None:
    # given a model whose draft is not JSON, twice
    llm.responder = by_stage(write=NOT_JSON)
    writer = FallbackWriter(make_engine(llm).writer, ExtractiveWriter())
    # when
    draft = writer.write(BRIEF, usage=UsageLog())
    # then the extractive draft stands in, named as such, with the reason
    assert draft == write_extractive(BRIEF.question, BRIEF.subquestions, BRIEF.findings)
    assert writer.name == ExtractiveWriter.name and writer.fallback_reason
    assert writer.note == (
        "The model's draft was rejected twice, so the extractive writer wrote this one: "
        + writer.fallback_reason
    )


def test_the_models_draft_stands_when_it_is_accepted(llm: StubOpenAI) -> None:
    writer = FallbackWriter(make_engine(llm).writer, ExtractiveWriter())
    draft = writer.write(BRIEF, usage=UsageLog())
    assert (writer.name, writer.note) == ("openai", "")
    assert draft.claims and len(llm.chats) == 1
