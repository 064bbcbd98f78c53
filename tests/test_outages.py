"""A busy database and a broker that is down delay a task; they never lose it, and the page says why.

Worker and sweeper run as processes (as in production: `celery worker` and Celery beat's sweep),
sharing this test's PostgreSQL database.
"""

from __future__ import annotations

import os
import socket
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager

import psycopg
import pytest
from django.conf import settings
from django.core.management import call_command
from django.db import connection
from django.urls import reverse

from researchapp.demo import DEMO_QUESTION
from researchapp.models import Event, Evidence, ResearchTask, Source, StageJob
from researchapp.selectors import task_detail
from researchapp.services.submission import task_submit
from tests.helpers import client_for, wait_for, wait_for_status
from tests.test_worker_crash import LEASE_ENV, database_url, history, start_sweeper, start_worker, stop

pytestmark = [pytest.mark.worker, pytest.mark.django_db(transaction=True)]
Status = ResearchTask.Status


@pytest.fixture
def process_env(tmp_path):
    if connection.vendor != "postgresql" or not settings.CELERY_BROKER_URL.startswith("redis"):
        pytest.skip("needs PostgreSQL and Redis, which `make test` provides, to share tasks with processes")
    call_command("demo_setup", stdout=open("/dev/null", "w"))
    return {
        **LEASE_ENV,
        "DATABASE_URL": database_url(),
        "CELERY_BROKER_URL": settings.CELERY_BROKER_URL,
        "RESEARCH_VAR_DIR": str(tmp_path / "var"),
        "DB_LOCK_TIMEOUT_MS": "500",
    }


@contextmanager
def running(env: dict[str, str]) -> Iterator[None]:
    """A worker and the sweeper, for the length of the block."""
    env = {**os.environ, **env}
    worker, sweeper = start_worker(env, "outage"), start_sweeper(env)
    try:
        yield
    finally:
        stop(worker)
        stop(sweeper)


@contextmanager
def table_locked(table: str) -> Iterator[None]:
    """Another session holds an EXCLUSIVE lock on ``table``: reads go on, every write waits."""
    db = connection.settings_dict
    with psycopg.connect(
        host=db["HOST"] or "127.0.0.1", port=db["PORT"] or 5432, user=db["USER"], dbname=db["NAME"]
    ) as holder:
        holder.execute(f"LOCK TABLE {table} IN EXCLUSIVE MODE")
        yield
        holder.rollback()


def test_it_finishes_a_task_once_a_lock_held_across_collection_is_released(process_env, researcher):
    with running(process_env):
        # given a task whose sources table another session has locked
        with table_locked(Source._meta.db_table):
            task = task_submit(owner=researcher, question=DEMO_QUESTION, auto_approve=True)

            # then the task waits, and its page says it waits for the database (between two retries;
            # while a retry runs, the page says so instead)
            client = client_for(researcher)

            def page_says_database() -> str:
                page = client.get(reverse("task_detail", args=[task.pk])).content.decode()
                return page if "waiting for the database" in page else ""

            page = wait_for(page_says_database, timeout=60, what="the page to say it waits for the database")
            assert "lock" in page.lower()
            time.sleep(3)  # long enough for a retry or two to meet the lock again
            task.refresh_from_db()
            assert task.status == Status.COLLECTING

        # when the lock is released, the task finishes by itself
        try:
            wait_for_status(task, Status.APPROVED, timeout=120)
        except AssertionError as error:
            raise AssertionError(f"{error}\n{history(task)}") from None

    # and nothing is lost or doubled
    assert Event.objects.filter(task=task, data__code="database_busy").exists()
    urls = list(Source.objects.filter(task=task).values_list("normalized_url", flat=True))
    assert urls and len(urls) == len(set(urls))
    assert all(e.verify() for e in Evidence.objects.filter(task=task).select_related("source"))
    assert not StageJob.objects.filter(task=task, finished_at__isnull=True).exists()


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def start_redis(port: int) -> subprocess.Popen:
    """A Redis of our own on ``port`` (never the shared one): this test stops and starts it."""
    server = subprocess.Popen(
        ["redis-server", "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
        stdout=subprocess.DEVNULL,
    )
    wait_for(lambda: _answers(port), timeout=10, what=f"redis on port {port}")
    return server


def stop_redis(server: subprocess.Popen) -> None:
    server.terminate()
    server.wait(timeout=10)


def _answers(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=0.5) as sock:
            sock.sendall(b"PING\r\n")
            return sock.recv(16).startswith(b"+PONG")
    except OSError:
        return False


@contextmanager
def celery_broker(url: str) -> Iterator[None]:
    """Point this process's Celery app at ``url``.

    Celery makes its connection and producer pools once per app; dropping them (as Celery itself does
    after a fork) makes the next publish connect to the new URL.
    """
    from researchapp.celery import app

    def repoint(to: str) -> None:
        app.conf.broker_url = app.conf.broker_write_url = to
        app._pool = None
        app.amqp._producer_pool = None

    previous = app.conf.broker_write_url or app.conf.broker_url
    repoint(url)
    try:
        yield
    finally:
        repoint(previous)


def test_it_keeps_a_task_submitted_while_the_broker_is_down_and_sends_it_when_back(process_env, researcher):
    port = free_port()
    broker = f"redis://127.0.0.1:{port}/0"
    env = {**process_env, "CELERY_BROKER_URL": broker}
    client = client_for(researcher)
    server = start_redis(port)
    try:
        with celery_broker(broker), running(env):
            # given a broker that stops while a worker is connected to it
            stop_redis(server)

            # when a researcher submits a question in the browser
            response = client.post(reverse("task_submit"), {"question": DEMO_QUESTION, "depth": "quick"})

            # then the request succeeds, the task is kept with its job in the outbox, and the page says why
            assert response.status_code == 302
            task = ResearchTask.objects.get()
            job = StageJob.objects.get(task=task)
            assert job.sent_at is None and "connect" in job.send_error.lower()
            assert task_detail(task.pk, researcher).waiting.what == "broker"
            page = client.get(reverse("task_detail", args=[task.pk])).content.decode()
            assert "waiting for the message broker" in page

            # when the broker comes back, the sweeper sends the job and a worker plans the task
            server = start_redis(port)
            try:
                wait_for_status(task, Status.AWAITING_PLAN_REVIEW, timeout=90)
            except AssertionError as error:
                raise AssertionError(f"{error}\n{history(task)}") from None
    finally:
        stop_redis(server)

    # and nothing was lost or doubled: one job, sent once, finished; one plan
    job.refresh_from_db()
    assert job.finished_at is not None and job.sends == 1
    assert task.plans.count() == 1
    assert Event.objects.filter(task=task, data__code="broker_unreachable").count() == 1
