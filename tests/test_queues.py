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
from researchapp.models import ResearchTask, StageJob
from researchapp.services.submission import task_submit
from tests.helpers import wait_for_status

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


@pytest.mark.worker
@pytest.mark.django_db(transaction=True)
def test_a_task_passes_through_two_workers_bound_to_different_queues(analyst, tmp_path):
    if connection.vendor != "postgresql" or not settings.CELERY_BROKER_URL.startswith("redis"):
        pytest.skip("needs PostgreSQL and Redis, which `make test` provides, to share tasks with processes")
    db = connection.settings_dict
    host, port = db["HOST"] or "127.0.0.1", db["PORT"] or 5432
    env = {
        **os.environ,
        "DATABASE_URL": f"postgres://{db['USER']}@{host}:{port}/{db['NAME']}",
        "RESEARCH_VAR_DIR": str(tmp_path / "var"),
    }
    app.control.purge()
    call_command("demo_setup", stdout=open(os.devnull, "w"))
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
        for worker in workers:
            if worker.poll() is None:
                os.killpg(worker.pid, 15)
                worker.wait(timeout=30)
    # (the last collection to finish starts the analysis itself: finish_collection_task is a backstop)
    assert "collect_task" in received(logs["collect"]) <= {"collect_task", "finish_collection_task"}
    assert received(logs["model"]) == {"plan_task", "analyse_task", "write_task"}
    assert not StageJob.objects.filter(task=task, finished_at__isnull=True).exists()
