"""The extractive planner: intents, dimension sub-questions, queries with key terms, feedback."""

from __future__ import annotations

import pytest

from researchapp.core.enums import Intent
from researchapp.pipeline.planner.extractive import plan_extractive
from researchapp.pipeline.text.question import read_question
from researchapp.pipeline.values import Plan


def all_queries(plan: Plan) -> list[str]:
    return [query for sq in plan.subquestions for query in sq.queries]


@pytest.mark.parametrize(
    ("question", "options"),
    [
        ("PostgreSQL vs MySQL for analytics?", ("PostgreSQL", "MySQL")),
        ("Heat pumps versus gas boilers", ("Heat pumps", "gas boilers")),
        ("Compare solar and wind power", ("solar", "wind power")),
        ("What is the difference between Rust and Go?", ("Rust", "Go")),
        ("Should I use PostgreSQL or MySQL for analytics?", ("PostgreSQL", "MySQL")),
        ("Which is better, Rust or Go?", ("Rust", "Go")),
        ("电动汽车和燃油车的区别", ("电动汽车", "燃油车")),
        ("对比PostgreSQL与MySQL", ("PostgreSQL", "MySQL")),
        ("比较一下苹果和三星手机的电池续航", ("苹果", "三星手机")),
        ("特斯拉与比亚迪哪个好？", ("特斯拉", "比亚迪")),
    ],
)
def test_it_recognises_comparative_questions_and_their_options(
    question: str, options: tuple[str, ...]
) -> None:
    # when
    reading = read_question(question)
    # then
    assert reading.intent is Intent.COMPARATIVE
    assert reading.options == options


def test_it_gives_a_comparison_dimension_subquestions_not_one_per_option() -> None:
    # when
    plan = plan_extractive("PostgreSQL vs MySQL for analytics?")
    texts = [sq.text for sq in plan.subquestions]
    # then every sub-question names both options and a dimension of difference
    assert plan.intent is Intent.COMPARATIVE
    assert all("PostgreSQL" in text and "MySQL" in text for text in texts)
    assert texts[0] == "How do PostgreSQL and MySQL differ in cost for analytics?"
    assert any("performance" in text for text in texts)
    assert any("risks" in text for text in texts)
    # and every query carries the question's context; the first sets both options side by side
    # and the others name one option each, to find pages about that option alone
    assert all("analytics" in q for q in all_queries(plan))
    for sq in plan.subquestions:
        first, *others = sq.queries
        assert "PostgreSQL vs MySQL" in first
        assert [("PostgreSQL" in q, "MySQL" in q) for q in others] == [(True, False), (False, True)]


def test_it_asks_chinese_comparisons_in_chinese() -> None:
    # when
    plan = plan_extractive("电动汽车和燃油车有什么区别？")
    # then
    assert plan.intent is Intent.COMPARATIVE
    assert plan.subquestions[0].text == "电动汽车和燃油车在成本方面有何不同？"
    assert all("电动汽车 燃油车" in sq.queries[0] for sq in plan.subquestions)
    assert all(any("燃油车" in q and "电动汽车" not in q for q in sq.queries) for sq in plan.subquestions)


def test_it_does_not_treat_an_either_or_idiom_as_a_comparison() -> None:
    assert read_question("Is coffee good or bad for your health?").intent is not Intent.COMPARATIVE


@pytest.mark.parametrize(
    "question",
    [
        "Should we adopt Kubernetes for a small team?",
        "What is the best database for analytics?",
        "Which laptop should I buy for programming?",
        "推荐一款适合编程的笔记本电脑",
        "小团队应该使用Kubernetes吗？",
    ],
)
def test_it_recognises_recommendation_questions(question: str) -> None:
    assert plan_extractive(question).intent is Intent.RECOMMENDATION


def test_it_plans_a_descriptive_question_from_the_question_itself_and_its_facets() -> None:
    # when
    plan = plan_extractive("What are the health effects of microplastics?")
    # then
    assert plan.intent is Intent.DESCRIPTIVE
    assert plan.subquestions[0].text == "What are the health effects of microplastics?"
    assert [sq.text for sq in plan.subquestions[1:]] == [
        "What are the key facts and figures about health effects of microplastics?",
        "What are the recent developments in health effects of microplastics?",
        "What are the main limitations and risks of health effects of microplastics?",
    ]
    assert all("microplastics" in q and "health" in q for q in all_queries(plan))


def test_it_plans_chinese_questions_in_chinese() -> None:
    # when
    plan = plan_extractive("中国电动汽车市场的现状是什么？")
    # then
    assert plan.intent is Intent.DESCRIPTIVE
    assert plan.subquestions[1].text == "中国电动汽车市场的现状有哪些关键事实和数据？"
    # and every query carries the question's content words as words, without its function words
    assert all({"中国", "电动汽车", "市场", "现状"} <= set(q.split()) for q in all_queries(plan))
    assert not any("的" in q for q in all_queries(plan))


