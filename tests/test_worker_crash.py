"""A worker SIGKILLed in each stage (plan, collect, analyse, write) loses nothing and doubles nothing.

One live task (model-backed stages against a slow stub model, collection against slow stub pages)
goes through every stage; in each, the worker running it is killed without warning and a fresh one
started. The sweeper (``manage.py sweep --every``, what Celery beat runs in production) sees the dead
worker's lease expire and sends the stage again; the stages are idempotent upserts, so the re-run
finishes the job. On Redis the visibility timeout is left at an hour, so redelivery by the broker is
not what rescues the task; the filesystem broker never redelivers at all.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import uuid
from io import StringIO
from pathlib import Path

import pytest
from django.conf import settings
from django.core.management import call_command
from django.db import connection

from researchapp.core.urls import normalize_url
from researchapp.models import Event, Evidence, Finding, Job, ResearchTask, Source, StageJob
from researchapp.pipeline import runner
from researchapp.pipeline.collector.hops import select_with_hops
from researchapp.pipeline.runner import rows
from researchapp.pipeline.runner.collect import CLOSEST_PASSAGES, gathered_sources
from researchapp.services.submission import task_submit
from tests.helpers import wait_for, wait_for_status
from tests.live import QUESTION, web_results

pytestmark = [pytest.mark.worker, pytest.mark.django_db(transaction=True)]
ROOT = Path(__file__).resolve().parent.parent
PAGE_DELAY = 1.0  # seconds per page, so collection is still running when the worker dies
MODEL_DELAY = 2.5  # seconds per model answer, so planning, analysis and writing are too
# Short leases so the test is quick: a stage silent for 3 s is presumed dead.
LEASE_ENV = {
    "RESEARCH_HEARTBEAT_SECONDS": "0.5",
    "RESEARCH_LEASE_SECONDS": "3",
    "RESEARCH_SWEEP_SECONDS": "0.5",
    "RESEARCH_RESEND_UNSTARTED_SECONDS": "6",
}


def start_process(env: dict[str, str], *args: str) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, *args],
        cwd=ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )


def start_worker(env: dict[str, str], name: str) -> subprocess.Popen:
    return start_process(
        env,
        *("-m", "celery", "-A", "researchapp", "worker", "--pool=threads", "--concurrency=4"),
        *("--without-gossip", "--without-mingle", "--without-heartbeat", "--loglevel=WARNING"),
        *("-n", f"{name}-{uuid.uuid4().hex[:6]}@%h"),
    )


def start_sweeper(env: dict[str, str]) -> subprocess.Popen:
    return start_process(env, "manage.py", "sweep", "--every", LEASE_ENV["RESEARCH_SWEEP_SECONDS"])


def stop(process: subprocess.Popen | None, sig: int = signal.SIGTERM) -> None:
    if process is not None and process.poll() is None:
        os.killpg(process.pid, sig)
        process.wait(timeout=30)


def history(task: ResearchTask) -> str:
    """What happened to the task, for a failure message: its events and its jobs."""
    events = [f"{e.at:%H:%M:%S.%f} {e.stage} {e.kind}: {e.message}" for e in Event.objects.filter(task=task)]
    jobs = [
        f"job {j.pk} {j.kind}{j.args} sent={j.sent_at} started={j.started_at} runs={j.runs} "
        f"expiries={j.expiries} finished={j.finished_at} {j.retry_reason}"
        for j in StageJob.objects.filter(task=task)
    ]
    return "\n".join(events + jobs)


def database_url() -> str:
    db = connection.settings_dict
    host, port = db["HOST"] or "127.0.0.1", db["PORT"] or 5432
    return f"postgres://{db['USER']}@{host}:{port}/{db['NAME']}"


@pytest.fixture(params=["redis", "filesystem"])
def crash_env(request, stub_web, stub_tavily, llm, tmp_path, settings):
    """The environment of the worker and sweeper processes, on the Redis or the filesystem broker."""
    if connection.vendor != "postgresql" or not settings.CELERY_BROKER_URL.startswith("redis"):
        pytest.skip("needs PostgreSQL and Redis, which `make test` provides, to share tasks with processes")
    llm.delay = MODEL_DELAY
    broker = settings.CELERY_BROKER_URL if request.param == "redis" else "filesystem://"
    if request.param == "filesystem":
        # This process talks to Redis; only the sweeper, on the workers' broker, sends the jobs.
        settings.RESEARCH = {**settings.RESEARCH, "RELAY_ON_COMMIT": False}
    else:
        from researchapp.celery import app

        app.control.purge()
    return {
        **os.environ,
        **LEASE_ENV,
        "DATABASE_URL": database_url(),
        "CELERY_BROKER_URL": broker,
        "CELERY_VISIBILITY_TIMEOUT": "3600",
        "RESEARCH_VAR_DIR": str(tmp_path / "var"),
        "TAVILY_API_KEY": "tvly-test-key",
        "TAVILY_API_BASE_URL": stub_tavily.base_url,
        "OPENAI_API_KEY": "sk-test-key",
        "OPENAI_BASE_URL": llm.base_url,
        "FETCH_ALLOWED_HOSTS": ",".join(stub_web.allowed_hosts),
        "RESEARCH_CONCURRENCY": "2",
        "RESEARCH_RESULTS_PER_QUERY": "5",
        "RESEARCH_AUTO_FOLLOWUP": "never",  # one round, so the evidence can be recomputed exactly
    }


def test_it_finishes_a_task_whose_worker_was_killed_in_every_stage(
    crash_env, stub_web, stub_tavily, llm, researcher
):
    stub_tavily.results = web_results(stub_web, delay=PAGE_DELAY)
    workers: list[subprocess.Popen] = [start_worker(crash_env, "first")]
    sweeper = start_sweeper(crash_env)
    try:
        # given a live task with model-backed stages, auto-approved at every gate
        task = task_submit(
            owner=researcher, question=QUESTION, search_provider="tavily", engine="openai", auto_approve=True
        )

        def in_the_middle_of(job: Job, started) -> bool:
            running = StageJob.objects.running().filter(task=task, kind=job).exists()
            return running and started()

        asked = lambda: len(llm.chats)  # noqa: E731 - requests the model has received so far
        stages = [
            (Job.PLAN, lambda before: asked() > before),
            # searched, so its slow pages are being fetched (sources are stored once all are in)
            (Job.COLLECT, lambda before: len(stub_tavily.searches) > 0),
            (Job.ANALYSE, lambda before: asked() > before),
            (Job.WRITE, lambda before: asked() > before),
        ]
        for job, started in stages:
            before = asked()
            wait_for(
                lambda job=job, started=started, before=before: in_the_middle_of(
                    job, lambda: started(before)
                ),
                timeout=120,
                what=f"a worker in the middle of the {job} stage",
            )
            # when the worker dies without warning in the middle of the stage
            stop(workers[-1], signal.SIGKILL)
            # then a fresh worker, with the sweeper, runs the stage again
            workers.append(start_worker(crash_env, f"after-{job}"))

        wait_for_status(task, ResearchTask.Status.APPROVED, timeout=180)
    except AssertionError as error:
        raise AssertionError(f"{error}\n{history(task)}") from None
    finally:
        for process in (*workers, sweeper):
            stop(process)

    # and the sweeper restarted each stage after its worker's lease expired
    restarted = set(
        Event.objects.filter(task=task, data__code="lease_expired").values_list("stage", flat=True)
    )
    assert restarted == {"planning", "collecting", "analysing", "writing"}
    # and nothing is doubled: one plan, each page stored once, one finding per key, one draft per revision
    assert task.plans.count() == 1
    found = {
        normalize_url(result["url"]) for body in stub_tavily.searches for result in stub_tavily.results(body)
    }
    stored = list(Source.objects.filter(task=task).values_list("normalized_url", flat=True))
    assert len(stored) == len(set(stored))
    assert set(stored) == found
    keys = list(Finding.objects.filter(task=task).values_list("subquestion_id", "key"))
    assert keys and len(keys) == len(set(keys))
    revisions = list(task.drafts.values_list("write_pass", "revision"))
    assert len(revisions) == len(set(revisions))
    # and nothing is lost: each sub-question's evidence is exactly what selecting passages gives
    for subquestion in runner.approved_subquestions(task):
        assert subquestion.collected_round == 1
        sources = [rows.source_value(s) for s in gathered_sources(subquestion)]
        expected = {
            (p.source_id, p.start, p.end)
            for p in select_with_hops(
                rows.subquestion_value(subquestion),
                sources,
                question=task.question,
                max_passages=settings.RESEARCH["MAX_PASSAGES_PER_SUBQUESTION"],
                closest=CLOSEST_PASSAGES,
            )
        }
        # (besides the other side of a dispute, stored on the sub-question of the passage it disputes)
        stored = Evidence.objects.filter(subquestion=subquestion)
        stored_spans = set(stored.filter(paired_with=None).values_list("source_id", "start", "end"))
        assert stored_spans == expected
        assert not stored.exclude(paired_with=None).exclude(paired_with__task=task).exists()
    assert not StageJob.objects.filter(task=task, finished_at__isnull=True).exists()
    call_command("ledger_verify", task=task.pk, stdout=StringIO())
