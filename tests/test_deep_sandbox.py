"""The loop's ``calculate`` when the code misbehaves: the sandbox stops it and the step says why."""

from __future__ import annotations

import pytest

from researchapp.models import Finding, Step
from researchapp.pipeline.runner import deep_tools
from researchapp.providers.sandbox import Limits
from tests.deep_helpers import AT_OR_PAST_EVIDENCE_GATE, run_deep_task
from tests.live import live_settings, web_results
from tests.stubs import openai_tools as agent

pytestmark = pytest.mark.django_db

HOSTILE = {
    "an endless loop": ("while True:\n    pass", "CPU limit (2 s) reached"),
    "a network connection": (
        "import socket\nsocket.create_connection(('127.0.0.1', 9), timeout=1)\nresult = 1",
        "network is not available",
    ),
    "a write outside its directory": (
        "open('/etc/deep-loop-test', 'w').write('x')\nresult = 1",
        "write outside the working directory refused",
    ),
}


def calculating(code: str):
    def respond(body):
        turn = agent.turns_taken(body)
        if turn == 0:
            return {"tool_calls": [agent.call("web_search", query=agent.subquestion_of(body))]}
        if turn == 1:
            return {"tool_calls": [agent.call("open_page", url=agent.search_results(body)[0])]}
        figures = [item for item in agent.seen_evidence(body) if item["numbers"]]
        if turn == 2 and figures:
            inputs = [{"name": "a", "evidence": figures[0]["id"]}]
            return {"tool_calls": [agent.call("calculate", code=code, inputs=inputs)]}
        return agent.answer(body)

    return respond


@pytest.mark.parametrize("what", list(HOSTILE))
def test_code_the_sandbox_stops_is_an_error_step_with_the_reason(
    settings, stub_web, stub_tavily, stub_openai, researcher, analyst, what, monkeypatch
):
    # given a model whose calculation misbehaves (and a wall clock generous enough that, on a loaded
    # machine, the endless loop meets its CPU limit first)
    monkeypatch.setattr(deep_tools, "sandbox_limits", lambda: Limits(wall_seconds=60))
    code, reason = HOSTILE[what]
    stub_tavily.results = web_results(stub_web)
    live_settings(settings, web=stub_web, tavily=stub_tavily, openai=stub_openai, AUTO_FOLLOWUP="never")
    stub_openai.tool_responder = calculating(code)
    # when the task runs
    task = run_deep_task(researcher, analyst=analyst)
    # then the task goes on; the calculation is an error step with the sandbox's reason, and no finding
    assert task.status in AT_OR_PAST_EVIDENCE_GATE, task.failure_reason
    steps = list(Step.objects.filter(task=task, tool="calculate"))
    assert steps
    for step in steps:
        assert step.status == "error" and step.error and not step.result_ids
        assert reason in step.error, step.error
    assert not Finding.objects.filter(task=task, key__startswith="derived:").exists()
