"""A worker SIGKILLed in the middle of deep research: the loop resumes from its last stored step,
and no tool call with a side effect runs twice.

Each worker process gets its own cache (its own ``RESEARCH_VAR_DIR``, no ``REDIS_URL``), so a tool
run again by the second worker would reach the stub servers again and be counted: the counts below
are of what the tools really did, not of what a shared cache hid.
"""

from __future__ import annotations

import os
import signal
import subprocess
import uuid
from collections import Counter

import pytest

from researchapp.core.urls import normalize_url
from researchapp.models import Event, ResearchTask, Source, Step
from researchapp.services.plan_gate import plan_approve
from researchapp.services.submission import task_submit
from tests.helpers import wait_for, wait_for_status
from tests.live import QUESTION
from tests.stubs.academic_api import StubPaper
from tests.stubs.tavily_api import tavily_result
from tests.test_worker_crash import LEASE_ENV, database_url, history, start_sweeper, start_worker, stop

pytestmark = [pytest.mark.worker, pytest.mark.django_db(transaction=True)]
MODEL_DELAY = 2.0  # seconds per model turn: the loops are waiting on the model when the worker dies
PAPER = StubPaper(
    title="Power output of the Marrowby tidal lagoon",
    abstract="In 2024 the Marrowby tidal lagoon produced 28.6 gigawatt hours of power from its installed "
    "capacity of 12 megawatts.",
    doi="10.5555/tidal.2024.7",
    year=2025,
)


@pytest.fixture
def deep_env(stub_web, stub_tavily, stub_academic, llm, tmp_path, settings):
    from django.db import connection

    if connection.vendor != "postgresql" or not settings.CELERY_BROKER_URL.startswith("redis"):
        pytest.skip("needs PostgreSQL and Redis, which `make test` provides, to share tasks with processes")
    from researchapp.celery import app

    app.control.purge()
    run = uuid.uuid4().hex[:8]  # this test's own page URLs: the stub web is shared by the session

    def results(body):
        return [
            tavily_result(f"{hit.url}?run={run}", hit.title, hit.snippet, score=hit.score)
            for hit in stub_web.search(body["query"], 3)
        ]

    stub_tavily.results = results
    stub_academic.papers = [PAPER]
    base = {key: value for key, value in os.environ.items() if key != "REDIS_URL"}
    return {
        **base,
        **LEASE_ENV,
        "DATABASE_URL": database_url(),
        "CELERY_BROKER_URL": settings.CELERY_BROKER_URL,
        "CELERY_VISIBILITY_TIMEOUT": "3600",
        "TAVILY_API_KEY": "tvly-test-key",
        "TAVILY_API_BASE_URL": stub_tavily.base_url,
        "OPENAI_API_KEY": "sk-test-key",
        "OPENAI_BASE_URL": llm.base_url,
        "FETCH_ALLOWED_HOSTS": ",".join(stub_web.allowed_hosts),
        "RESEARCH_ACADEMIC_PROVIDERS": "openalex",
        "OPENALEX_URL": stub_academic.origin,
        "RESEARCH_CONCURRENCY": "2",
        "RESEARCH_AUTO_FOLLOWUP": "never",
        "DEEP_TEST_RUN": run,  # read by the test only
    }


def own_cache(env: dict[str, str], path) -> dict[str, str]:
    return {**env, "RESEARCH_VAR_DIR": str(path)}


