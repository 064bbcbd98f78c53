"""A worker killed in the middle of collection (SIGKILL) loses nothing and duplicates nothing.

The stage messages are acknowledged late, so the broker hands them to the next worker; every
stage is an idempotent upsert, so running one again finishes the job instead of repeating it.
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
from researchapp.models import Evidence, ResearchTask, Source, SubQuestion
from researchapp.pipeline import runner
from researchapp.pipeline.collector.hops import select_with_hops
from researchapp.pipeline.runner import rows
from researchapp.pipeline.runner.collect import CLOSEST_PASSAGES
from researchapp.services.submission import task_submit
from tests.helpers import wait_for, wait_for_status
from tests.live import QUESTION, web_results

pytestmark = [pytest.mark.worker, pytest.mark.django_db(transaction=True)]
ROOT = Path(__file__).resolve().parent.parent
PAGE_DELAY = 1.0  # seconds per page, so collection is still running when the worker dies


def start_worker(env: dict[str, str], name: str) -> subprocess.Popen:
    return subprocess.Popen(
        [
            sys.executable,
            "-m",
            "celery",
            "-A",
            "researchapp",
            "worker",
            "--pool=threads",
            "--concurrency=4",
            "--without-gossip",
            "--without-mingle",
            "--without-heartbeat",
            "--loglevel=WARNING",
            "-n",
            name,
        ],
        cwd=ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        start_new_session=True,
    )


@pytest.fixture
def worker_env(stub_web, stub_tavily, tmp_path):
    if connection.vendor != "postgresql" or not settings.CELERY_BROKER_URL.startswith("redis"):
        pytest.skip(
            "needs PostgreSQL and Redis, which `make test` provides, to share the task with a worker process"
        )
    db = connection.settings_dict
    host, port = db["HOST"] or "127.0.0.1", db["PORT"] or 5432
    return {
        **os.environ,
        "DATABASE_URL": f"postgres://{db['USER']}@{host}:{port}/{db['NAME']}",
        "CELERY_BROKER_URL": settings.CELERY_BROKER_URL,
        "CELERY_VISIBILITY_TIMEOUT": "3",
        "RESEARCH_VAR_DIR": str(tmp_path / "var"),
        "TAVILY_API_KEY": "tvly-test-key",
        "TAVILY_API_BASE_URL": stub_tavily.base_url,
        "FETCH_ALLOWED_HOSTS": ",".join(stub_web.allowed_hosts),
        "RESEARCH_CONCURRENCY": "2",
        "RESEARCH_RESULTS_PER_QUERY": "5",
        "RESEARCH_AUTO_FOLLOWUP": "never",  # one round, so the evidence can be recomputed exactly
    }


def test_it_finishes_a_task_whose_worker_was_killed_mid_collection(
    worker_env, stub_web, stub_tavily, researcher
):
    from researchapp.celery import app

    app.control.purge()
    stub_tavily.results = web_results(stub_web, delay=PAGE_DELAY)

    # given a live task collecting slow pages on worker A
    first = start_worker(worker_env, f"doomed-{uuid.uuid4().hex[:6]}@%h")
    second = None
    try:
        task = task_submit(
            owner=researcher,
            question=QUESTION,
            search_provider="tavily",
            engine="extractive",
            auto_approve=True,
        )
        wait_for(
            lambda: Source.objects.filter(task=task).exists(), timeout=60, what="the first stored source"
        )

        # when worker A dies without warning in the middle of collection
        unfinished = SubQuestion.objects.filter(plan__task=task, collected_round=0).count()
        os.killpg(first.pid, signal.SIGKILL)
        first.wait(timeout=10)
        assert unfinished, "the worker must die before collection ends, or this test proves nothing"
        assert ResearchTask.objects.get(pk=task.pk).status == ResearchTask.Status.COLLECTING

        # then worker B picks the unacknowledged stages up and the task finishes
        second = start_worker(worker_env, f"rescuer-{uuid.uuid4().hex[:6]}@%h")
        wait_for_status(task, ResearchTask.Status.APPROVED, timeout=120)
    finally:
        for process in (first, second):
            if process and process.poll() is None:
                os.killpg(process.pid, signal.SIGTERM)
                process.wait(timeout=30)

    # and every page the searches found is stored exactly once
    found = {
        normalize_url(result["url"]) for body in stub_tavily.searches for result in stub_tavily.results(body)
    }
    stored = list(Source.objects.filter(task=task).values_list("normalized_url", flat=True))
    assert len(stored) == len(set(stored))
    assert set(stored) == found
    # and each sub-question's evidence is exactly what selecting passages over its sources gives
    for subquestion in runner.approved_subquestions(task):
        assert subquestion.collected_round == 1
        sources = [rows.source_value(s) for s in subquestion.sources.all()]
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
        stored_spans = set(
            Evidence.objects.filter(subquestion=subquestion).values_list("source_id", "start", "end")
        )
        assert stored_spans == expected
    call_command("ledger_verify", task=task.pk, stdout=StringIO())
