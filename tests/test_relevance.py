"""Relevance, bridge hops, plan checks and the model exchange's bounds: pure functions, no database."""

from __future__ import annotations

import json

import pytest

from researchapp.core.enums import Intent
from researchapp.pipeline.analyser.model import analyse_schema
from researchapp.pipeline.collector.hops import bridge_queries, select_with_hops
from researchapp.pipeline.collector.passages import select_passages
from researchapp.pipeline.planner.checks import reads_as_code, validated_plan
from researchapp.pipeline.planner.extractive import plan_extractive
from researchapp.pipeline.text.entities import name_phrases
from researchapp.pipeline.text.salience import asked_for, asked_of
from researchapp.pipeline.text.support import support_problem
from researchapp.pipeline.values import Plan, PlannedSubQuestion, Source, SubQuestion, UsageLog
from researchapp.providers.base import ProviderError
from tests.model_stages import make_engine
from tests.stubs.openai_api import StubOpenAI, by_stage


def source(source_id: int, text: str, title: str = "") -> Source:
    return Source(source_id, f"https://s{source_id}.example/", title, text, cluster=f"c{source_id}")


BATTERIES = [
    source(1, "The Kestrel home battery costs 4,200 euros before installation, the maker says."),
    source(2, "The Osprey home battery stores 10 kWh and costs 5,100 euros in its standard configuration."),
    source(3, "Home batteries were installed in record numbers in 2025, driven by solar panels on houses."),
]


def test_it_keeps_no_passage_that_misses_the_questions_subject() -> None:
    # given pages about batteries, and a question about databases
    question = "Compare PostgreSQL and MySQL replication"
    subquestion = SubQuestion(
        1, "How do PostgreSQL and MySQL replication differ in cost?", ("PostgreSQL cost",)
    )
    # when
    passages = select_passages(subquestion, BATTERIES, question=question)
    closest = select_passages(subquestion, BATTERIES, question=question, closest=2)
    # then nothing is evidence, and what was found is kept only as the closest passages
    assert passages == []
    assert closest and not any(p.clears_bar for p in closest)


def test_it_stores_how_relevant_a_passage_is_and_what_it_matched() -> None:
    # given
    subquestion = SubQuestion(1, "What does the Kestrel home battery cost?", ("Kestrel battery cost",))
    # when
    [best, *_] = select_passages(subquestion, BATTERIES, question=subquestion.text)
    # then
    assert best.source_id == 1 and best.clears_bar
    assert 0.5 < best.relevance <= 1.0
    assert {"kestrel", "cost"} <= set(best.matched_terms)


def test_it_refuses_passages_about_the_subject_that_never_name_what_is_asked() -> None:
    # given pages about the group that say nothing of its revenue
    question = "What was the annual revenue of the Marrowby Development Group in 2019?"
    pages = [
        source(1, "The Marrowby Development Group maintains the Marrowby database and its manuals."),
        source(2, "Members of the Marrowby Development Group meet every year to plan the next release."),
    ]
    subquestion = SubQuestion(1, question, ("Marrowby Development Group revenue 2019",))
    # when / then nothing clears the bar
    assert select_passages(subquestion, pages, question=question) == []
    # and once a page states the revenue, it leads what is evidence
    pages.append(source(3, "The Marrowby Development Group reported revenue of 2.1 million euros in 2019."))
    passages = select_passages(subquestion, pages, question=question)
    assert passages[0].source_id == 3 and all(p.clears_bar for p in passages)


def test_it_reads_what_a_question_asks_for() -> None:
    assert asked_for("What is the weekly salary of goalkeeper Kepa Arrizabalaga at Chelsea?") == ("salary",)
    assert asked_for("How many employees does Alibaba have in Hong Kong?") == ("employee",)
    assert asked_for("Who founded the company?") == ()
    asked = asked_of(SubQuestion(1, "Compare the Kestrel battery and the Osprey battery", ()))
    assert asked.options == (("kestrel",), ("osprey",))


