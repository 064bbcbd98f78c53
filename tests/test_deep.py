"""Deep mode: the tool-using research loop against stub search, web, scholarly and model servers."""

from __future__ import annotations

import json
from io import StringIO

import pytest
from django.core.management import call_command
from django.urls import reverse

from researchapp.core.enums import ModelStage
from researchapp.exports.pdf import render_pdf
from researchapp.exports.report import report_of
from researchapp.models import Event, Evidence, Finding, LLMCall, Source, Step
from researchapp.pipeline.deep import tools
from tests.deep_helpers import AT_OR_PAST_EVIDENCE_GATE, run_deep_task
from tests.helpers import client_for
from tests.live import live_settings, web_results
from tests.report_checks import assert_inputs_cited
from tests.stubs import openai_tools as agent
from tests.stubs.academic_api import StubPaper
from tests.stubs.json_api import Failure

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


PAPER = StubPaper(
    title="Power output of the Marrowby tidal lagoon",
    abstract="In 2024 the Marrowby tidal lagoon produced 28.6 gigawatt hours of power from its installed "
    "capacity of 12 megawatts. Tidal output is predictable years ahead.",
    doi="10.5555/tidal.2024.7",
    authors=("Ada Brennick", "Lior Saltfleet"),
    venue="Journal of Marine Energy",
    year=2025,
)
FORECAST, MEASURED = "26", "28.6"  # GWh a normal year (article 1), GWh in 2024 (the paper)


@pytest.fixture
def deep_live(settings, stub_web, stub_tavily, stub_openai, stub_academic):
    stub_tavily.results = web_results(stub_web)
    stub_academic.papers = [PAPER]
    live_settings(
        settings, web=stub_web, tavily=stub_tavily, openai=stub_openai, AUTO_FOLLOWUP="never",
        ACADEMIC_PROVIDERS=("openalex", "semantic_scholar"), OPENALEX_URL=stub_academic.origin,
        SEMANTIC_SCHOLAR_URL=stub_academic.origin,
    )  # fmt: skip
    return stub_openai


def figure_position(item: dict, figure: str) -> int | None:
    """Where ``figure`` is among a quote's numbers as the observation lists them ("4: 26")."""
    return next((int(n.split(":")[0]) for n in item["numbers"] if n.split(": ", 1)[1] == figure), None)


def growth_researcher(body):
    """Search the web and the literature, open two pages; where the stored quotes hold the forecast
    and the measured output, compute the growth in the sandbox; then answer."""
    turn = agent.turns_taken(body)
    if turn == 0:
        return {"content": "Search the web and the literature.", "tool_calls": [
            agent.call("web_search", query=agent.subquestion_of(body)),
            agent.call("academic_search", query="tidal lagoon", limit=2),
        ]}  # fmt: skip
    if turn == 1:
        urls = list(dict.fromkeys(agent.search_results(body)))[:2]
        return {
            "content": "Read the two best pages.",
            "tool_calls": [agent.call("open_page", url=u) for u in urls],
        }
    seen = agent.seen_evidence(body)
    forecast = next((e for e in seen if figure_position(e, FORECAST)), None)
    measured = next((e for e in seen if figure_position(e, MEASURED)), None)
    if turn == 2 and forecast and measured:
        inputs = [
            {"name": "forecast", "evidence": forecast["id"], "number": figure_position(forecast, FORECAST)},
            {"name": "measured", "evidence": measured["id"], "number": figure_position(measured, MEASURED)},
        ]
        growth = agent.call(
            "calculate",
            code="result = round((measured - forecast) / forecast * 100, 2)",
            description="Output in 2024 above the normal-year forecast, per cent",
            inputs=inputs,
        )
        return {
            "content": "Compute the growth of the measured output over the forecast.",
            "tool_calls": [growth],
        }
    return agent.answer(body)


