"""Deep mode without a model: the same loop, deterministic, rewriting its queries from what it found."""

from __future__ import annotations

import pytest

from researchapp.models import Evidence, Source, Step
from tests.deep_helpers import AT_OR_PAST_EVIDENCE_GATE, run_deep_task
from tests.live import live_settings, web_results

pytestmark = pytest.mark.django_db


@pytest.fixture
def deep_extractive(settings, stub_web, stub_tavily):
    stub_tavily.results = web_results(stub_web)
    live_settings(settings, web=stub_web, tavily=stub_tavily, AUTO_FOLLOWUP="never", RESULTS_PER_QUERY=5)
    return stub_tavily


def trace(task, base_url: str) -> list[tuple[int, int, str, str, str]]:
    """(sub-question order, turn, tool, argument, status) of every step, URLs without the stub's port."""
    steps = Step.objects.filter(task=task).order_by("subquestion__order", "index")
    argument = lambda step: str(step.arguments.get("query") or step.arguments.get("url", ""))  # noqa: E731
    return [
        (step.subquestion.order, step.turn, step.tool, argument(step).removeprefix(base_url), step.status)
        for step in steps
    ]


def test_it_searches_opens_and_stops_when_the_subquestion_is_covered(
    deep_extractive, stub_web, researcher, analyst
):
    # when a deep task runs with the extractive engine
    task = run_deep_task(researcher, analyst=analyst, engine="extractive")
    # then it reaches the evidence gate
    assert task.status in AT_OR_PAST_EVIDENCE_GATE, task.failure_reason
    for subquestion in task.plans.approved().latest_version().subquestions.all():
        steps = list(Step.objects.filter(subquestion=subquestion).order_by("index"))
        # and each loop searched its planned queries first, then opened what they found
        searched = [step.arguments["query"] for step in steps if step.tool == "web_search"]
        assert searched[: len(subquestion.queries)] == list(subquestion.queries)
        opened = [step for step in steps if step.tool == "open_page"]
        assert opened and all(step.status == "done" for step in opened)
        # and every page it opened is a stored source of the sub-question, its passages evidence
        for step in opened:
            source = Source.objects.get(pk=int(step.result_ids[0][1:]))
            assert subquestion.sources.filter(pk=source.pk).exists()
            for label in step.result_ids[1:]:
                evidence = Evidence.objects.get(pk=int(label[1:]))
                assert source.text[evidence.start : evidence.end] == evidence.quote
        # and the loop ended by itself, covered or with nothing new to search
        assert steps[-1].status == "answered" and steps[-1].thought
    # and only opened pages are sources
    assert (
        Source.objects.filter(task=task).count()
        == Step.objects.filter(task=task, tool="open_page", status="done")
        .values("arguments__url")
        .distinct()
        .count()
    )


def test_it_takes_the_same_steps_for_the_same_question(deep_extractive, stub_web, researcher, analyst):
    first = run_deep_task(researcher, analyst=analyst, engine="extractive")
    second = run_deep_task(researcher, analyst=analyst, engine="extractive")
    assert trace(first, stub_web.base_url) == trace(second, stub_web.base_url)
    assert len(trace(first, stub_web.base_url)) >= 4


def test_it_rewrites_its_queries_from_the_names_the_best_passages_mention(
    deep_extractive, settings, stub_web, researcher, analyst
):
    # given a coverage bar no sub-question reaches in one round
    settings.RESEARCH = {**settings.RESEARCH, "DEEP_MAX_STEPS": 3}
    from researchapp.pipeline.runner import deep

    deep.COVERED_PASSAGES, before = 99, deep.COVERED_PASSAGES
    try:
        task = run_deep_task(researcher, analyst=analyst, engine="extractive")
    finally:
        deep.COVERED_PASSAGES = before
    assert task.status in AT_OR_PAST_EVIDENCE_GATE, task.failure_reason
    rewritten = Step.objects.filter(task=task, tool="web_search", turn__gt=1)
    # then later rounds search new queries, each led by a name a stored passage of the sub-question holds
    assert rewritten.exists()
    for step in rewritten:
        subquestion = step.subquestion
        assert step.arguments["query"] not in subquestion.queries
        quotes = " ".join(subquestion.evidence.values_list("quote", flat=True))
        assert step.arguments["query"].split()[0] in quotes  # the name it follows, then what is asked
    # and every loop ended by itself or at a budget (three rounds, or twelve tool calls)
    for subquestion in task.plans.approved().latest_version().subquestions.all():
        last = Step.objects.filter(subquestion=subquestion).order_by("-index").first()
        assert last.status == "answered" or (
            last.status == "stopped" and last.budget in ("steps", "tool_calls")
        )


def test_a_resumed_loop_goes_on_where_it_stopped_and_takes_the_same_steps(
    deep_extractive, stub_web, researcher, analyst
):
    # given a finished loop cut back to its first page opening, as a worker that died there leaves it
    from researchapp.pipeline.runner import run_deep

    task = run_deep_task(researcher, analyst=analyst, engine="extractive")
    whole = trace(task, stub_web.base_url)
    first_page = (
        Step.objects.filter(task=task, tool="open_page").order_by("subquestion__order", "index").first()
    )
    subquestion = first_page.subquestion
    Step.objects.filter(subquestion=subquestion, index__gt=first_page.index).delete()
    subquestion.collected_round = 0
    subquestion.save(update_fields=["collected_round"])
    searches = len(deep_extractive.searches)
    # when the loop runs again
    assert run_deep(task, subquestion, 1)
    # then it takes the steps it took the first time, without searching again what it had searched
    assert trace(task, stub_web.base_url) == whole
    kept = Step.objects.filter(subquestion=subquestion, tool="web_search", index__lt=first_page.index).count()
    redone = Step.objects.filter(subquestion=subquestion, tool="web_search").count() - kept
    assert len(deep_extractive.searches) - searches == redone