def test_it_follows_a_name_the_first_passage_mentions_to_the_second_hop() -> None:
    # given the answer's second paragraph shares no word with the question's subject
    question = "Where is the publisher of Grace Krilanovich's first novel based?"
    pages = [
        source(1, "Grace Krilanovich is an American writer. Her first novel, The Orange Eats Creeps, "
               "was published by Two Dollar Radio in 2010.", "Grace Krilanovich"),
        source(2, "Two Dollar Radio is an independent publishing house. It is based in Columbus, Ohio.",
               "Two Dollar Radio"),
        source(3, "Radio City is a music hall in New York. It is based on Sixth Avenue.", "Radio City"),
    ]  # fmt: skip
    subquestion = SubQuestion(1, question, (question,))
    # when
    passages = select_with_hops(subquestion, pages, question=question)
    # then the bridge (the publisher named in the first passage) leads to its own page
    assert [p.source_id for p in passages][:2] == [1, 2]
    assert 3 not in [p.source_id for p in passages]
    assert any(
        "Two Dollar Radio" in query for query in bridge_queries(subquestion, passages, question=question)
    )


def test_it_reads_names_but_not_dates_or_demonyms() -> None:
    text = "Born on 2 June 1961, the Australian athlete moved to Young, New South Wales, with Fred Rose."
    names = [name for name, _, _ in name_phrases(text)]
    assert names == ["Young", "New South Wales", "Fred Rose"]


def test_a_plan_keeps_distinct_subquestions_and_keyword_queries_and_is_topped_up() -> None:
    # given a small model's plan: the same sub-question twice, and SQL where a query belongs
    question = "How does PostgreSQL replicate data?"
    proposed = Plan(
        Intent.DESCRIPTIVE,
        (
            PlannedSubQuestion(
                "What is PostgreSQL replication?", "", ("SELECT * FROM pg_stat_replication;",)
            ),
            PlannedSubQuestion("what is postgresql  replication", "", ("postgresql replication",)),
        ),
    )
    # when
    plan = validated_plan(proposed, plan_extractive(question))
    # then
    texts = [sq.text for sq in plan.subquestions]
    assert 3 <= len(texts) <= 6 and texts[0] == "What is PostgreSQL replication?"
    assert sum("replication" in text.lower() and "what is" in text.lower() for text in texts) == 1
    assert not any(reads_as_code(query) for sq in plan.subquestions for query in sq.queries)
    assert plan.subquestions[0].queries == ("PostgreSQL replication",)


def test_a_statement_its_quotes_do_not_bear_out_is_named() -> None:
    quote = "The Kestrel battery costs 4,200 euros."
    assert support_problem("The Kestrel battery costs 4,200 euros.", [quote]) == ""
    assert "5,100" in support_problem("The Kestrel battery costs 5,100 euros.", [quote])
    assert "content words" in support_problem("Sodium supply chains are short and stable.", [quote])


def test_the_analysis_schema_bounds_its_arrays_and_lists_only_the_ids_shown() -> None:
    schema = analyse_schema([15, 12])
    findings = schema["properties"]["findings"]
    cited = findings["items"]["properties"]["evidence"]
    assert findings["maxItems"] >= 1 and cited["maxItems"] == 2
    assert cited["items"]["properties"]["id"]["enum"] == [12, 15]


def test_a_model_answer_cut_off_at_its_token_limit_is_rejected_and_never_pasted_back() -> None:
    from researchapp.pipeline.values import Evidence

    quote = "Heat pumps in the survey reached a seasonal COP of 3.2 in 2023."
    evidence = Evidence(12, 1, 7, 0, len(quote), quote, 1.0, cluster="s1")
    runaway = {"findings": [{"statement": "COP " * 5000, "status": "supported",
                             "evidence": [{"id": 12, "stance": "supports"}]}]}  # fmt: skip
    with StubOpenAI(by_stage(analyse=runaway)) as llm:
        # when the model runs past max_tokens twice
        with pytest.raises(ProviderError) as raised:
            make_engine(llm).analyse(
                SubQuestion(7, "How efficient are heat pumps?", ()), [evidence], usage=UsageLog()
            )
        # then each request stated its max_tokens, the answer was rejected as cut off
        assert all(chat["max_tokens"] for chat in llm.chats)
        assert "cut off" in raised.value.message
        # and the retry carried the reason, not the 5,000-word answer
        assert len(json.dumps(llm.chats[1]["messages"])) < len(json.dumps(llm.chats[0]["messages"])) + 600
