"""Queues per kind of work: each stage goes to its queue, and workers bound to different queues share a task.

The routing is in settings (``CELERY_TASK_ROUTES``); docker-compose.yml runs one worker per queue,
possibly on several machines. Here two real worker processes, each consuming only some of the
queues, take one task from submission to an approved report between them.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import uuid
from pathlib import Path

import pytest
from django.conf import settings
from django.core.management import call_command
from django.db import connection

from researchapp.celery import app
from researchapp.demo import DEMO_QUESTION
from researchapp.models import Job, ResearchTask, StageJob
from researchapp.services.dispatch import drain, inline
from researchapp.services.plan_gate import plan_approve
from researchapp.services.submission import task_submit
from tests.factories import UserFactory
from tests.helpers import wait_for, wait_for_status

ROOT = Path(__file__).resolve().parent.parent
STAGE_TASKS = ("plan_task", "collect_task", "finish_collection_task", "analyse_task", "write_task")


def test_it_routes_each_kind_of_work_to_its_own_queue():
    # given the settings' routes, when each task is routed, then it lands on its kind's queue
    routed = {
        name: app.amqp.router.route({}, f"researchapp.tasks.{name}")["queue"].name
        for name in (*STAGE_TASKS, "sweep_task")
    }
    assert routed == {
        "plan_task": "model",
        "collect_task": "collect",
        "finish_collection_task": "collect",
        "analyse_task": "model",
        "write_task": "write",
        "sweep_task": "sweep",
    }
    # and a worker started without -Q (make run, the tests) consumes every queue, each on its own key
    assert set(app.amqp.queues) == {"celery", "collect", "model", "write", "export", "sweep"}
    assert len({queue.routing_key for queue in app.amqp.queues.values()}) == len(app.amqp.queues)


def start_worker(env: dict[str, str], queues: str, log: Path) -> subprocess.Popen:
    command = [sys.executable, "-m", "celery", "-A", "researchapp", "worker", "-Q", queues, "--pool=threads"]
    command += ["-n", f"{queues.split(',')[0]}-{uuid.uuid4().hex[:6]}@%h", "--loglevel=INFO"]
    command += ["--without-gossip", "--without-mingle", "--without-heartbeat"]
    with log.open("wb") as out:
        return subprocess.Popen(
            command,
            cwd=ROOT,
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )


def received(log: Path) -> set[str]:
    """The stage tasks a worker received, from its log."""
    text = log.read_text(errors="replace")
    return set(re.findall(r"Task researchapp\.tasks\.(\w+)\[[0-9a-f-]+\] received", text))


def worker_env(tmp_path: Path) -> dict[str, str]:
    """The environment of worker processes sharing this test's database and broker; the demo corpus."""
    if connection.vendor != "postgresql" or not settings.CELERY_BROKER_URL.startswith("redis"):
        pytest.skip("needs PostgreSQL and Redis, which `make test` provides, to share tasks with processes")
    db = connection.settings_dict
    host, port = db["HOST"] or "127.0.0.1", db["PORT"] or 5432
    app.control.purge()
    call_command("demo_setup", stdout=open(os.devnull, "w"))
    return {
        **os.environ,
        "DATABASE_URL": f"postgres://{db['USER']}@{host}:{port}/{db['NAME']}",
        "RESEARCH_VAR_DIR": str(tmp_path / "var"),
    }


def stop_workers(workers: list[subprocess.Popen]) -> None:
    for worker in workers:
        if worker.poll() is None:
            os.killpg(worker.pid, 15)
            worker.wait(timeout=30)


@pytest.mark.worker
@pytest.mark.django_db(transaction=True)
def test_a_task_passes_through_two_workers_bound_to_different_queues(analyst, tmp_path):
    env = worker_env(tmp_path)
    # given one worker on the collection queue and another on the model and writing queues
    logs = {"collect": tmp_path / "collect.log", "model": tmp_path / "model.log"}
    workers = [
        start_worker(env, "collect,celery", logs["collect"]),
        start_worker(env, "model,write", logs["model"]),
    ]
    try:
        # when a task is submitted and every gate approves itself
        task = task_submit(owner=analyst, question=DEMO_QUESTION, auto_approve=True)

        # then it is approved, its stages split between the two workers by kind
        wait_for_status(task, ResearchTask.Status.APPROVED, timeout=120)
    finally:
        stop_workers(workers)
    # (the last collection to finish starts the analysis itself: finish_collection_task is a backstop)
    assert "collect_task" in received(logs["collect"]) <= {"collect_task", "finish_collection_task"}
    assert received(logs["model"]) == {"plan_task", "analyse_task", "write_task"}
    assert not StageJob.objects.filter(task=task, finished_at__isnull=True).exists()


@pytest.mark.worker
@pytest.mark.django_db(transaction=True)
def test_a_flood_of_one_person_does_not_delay_anothers_first_task_nor_decided_work(analyst, tmp_path):
    env = worker_env(tmp_path)
    flooder, light, decider = UserFactory(), UserFactory(), UserFactory()
    # given a task of a third person planned already (inline, no worker yet), awaiting plan review
    with inline() as queue:
        decided = task_submit(owner=decider, question=DEMO_QUESTION, quota=False)
        drain(queue)
    decided.refresh_from_db()
    assert decided.status == ResearchTask.Status.AWAITING_PLAN_REVIEW
    # and one person's twenty submissions queued at once, then another person's first one
    flood = [task_submit(owner=flooder, question=f"{DEMO_QUESTION} ({n})", quota=False) for n in range(20)]
    first = task_submit(owner=light, question=DEMO_QUESTION, quota=False)
    # and an analyst's approval of the third person's plan, after all of them
    plan_approve(plan=decided.plans.get(), actor=analyst)

    # when one worker, one job at a time, consumes every queue
    workers = [start_worker(env, ",".join(q.name for q in settings.CELERY_TASK_QUEUES), tmp_path / "w.log")]
    try:
        tasks = [*flood, first]
        wait_for(
            lambda: (
                ResearchTask.objects.filter(
                    pk__in=[t.pk for t in tasks], status="awaiting_plan_review"
                ).count()
                == len(tasks)
            ),
            timeout=180,
            what="every submission planned",
        )
    finally:
        stop_workers(workers)

    # then the other person's first planning started behind at most one of the flood's
    plans = list(StageJob.objects.filter(kind=Job.PLAN, task__in=tasks).order_by("started_at"))
    order = [job.task_id for job in plans]
    assert order.index(first.pk) <= 1, order
    # and the flood's own plans still ran in the order they were submitted
    assert [t for t in order if t != first.pk] == [t.pk for t in flood]
    # and the collection the analyst's approval started went ahead of every new submission's planning
    collected = StageJob.objects.filter(task=decided, kind=Job.COLLECT).order_by("started_at").first()
    assert collected.started_at < plans[0].started_at