@pytest.mark.parametrize("question", ["Rust vs Go", "What is CRISPR?", "Should we adopt Kubernetes?"])
def test_it_plans_more_subquestions_for_deep_research_within_bounds(question: str) -> None:
    # when
    quick = plan_extractive(question, depth="quick")
    deep = plan_extractive(question, depth="deep")
    # then
    assert 3 <= len(quick.subquestions) < len(deep.subquestions) <= 6
    for plan in (quick, deep):
        assert all(1 <= len(sq.queries) <= 3 for sq in plan.subquestions)
        assert all(sq.rationale for sq in plan.subquestions)


def test_it_turns_rejection_feedback_into_a_well_formed_subquestion_keeping_the_rest() -> None:
    # given the plan before feedback
    before = plan_extractive("Rust vs Go")
    # when an analyst rejects it asking for something else
    after = plan_extractive("Rust vs Go", feedback="Please focus more on memory safety and hiring costs")
    # then the earlier sub-questions stay as they were and one well-formed sub-question is added
    assert after.subquestions[:-1] == before.subquestions
    assert (
        after.subquestions[-1].text == "What is known about memory safety and hiring costs for Rust and Go?"
    )
    assert "Please focus more on memory safety" in after.subquestions[-1].rationale
    assert all("memory safety hiring costs" in q for q in after.subquestions[-1].queries)


def test_it_honours_feedback_on_a_full_deep_plan_without_exceeding_six() -> None:
    # when
    plan = plan_extractive("Rust vs Go", depth="deep", feedback="licensing")
    # then
    assert len(plan.subquestions) == 6
    assert "licensing" in plan.subquestions[-1].text


def test_it_turns_chinese_feedback_into_a_chinese_subquestion() -> None:
    # when
    plan = plan_extractive("电动汽车和燃油车的区别", feedback="需要更多关于电池安全的数据")
    # then
    assert plan.subquestions[-1].text == "电动汽车和燃油车的电池安全如何？"


def test_it_is_deterministic() -> None:
    assert plan_extractive("Rust vs Go", depth="deep") == plan_extractive("Rust vs Go", depth="deep")


@pytest.mark.parametrize("question", ["", "   ", "\n\t"])
def test_it_refuses_an_empty_question(question: str) -> None:
    with pytest.raises(ValueError, match="empty"):
        plan_extractive(question)


@pytest.mark.parametrize(
    ("question", "subject"),
    [
        (
            "When was the Greywater Point lighthouse built and how tall is it?",
            "the Greywater Point lighthouse",
        ),
        ("How tall is the Greywater Point lighthouse?", "the Greywater Point lighthouse"),
        (
            "What is the mating season of the Patagonian toothfish?",
            "the mating season of the Patagonian toothfish",
        ),
        ("Where was Barack Obama born?", "Barack Obama"),
        ("Why do cats purr?", "cats"),
        ("What does CRISPR stand for?", "CRISPR"),
        ("What are the health effects of microplastics?", "health effects of microplastics"),
    ],
)
def test_it_reads_the_noun_phrase_a_question_is_about(question: str, subject: str) -> None:
    assert read_question(question).subject == subject


def test_it_fills_templates_with_the_subject_but_searches_with_every_key_term() -> None:
    # when
    plan = plan_extractive("When was the Greywater Point lighthouse built and how tall is it?")
    # then the plan asks about the name and the question's own facets, no template filler
    texts = [sq.text for sq in plan.subquestions]
    assert texts[1:] == ["What did it add or change?", "What was the case before?"]
    assert not any("facts and figures" in text or "recent developments" in text for text in texts)
    # and the queries still carry what the question asks
    assert all("built" in q and "tall" in q for q in all_queries(plan))


def test_it_asks_a_comparison_that_names_its_own_criterion_as_asked_and_about_each_option() -> None:
    # when
    criterion = plan_extractive("Which band was formed first, The Exies or Circus Diablo?")
    bare = plan_extractive("Compare the Kestrel home battery and the Osprey home battery")
    # then the question is asked as it is, and each option's own pages are asked for, not its cost
    texts = [sq.text for sq in criterion.subquestions]
    assert texts[0] == "Which band was formed first, The Exies or Circus Diablo?"
    assert texts[1:3] == ["What is known about the Exies?", "What is known about Circus Diablo?"]
    assert criterion.subquestions[2].queries[0] == "Circus Diablo"
    assert not any("cost" in text for text in texts)
    # and a bare comparison, with no sources to tell, asks about the default dimensions
    assert "differ in cost" in bare.subquestions[0].text
    assert 3 <= len(plan_extractive(texts[0], depth="deep").subquestions) <= 6