def test_it_researches_each_subquestion_with_tool_calls_and_stores_what_it_cites(
    deep_live, stub_web, stub_tavily, stub_academic, researcher, analyst
):
    # given a model that searches the web and the literature, opens pages and computes a figure
    deep_live.tool_responder = growth_researcher
    # when a deep task runs with the model engine
    task = run_deep_task(researcher, analyst=analyst)

    # then it reaches the evidence gate
    assert task.status in AT_OR_PAST_EVIDENCE_GATE, task.failure_reason
    planned = subquestions(task)
    for subquestion in planned:
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
    # and the paper is stored once, with its DOI and reference, its abstract the snapshot
    paper = Source.objects.get(task=task, doi=PAPER.doi)
    assert paper.text == PAPER.abstract and paper.venue == PAPER.venue and paper.year == PAPER.year
    assert list(paper.authors) == list(PAPER.authors)
    assert paper.subquestions.count() == len(subquestions(task))
    # and a sub-question computed a growth rate in the sandbox from two stored quotes, citing both
    steps = list(Step.objects.filter(task=task, tool="calculate"))
    assert steps and all(step.status == "done" for step in steps), [step.error for step in steps]
    for step in steps:
        finding = Finding.objects.get(pk=int(step.result_ids[0].removeprefix("F")))
        assert finding.key.startswith("derived:") and finding.status == "supported"
        assert finding.subquestion_id == step.subquestion_id
        cited = {link.evidence_id: link.evidence for link in finding.links.select_related("evidence__source")}
        forecast, measured = (cited[item["evidence_id"]] for item in step.arguments["inputs"])
        assert len(cited) == 2 and measured.source.doi == PAPER.doi
        assert (
            f"{FORECAST} gigawatt hours" in forecast.quote and f"{MEASURED} gigawatt hours" in measured.quote
        )
        growth = round((float(MEASURED) - float(FORECAST)) / float(FORECAST) * 100, 2)
        assert finding.statement.startswith(
            f"Output in 2024 above the normal-year forecast, per cent: {growth}"
        )
    # and after round one the hypotheses to test were proposed from its findings, with their evidence
    hypotheses = list(task.hypotheses.prefetch_related("links__evidence"))
    assert hypotheses and all(h.links.exists() for h in hypotheses)
    assert all(link.evidence.task_id == task.pk for h in hypotheses for link in h.links.all())
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
            broken = {"name": "web_search", "arguments": '{"query": '}
            return {
                "tool_calls": [
                    agent.call("browse", url="x"),
                    broken,
                    agent.call("web_search", query=subquestion),
                ]
            }
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


def test_a_deep_task_runs_to_an_approved_report_that_references_the_paper(
    deep_live, stub_academic, researcher, analyst
):
    # given the researcher that also computes a figure, and every gate approved as proposed
    deep_live.tool_responder = growth_researcher
    task = run_deep_task(researcher, analyst=analyst, auto_approve=True)
    # then the report is approved, its references name the paper by DOI, and the ledger verifies
    assert task.status == "approved", task.failure_reason
    markdown = client_for(researcher).get(reverse("export_markdown", args=[task.pk])).content.decode()
    assert PAPER.doi in markdown.split("## References", 1)[1]
    call_command("ledger_verify", task=task.pk, stdout=StringIO())
    # and the approved report shows the growth rate computed in the sandbox, both input quotes cited
    report = report_of(task.drafts.get(approved_at__isnull=False))
    growth = round((float(MEASURED) - float(FORECAST)) / float(FORECAST) * 100, 2)
    assert report.computed and all(record.result == f"{growth:g}" for record in report.computed)
    for before, after in (record.passages for record in report.computed):  # forecast, measured
        assert before.label.startswith(f"forecast = {FORECAST} ") and FORECAST in before.quote.text
        assert after.label.startswith(f"measured = {MEASURED} ") and after.quote.reference.doi == PAPER.doi
    assert_inputs_cited(report, render_pdf(report.draft))  # in the appendix, linked in the PDF
    assert f"forecast = {FORECAST} — Read from E" in markdown.split("## Computed figures", 1)[1]


def test_each_stage_asks_the_model_its_own_setting_names(deep_live, settings, researcher, analyst):
    # given a model of its own for every stage that calls one, but planning, which takes the default
    own = {stage: f"model-{stage}" for stage in ModelStage if stage is not ModelStage.PLAN}
    settings.RESEARCH = {
        **settings.RESEARCH,
        "OPENAI_MODEL": "model-default",
        "OPENAI_MODEL_PLAN": "",
        **{f"OPENAI_MODEL_{stage.name}": model for stage, model in own.items()},
    }
    deep_live.tool_responder = growth_researcher
    # when a deep task runs to its report
    task = run_deep_task(researcher, analyst=analyst, auto_approve=True)
    assert task.status == "approved", task.failure_reason
    # then every stage that calls a model called it, each with its own model (planning with the
    # default); the engine's findings are its reader's verbatim pieces, checked by no support call
    expected = {
        (stage.value, own.get(stage, "model-default"))
        for stage in ModelStage
        if stage is not ModelStage.SUPPORT
    }
    assert set(LLMCall.objects.filter(task=task).values_list("stage", "model")) == expected
    # and the chat server was asked for exactly those models
    assert {chat["model"] for chat in deep_live.chats} == {model for _, model in expected}


