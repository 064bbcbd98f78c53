"""Deep mode: the tool-using research loop against stub search, web, scholarly and model servers."""

from __future__ import annotations

import json

import pytest
from django.urls import reverse

from researchapp.exports.report import report_of
from researchapp.models import Event, Evidence, Source, Step
from researchapp.pipeline.deep import tools
from tests.deep_helpers import AT_OR_PAST_EVIDENCE_GATE, run_deep_task
from tests.helpers import client_for
from tests.live import live_settings, web_results
from tests.stubs import openai_tools as agent

pytestmark = pytest.mark.django_db


# --- checking the model's calls ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "arguments", "message"),
    [
        ("browse", "{}", "unknown tool 'browse'"),
        ("web_search", '{"query": "heat pumps"', "not valid JSON"),
        ("web_search", '["heat pumps"]', "must be a JSON object"),
        ("web_search", '{"query": ""}', "`query` must be a non-empty string"),
        ("open_page", '{"url": "file:///etc/passwd"}', "http(s) URL"),
        (
            "calculate",
            '{"code": "result = a", "inputs": [{"name": "a", "evidence": "twelve"}]}',
            "not an evidence id",
        ),
        ("calculate", '{"code": "result = 1", "inputs": []}', "non-empty list"),
        ("calculate", '{"code": "x", "inputs": [{"name": "import os", "evidence": "E1"}]}', "variable name"),
    ],
)
def test_it_refuses_a_malformed_call_with_a_reason_the_model_can_read(name, arguments, message):
    with pytest.raises(tools.ToolCallError, match=message.replace("(", r"\(").replace(")", r"\)")):
        tools.parse_call(name, arguments)


def test_it_describes_every_tool_as_an_openai_function():
    assert tools.TOOL_NAMES == ("web_search", "academic_search", "open_page", "find_in_sources", "calculate")
    for schema in tools.TOOL_SCHEMAS:
        assert schema["type"] == "function"
        parameters = schema["function"]["parameters"]
        assert parameters["type"] == "object" and parameters["additionalProperties"] is False
        assert set(parameters["required"]) <= set(parameters["properties"])


def test_it_normalises_a_calculation_call():
    request = tools.parse_call(
        "calculate",
        json.dumps(
            {
                "code": "result = b / a",
                "inputs": [{"name": "a", "evidence": "E3"}, {"name": "b", "evidence": 9, "number": 2}],
            }
        ),
    )
    assert request.inputs == (tools.CalculationInput("a", 3, 1), tools.CalculationInput("b", 9, 2))


# --- the loop with a model --------------------------------------------------------------------


@pytest.fixture
def deep_live(settings, stub_web, stub_tavily, stub_openai):
    stub_tavily.results = web_results(stub_web)
    live_settings(settings, web=stub_web, tavily=stub_tavily, openai=stub_openai, AUTO_FOLLOWUP="never")
    return stub_openai


def test_it_researches_each_subquestion_with_tool_calls_and_stores_what_it_cites(
    deep_live, stub_web, stub_tavily, researcher, analyst
):
    # when a deep task runs with the model engine
    task = run_deep_task(researcher, analyst=analyst)

    # then it reaches the evidence gate
    assert task.status in AT_OR_PAST_EVIDENCE_GATE, task.failure_reason
    subquestions = list(task.plans.approved().latest_version().subquestions.all())
    for subquestion in subquestions:
        steps = list(Step.objects.filter(subquestion=subquestion).order_by("index"))
        # and every sub-question ran the loop with at least two tool calls, and the model ended it
        assert sum(1 for step in steps if step.tool and step.status == "done") >= 2
        assert steps[-1].status == "answered"
        assert all(step.status != "started" for step in steps)
        # and what the loop opened is stored, with evidence that is its snapshot at its offsets
        opened = [step for step in steps if step.tool == "open_page" and step.status == "done"]
        assert opened
        for step in opened:
            ids = step.result_ids
            source = Source.objects.get(pk=int(ids[0].removeprefix("S")), task=task)
            assert source.url == step.arguments["url"]
            for evidence_id in ids[1:]:
                evidence = Evidence.objects.get(
                    pk=int(evidence_id.removeprefix("E")), subquestion=subquestion
                )
                assert source.text[evidence.start : evidence.end] == evidence.quote
                assert evidence.quote in step.observation  # the model saw the stored quote, by its id
    # and the model was offered the tools as function schemas and got back its observations
    tool_requests = [chat for chat in deep_live.chats if chat.get("tools")]
    assert tool_requests and all(len(chat["tools"]) == len(tools.TOOL_SCHEMAS) for chat in tool_requests)
    assert any(message["role"] == "tool" for chat in tool_requests for message in chat["messages"])
    # and the search API's own text is never a source: only opened pages are
    assert all(
        source.url.startswith(stub_web.base_url)
        for source in Source.objects.filter(task=task, provider="tavily")
    )


