"""Plans that read as a person wrote them: a request's own asks and aspects, clean templates, and
comparisons on the dimensions their sources discuss."""

from __future__ import annotations

import pytest

from bench.common import DATA_ROOT
from bench.plan_phrasing import TARGETS, garbled, plan_tally, query_problem
from researchapp.pipeline.collector.dimensions import discussed_dimensions
from researchapp.pipeline.planner.checks import validated_plan
from researchapp.pipeline.planner.extractive import plan_extractive
from researchapp.pipeline.text.question import read_question
from researchapp.pipeline.values import Source

PROMPTS = DATA_ROOT / "questions" / "deepresearch_bench_queries.jsonl"


def texts(question: str, **kwargs) -> list[str]:
    return [sq.text for sq in plan_extractive(question, **kwargs).subquestions]


def test_it_asks_what_a_long_english_request_asks_in_its_own_words() -> None:
    # given a request of a background sentence, two imperatives and a list of aspects
    request = (
        "Parkinson's disease has a profound impact on patients. Summarize the warning signs associated "
        "with its different stages, and explain the role of Deep Brain Stimulation. Cover aspects such as "
        "daily life adjustments, caregiver support, and medication timing."
    )
    # when
    plan = texts(request, depth="deep")
    # then its asks come first, as questions, then the aspects it lists; the background asks nothing
    assert plan[:2] == [
        "What are the warning signs associated with its different stages?",
        "What is the role of Deep Brain Stimulation?",
    ]
    assert "What is known about caregiver support?" in plan
    assert not any("Parkinson's disease has a profound impact" in text for text in plan)
    assert all(not garbled(text, request) for text in plan)


def test_it_asks_what_a_chinese_request_asks_and_compares_on_the_dimensions_it_lists() -> None:
    # given a Chinese request that lists what to compare the insurers on
    request = (
        "收集整理目前国际综合实力前十的保险公司的相关资料，横向比较各公司的融资情况、信誉度、实际分红等维度"
    )
    # when
    plan = texts(request)
    # then each listed dimension is asked about the request's topic, in Chinese
    assert "国际综合实力前十的保险公司的融资情况如何？" in plan
    assert "国际综合实力前十的保险公司的信誉度如何？" in plan
    assert not any("收集整理" in text for text in plan)


def test_it_never_wraps_a_template_around_a_sentence() -> None:
    # when a short question has no noun phrase for a template to name
    question = "From 1945-1949 Dick Humbert played for an NFL team based in what state?"
    plan = texts(question)
    # then it is asked as it is, with what is known about each name, and bare follow-ups
    assert plan[:3] == [question, "What is known about Dick Humbert?", "What is known about NFL?"]
    assert not any("about From" in text for text in plan)
    # and the name's sub-question searches for the name first
    assert plan_extractive(question).subquestions[1].queries[0] == "Dick Humbert"


def test_the_oddity_reader_catches_what_the_old_templates_wrote() -> None:
    # the first round's templates, as the issue quotes them
    question = "Summarize the global investments of consulting firms in AI."
    assert garbled(f"What are the key facts and figures about {question}", question)
    assert garbled("What are the key facts and figures about From 1945-1949 Dick Humbert played?", "x")
    assert garbled("收集整理中国的中产有哪些特点有哪些关键事实和数据？", "x")
    assert query_problem("SELECT * FROM pg_stat_replication") == "code"
    assert query_problem("what is the default port of postgresql") == "a question word"
    assert not query_problem("PostgreSQL default port")


def test_it_compares_on_the_dimensions_its_sources_discuss_after_the_criterion_it_names() -> None:
    # given pages that speak to the batteries' prices and market shares, and nothing of risks
    question = "Compare the Kestrel battery and the Osprey battery, including their fire safety"
    sources = [
        Source(
            1,
            "https://a.example/1",
            "Prices",
            "The Kestrel battery costs 4,200 euros. The Osprey costs 5,100 euros.",
        ),
        Source(
            2,
            "https://a.example/2",
            "Market",
            "The Osprey battery held 18 percent of the market share in 2025.",
        ),
    ]
    # when
    dimensions = discussed_dimensions(question, sources)
    plan = texts(question, dimensions=dimensions)
    # then the plan asks the named criterion first, then the discussed dimensions, never risks
    assert read_question(question).criterion == "fire safety"
    assert dimensions[:2] == ("cost", "adoption")
    assert plan[0] == "How do the Kestrel battery and the Osprey battery differ in fire safety?"
    assert plan[1:3] == [
        "How do the Kestrel battery and the Osprey battery differ in cost?",
        "How do the Kestrel battery and the Osprey battery differ in adoption and popularity?",
    ]
    assert not any("risks" in text for text in plan)
    # and without sources to tell, the default dimensions stand
    assert "risks" in " ".join(texts("Compare the Kestrel battery and the Osprey battery", depth="deep"))


@pytest.mark.skipif(not PROMPTS.exists(), reason="no DeepResearch Bench prompts in ../shared/data")
def test_it_plans_every_deepresearch_bench_prompt_without_an_oddity() -> None:
    # when every one of the 100 prompts is planned, quick and deep
    tally = plan_tally(PROMPTS)
    # then no sub-question has a garbled subject, no plan repeats itself, every query is keywords
    for kind in TARGETS:
        assert tally.counts.get(kind, 0) == 0, (kind, tally.examples.get(kind))
    assert tally.plans == 200 and tally.subquestions >= 600


@pytest.mark.parametrize(
    "question",
    [
        "What are the health effects of microplastics?",
        "收集整理有关孩子身心健康成长的相关资料，比如怎样合理安排学习、生活、兴趣爱好",
        "Write a paper on Middle Eastern and North African Films with Transgender Themes.",
    ],
)
def test_every_plan_it_draws_passes_the_plan_checks_unchanged(question: str) -> None:
    plan = plan_extractive(question)
    assert validated_plan(plan, plan) == plan