def test_a_deep_loop_resumes_after_its_worker_is_killed_and_runs_no_tool_twice(
    deep_env, stub_web, stub_tavily, stub_academic, llm, researcher, analyst, tmp_path
):
    workers: list[subprocess.Popen] = [start_worker(own_cache(deep_env, tmp_path / "first"), "first")]
    sweeper = start_sweeper(own_cache(deep_env, tmp_path / "sweeper"))
    task = None
    try:
        # given a deep task with the model engine, its plan approved
        task = task_submit(owner=researcher, question=QUESTION, depth="deep", search_provider="tavily",
                           engine="openai")  # fmt: skip
        wait_for_status(task, ResearchTask.Status.AWAITING_PLAN_REVIEW, timeout=60)
        llm.delay = MODEL_DELAY
        planning_searches = len(stub_tavily.searches)  # the planner's probe searches before the loops
        plan_approve(plan=task.plans.latest("version"), actor=analyst)

        # when the worker dies while the loops wait on the model, some of their steps done
        def mid_loop() -> bool:
            steps = Step.objects.filter(task=task)
            return steps.filter(status="done").count() >= 2 and not steps.filter(status="started").exists()

        wait_for(mid_loop, timeout=120, interval=0.1, what="a loop with done steps, waiting on the model")
        stop(workers[-1], signal.SIGKILL)
        # A model answer may arrive between the check and the kill: a step then dies started, and the
        # next worker runs it again (its stores are keyed, so it stores nothing twice).
        interrupted = list(Step.objects.filter(task=task, status="started").values_list("tool", "arguments"))
        done_before = {
            (s.subquestion_id, s.index, s.tool) for s in Step.objects.filter(task=task, status="done")
        }
        assert not Step.objects.filter(task=task, status__in=["answered", "stopped"]).exists()
        llm.delay = 0.2
        # then a fresh worker, its lease expired, takes the loops up where they stopped
        workers.append(start_worker(own_cache(deep_env, tmp_path / "second"), "second"))
        wait_for_status(task, "awaiting_evidence_review", "writing", "awaiting_report_review", timeout=180)
    except AssertionError as error:
        raise AssertionError(f"{error}\n{history(task) if task else ''}") from None
    finally:
        for process in (*workers, sweeper):
            stop(process)

    assert Event.objects.filter(task=task, stage="collecting", data__code="lease_expired").exists()
    steps = list(Step.objects.filter(task=task).order_by("subquestion_id", "index"))
    # the steps done before the crash are kept as they were, and each loop went on to its answer
    assert done_before <= {(s.subquestion_id, s.index, s.tool) for s in steps if s.status == "done"}
    for subquestion in task.plans.approved().latest_version().subquestions.all():
        loop = [s for s in steps if s.subquestion_id == subquestion.pk]
        assert [s.index for s in loop] == list(range(len(loop)))
        assert loop[-1].status == "answered" and not [s for s in loop if s.status == "started"]
    # and no tool with a side effect ran twice: one search per web_search step, a fetch per page at
    # most per step that opened it, one request per academic_search step (each worker has its own cache)
    # (only a step the kill interrupted may have reached a server twice)
    again = Counter(tool for tool, _ in interrupted)
    searches = Counter(s.arguments["query"] for s in steps if s.tool == "web_search" and s.status == "done")
    sent = Counter(body["query"] for body in stub_tavily.searches[planning_searches:])
    assert not searches - sent
    assert not sent - searches - Counter(args["query"] for tool, args in interrupted if tool == "web_search")
    opened = [s.arguments["url"] for s in steps if s.tool == "open_page" and s.status == "done"]
    fetched = {
        path: n for path, n in stub_web.requests.items() if path.endswith(f"?run={deep_env['DEEP_TEST_RUN']}")
    }
    # Loops of two sub-questions may open one page at the same moment (each then fetches it; it is
    # stored once): a page is fetched at most once per step that opened it, never again on resume.
    openers = Counter(opened) + Counter(args["url"] for tool, args in interrupted if tool == "open_page")
    assert len(fetched) == len(set(opened))
    for url in set(opened):
        path = url[url.index("/", len("http://")) :]
        assert 1 <= fetched[path] <= openers[url], (path, fetched, openers)
    academic = [s for s in steps if s.tool == "academic_search" and s.status == "done"]
    assert len(academic) >= 1
    assert len(academic) <= len(stub_academic.requests) <= len(academic) + again["academic_search"]
    # and each page is stored once
    stored = list(Source.objects.filter(task=task).values_list("normalized_url", flat=True))
    assert len(stored) == len(set(stored)) and {normalize_url(u) for u in opened} <= set(stored)
    # and the resumed conversation was sent back to the model with every earlier observation
    last_asks = [chat for chat in llm.chats if chat.get("tools")][-1]
    assert any(message["role"] == "tool" for message in last_asks["messages"])