def test_it_turns_a_weak_models_mistakes_into_error_steps(deep_live, researcher, analyst):
    # given a model that calls an unknown tool, sends broken JSON, invents a URL and an evidence id,
    # and repeats a call it already made
    def weak(body):
        turn = agent.turns_taken(body)
        subquestion = agent.subquestion_of(body)
        if turn == 0:
            return {"tool_calls": [agent.call("browse", url="x"), {"name": "web_search", "arguments": '{"query": '},
                                   agent.call("web_search", query=subquestion)]}  # fmt: skip
        if turn == 1:
            return {"tool_calls": [
                agent.call("open_page", url="https://invented.example/page"),
                agent.call("calculate", code="result = a", inputs=[{"name": "a", "evidence": "E999999"}]),
                agent.call("web_search", query=subquestion),
                agent.call("open_page", url=agent.search_results(body)[0]),
            ]}  # fmt: skip
        return agent.answer(body)

    deep_live.tool_responder = weak
    # when the task runs
    task = run_deep_task(researcher, analyst=analyst)
    # then it reaches the evidence gate, and each mistake is a recorded error step with its reason
    assert task.status in AT_OR_PAST_EVIDENCE_GATE, task.failure_reason
    errors = list(Step.objects.filter(task=task, status="error").values_list("error", flat=True))
    per_subquestion = len(task.plans.approved().latest_version().subquestions.all())
    for reason in ("unknown tool 'browse'", "not valid JSON", "not a result of this sub-question's searches",
                   "E999999 is not stored evidence", "already made"):  # fmt: skip
        assert sum(reason in error for error in errors) == per_subquestion, (reason, errors)
    # and the invented page was never fetched
    assert not Source.objects.filter(task=task, url__contains="invented.example").exists()
    assert Step.objects.filter(task=task, tool="open_page", status="done").count() == per_subquestion


# --- budgets ----------------------------------------------------------------------------------


def endless(body):
    """A model that never says it is done: a new search every turn."""
    return {
        "content": "Searching more.",
        "tool_calls": [
            agent.call("web_search", query=f"{agent.subquestion_of(body)} {agent.turns_taken(body)}")
        ],
    }


@pytest.mark.parametrize(("setting", "budget"), [("DEEP_MAX_STEPS", "steps"), ("DEEP_MAX_TOKENS", "tokens"),
                                                 ("DEEP_MAX_TOOL_CALLS", "tool_calls")])  # fmt: skip
def test_it_stops_a_loop_at_its_budget_and_says_so(deep_live, settings, researcher, analyst, setting, budget):
    # given a model that would search forever, and a small budget
    deep_live.tool_responder = endless
    limit = {"DEEP_MAX_STEPS": 3, "DEEP_MAX_TOKENS": 1500, "DEEP_MAX_TOOL_CALLS": 2}[setting]
    settings.RESEARCH = {**settings.RESEARCH, setting: limit}
    # when the task runs
    task = run_deep_task(researcher, analyst=analyst)
    # then every sub-question's loop stopped at that budget, named in its last step
    assert task.status in AT_OR_PAST_EVIDENCE_GATE, task.failure_reason
    for subquestion in task.plans.approved().latest_version().subquestions.all():
        last = Step.objects.filter(subquestion=subquestion).order_by("-index").first()
        assert last.status == "stopped" and last.budget == budget
        assert f"{setting} = {limit}" in last.error
        turns = Step.objects.filter(subquestion=subquestion).exclude(status="stopped")
        if budget == "steps":
            assert turns.values("turn").distinct().count() == limit
        if budget == "tool_calls":
            assert turns.filter(tool__gt="").count() == limit
    # and the progress feed and the trace on the task page say so
    assert Event.objects.filter(task=task, data__budget=budget).exists()
    page = client_for(researcher).get(reverse("task_detail", args=[task.pk])).content.decode()
    assert page.count(f'data-budget="{budget}"') == len(subquestions(task))
    assert page.count('data-testid="trace-step"') == Step.objects.filter(task=task).count()


def test_the_report_says_which_budget_stopped_the_research(deep_live, settings, researcher, analyst):
    # given a model that would search forever and a step budget of two turns
    deep_live.tool_responder = endless
    settings.RESEARCH = {**settings.RESEARCH, "DEEP_MAX_STEPS": 2}
    # when the task runs to its end, every gate approved as proposed
    task = run_deep_task(researcher, analyst=analyst, auto_approve=True)
    # then the report's method section names the budget for every sub-question
    assert task.status == "approved", task.failure_reason
    notes = report_of(task.drafts.latest("version")).method.notes
    assert sum("Stopped: the steps budget was reached (DEEP_MAX_STEPS = 2)" in note for note in notes) == len(
        subquestions(task)
    )
    markdown = client_for(researcher).get(reverse("export_markdown", args=[task.pk])).content.decode()
    assert markdown.split("## Method", 1)[1].count("Stopped: the steps budget was reached") == len(
        subquestions(task)
    )


def subquestions(task):
    return list(task.plans.approved().latest_version().subquestions.all())