# --- budgets ----------------------------------------------------------------------------------


def endless(body):
    """A model that never says it is done: a new search every turn."""
    return {
        "content": "Searching more.",
        "tool_calls": [
            agent.call("web_search", query=f"{agent.subquestion_of(body)} {agent.turns_taken(body)}")
        ],
    }


BUDGETS = {
    "DEEP_MAX_STEPS": ("steps", 3),
    "DEEP_MAX_TOKENS": ("tokens", 1500),
    "DEEP_MAX_TOOL_CALLS": ("tool_calls", 2),
    "DEEP_DEADLINE_SECONDS": ("deadline", 0.001),
}


@pytest.mark.parametrize(
    ("setting", "budget"), [(setting, budget) for setting, (budget, _) in BUDGETS.items()]
)
def test_it_stops_a_loop_at_its_budget_and_says_so(deep_live, settings, researcher, analyst, setting, budget):
    # given a model that would search forever, and a small budget
    deep_live.tool_responder = endless
    limit = BUDGETS[setting][1]
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


# --- academic APIs that fail ------------------------------------------------------------------


@pytest.mark.parametrize("status", [429, 500])
def test_an_academic_api_that_fails_is_a_warning_and_nothing_is_invented(
    deep_live, stub_academic, researcher, analyst, status
):
    # given scholarly APIs that answer every request with an error
    stub_academic.fail_next(*[Failure.http(status)] * 50)
    # when a deep task's loops search the literature
    task = run_deep_task(researcher, analyst=analyst)
    # then the task goes on to the evidence gate
    assert task.status in AT_OR_PAST_EVIDENCE_GATE, task.failure_reason
    # and each failure is a warning that names its API and status, on the task
    warnings = list(Event.objects.filter(task=task, kind="warning", message__contains="academic search"))
    assert {w.message.split("(")[1].split(")")[0] for w in warnings} == {"openalex", "semantic_scholar"}
    assert all(f"HTTP {status}" in w.message for w in warnings)
    # and the steps say so, with nothing stored in place of the papers
    steps = Step.objects.filter(task=task, tool="academic_search")
    assert steps.count() == len(subquestions(task))
    assert all(
        step.status == "error" and not step.result_ids and f"HTTP {status}" in step.error for step in steps
    )
    assert not Source.objects.filter(
        task=task, provider__in=["openalex", "semantic_scholar", "arxiv"]
    ).exists()


# --- a step started and never finished --------------------------------------------------------


def test_a_step_started_but_not_done_runs_again_without_storing_or_fetching_twice(
    deep_live, stub_web, stub_tavily, researcher, analyst
):
    # given a finished deep task, and one of its page openings put back to "started", as a worker
    # that died after the page was stored but before the step was marked done leaves it
    from researchapp.pipeline.runner import run_deep

    task = run_deep_task(researcher, analyst=analyst)
    step = Step.objects.filter(task=task, tool="open_page", status="done").first()
    kept_ids = step.result_ids
    Step.objects.filter(pk=step.pk).update(status="started", result_ids=[], observation="")
    subquestion = step.subquestion
    subquestion.collected_round = 0
    subquestion.save(update_fields=["collected_round"])
    fetched, sources, evidence = (
        sum(stub_web.requests.values()),
        Source.objects.count(),
        Evidence.objects.count(),
    )
    asked = len(deep_live.chats)
    # when the loop runs again
    assert run_deep(task, subquestion, 1)
    # then the step is done with the same stored rows, the page was not fetched again, nothing was added,
    # and the model was not asked again (its loop had already ended)
    step.refresh_from_db()
    assert step.status == "done" and step.result_ids == kept_ids
    assert sum(stub_web.requests.values()) == fetched
    assert (Source.objects.count(), Evidence.objects.count()) == (sources, evidence)
    assert len(deep_live.chats) == asked
