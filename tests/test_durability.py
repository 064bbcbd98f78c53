"""Leases, the sweeper, the outbox and transient database errors, one rule at a time.

The whole-system versions (real workers killed, a real lock, a real broker stopped) are in
``test_worker_crash.py`` and ``test_outages.py``; here each rule is checked on its own, without
waiting for real time to pass (a lease "expires" by moving its heartbeat back).
"""

from __future__ import annotations

import threading
from datetime import timedelta

import psycopg
import pytest
from django.db import IntegrityError, OperationalError, connection
from django.urls import reverse
from django.utils import timezone

from researchapp.models import Event, Job, ResearchTask, Stage, StageJob
from researchapp.providers.base import ProviderError
from researchapp.selectors import task_detail
from researchapp.services import leases, stage_harness
from researchapp.services.dispatch import enqueue
from researchapp.services.sweeper import resend_unstarted, sweep
from tests.helpers import client_for

pytestmark = pytest.mark.django_db
Status = ResearchTask.Status


@pytest.fixture
def task(researcher):
    return ResearchTask.objects.create(
        question="How tall is the Greywater Point lighthouse?",
        owner=researcher,
        search_provider="local",
        engine="extractive",
    )


@pytest.fixture
def quick_leases(settings):
    settings.RESEARCH = {**settings.RESEARCH, "RELAY_ON_COMMIT": False, "MAX_STAGE_RESTARTS": 2}


def job_for(task, kind=Job.PLAN, **fields) -> StageJob:
    return StageJob.objects.create(task=task, kind=kind, args=[task.pk], sent_at=timezone.now(), **fields)


def expire(job: StageJob) -> None:
    long_ago = timezone.now() - timedelta(seconds=leases.lease_seconds() + 1)
    StageJob.objects.filter(pk=job.pk).update(heartbeat_at=long_ago)


# --- which errors are transient -----------------------------------------------------------------


def other_session() -> psycopg.Connection:
    db = connection.settings_dict
    return psycopg.connect(
        host=db["HOST"] or "127.0.0.1", port=db["PORT"] or 5432, user=db["USER"], dbname=db["NAME"]
    )


@pytest.mark.django_db(transaction=True)
def test_it_counts_a_real_deadlock_a_lock_timeout_and_a_lost_connection_as_transient(task):
    if connection.vendor != "postgresql":
        pytest.skip("PostgreSQL's own errors")
    other = ResearchTask.objects.create(question="q", owner=task.owner, search_provider="local", engine="x")
    table = ResearchTask._meta.db_table
    errors: list[BaseException] = []

    # a deadlock: this session and another lock two rows in opposite orders; this session waits
    # first, so its deadlock check (deadlock_timeout after it began waiting) is the one that fires
    with other_session() as rival:
        rival.execute(f"UPDATE {table} SET searches = 1 WHERE id = %s", [other.pk])

        def rival_takes_the_first_row() -> None:
            threading.Event().wait(0.3)
            try:
                rival.execute(f"UPDATE {table} SET searches = 1 WHERE id = %s", [task.pk])
            except psycopg.Error:
                pass

        thread = threading.Thread(target=rival_takes_the_first_row)
        try:
            with connection.cursor() as cursor, pytest.raises(OperationalError) as deadlock:
                cursor.execute("BEGIN")
                cursor.execute(f"UPDATE {table} SET searches = 2 WHERE id = %s", [task.pk])
                thread.start()
                cursor.execute(f"UPDATE {table} SET searches = 2 WHERE id = %s", [other.pk])
        finally:
            with connection.cursor() as cursor:
                cursor.execute("ROLLBACK")
            thread.join()
        rival.rollback()
    errors.append(deadlock.value)

    # a lock timeout: another session holds the row longer than this one will wait
    with other_session() as holder:
        holder.execute(f"SELECT id FROM {table} WHERE id = %s FOR UPDATE", [task.pk])
        with connection.cursor() as cursor, pytest.raises(OperationalError) as lock_timeout:
            cursor.execute("SET lock_timeout = 100")
            cursor.execute(f"UPDATE {table} SET searches = 3 WHERE id = %s", [task.pk])
        holder.rollback()
    errors.append(lock_timeout.value)

    # a lost connection: the server ends this session
    with other_session() as admin:
        pid = connection.cursor().connection.info.backend_pid
        admin.execute("SELECT pg_terminate_backend(%s)", [pid])
    with pytest.raises((OperationalError,)) as lost:
        connection.cursor().execute("SELECT 1")
    errors.append(lost.value)
    connection.close()

    assert [getattr(e.__cause__, "sqlstate", None) for e in errors[:2]] == ["40P01", "55P03"]
    assert all(leases.transient_database_error(e) for e in errors), errors
    assert not leases.transient_database_error(IntegrityError("duplicate key"))
    assert not leases.transient_database_error(ValueError("not a database error"))


# --- stages under a busy database -----------------------------------------------------------------


def busy(task) -> None:
    raise OperationalError("database is locked")


def test_it_retries_a_stage_that_meets_a_busy_database_instead_of_failing_the_task(task, quick_leases):
    # given a claimed plan job whose stage meets a busy database
    job = job_for(task)

    # when the stage runs (not its last attempt)
    with pytest.raises(stage_harness.TransientStageError):
        stage_harness.run_stage(task.pk, Stage.PLANNING, busy, final_attempt=False, job_id=job.pk)

    # then the task is not failed: the job is handed back for a retry, and the page says why
    task.refresh_from_db()
    job.refresh_from_db()
    assert task.status == Status.SUBMITTED
    assert job.started_at is None and job.finished_at is None and "busy" in job.retry_reason
    assert Event.objects.filter(task=task, data__code="database_busy").exists()
    assert task_detail(task.pk, task.owner).waiting.what == "database"


def test_it_says_a_provider_retry_is_not_a_database_wait(task, quick_leases):
    job = job_for(task)

    def rate_limited(task) -> None:
        raise ProviderError("Tavily answered 429: slow down", retryable=True, code="rate_limited")

    with pytest.raises(stage_harness.TransientStageError):
        stage_harness.run_stage(task.pk, Stage.PLANNING, rate_limited, final_attempt=False, job_id=job.pk)
    waiting = task_detail(task.pk, task.owner).waiting
    assert (waiting.what, waiting.job) == ("retry", "the planning stage")
    assert "429" in waiting.detail


def test_it_leaves_a_stage_still_blocked_at_its_last_try_to_the_sweeper_then_fails_it(task, quick_leases):
    # given a stage whose database stays busy past its last retry
    job = job_for(task)
    stage_harness.run_stage(task.pk, Stage.PLANNING, busy, final_attempt=True, job_id=job.pk)
    job.refresh_from_db()
    assert job.started_at is not None and job.finished_at is None  # the lease is left to expire

    # when its lease expires, the sweeper sends it again, up to the limit (2 here)
    for restart in (1, 2):
        expire(job)
        report = sweep()
        job.refresh_from_db()
        assert report.restarted == [job.pk] and job.expiries == restart and job.started_at is None
        leases.claim(job.pk)  # a worker takes it again, and dies again

    # then, past the limit, the task fails with the reason, and can be resumed
    expire(job)
    report = sweep()
    task.refresh_from_db()
    assert report.failed == [task.pk]
    assert task.status == Status.FAILED and task.failed_stage == Stage.PLANNING
    assert "stopped 3 times" in task.failure_reason and "resume" in task.failure_reason
    assert StageJob.objects.get(pk=job.pk).finished_at is not None


def test_it_records_the_failure_even_when_the_database_is_busy_at_first(task, monkeypatch):
    # given a stage that fails for good, and a database busy at the first try to record it
    monkeypatch.setattr(stage_harness, "FAILURE_RECORD_DELAYS", (0.0, 0.0))
    real_fail, calls = stage_harness.task_fail, []

    def busy_once(task, **kwargs):
        calls.append(1)
        if len(calls) == 1:
            raise OperationalError("database is locked")
        real_fail(task, **kwargs)

    monkeypatch.setattr(stage_harness, "task_fail", busy_once)

    def broken(task) -> None:
        raise ValueError("the planner broke")

    # when the stage runs
    stage_harness.run_stage(task.pk, Stage.PLANNING, broken)

    # then the failure is recorded on the second try, with its reason
    task.refresh_from_db()
    assert len(calls) == 2
    assert task.status == Status.FAILED and "the planner broke" in task.failure_reason


# --- leases ----------------------------------------------------------------------------------------


def test_a_live_lease_keeps_a_second_worker_off_the_job_and_an_expired_one_does_not(task):
    job = job_for(task)
    first = leases.claim(job.pk)
    assert first is not None
    assert leases.claim(job.pk) is None  # a redelivered message while the first worker is alive
    expire(job)
    second = leases.claim(job.pk)
    assert second is not None and second.run == first.run + 1
    # the first worker, thought dead, can neither beat nor finish the job any more
    assert not first.beat()
    first.finish()
    assert StageJob.objects.get(pk=job.pk).finished_at is None
    second.finish()
    assert StageJob.objects.get(pk=job.pk).finished_at is not None
    assert leases.claim(job.pk) is None  # a finished job is never run again


@pytest.mark.django_db(transaction=True)
def test_the_heartbeat_moves_while_the_stage_runs(task, settings):
    settings.RESEARCH = {**settings.RESEARCH, "HEARTBEAT_SECONDS": 0.05}
    job = job_for(task)
    lease = leases.claim(job.pk)
    first_beat = StageJob.objects.get(pk=job.pk).heartbeat_at
    with lease.heartbeat():
        threading.Event().wait(0.3)
    assert StageJob.objects.get(pk=job.pk).heartbeat_at > first_beat


# --- the outbox and the page -----------------------------------------------------------------------


def test_it_writes_the_job_in_the_transaction_that_needs_it(task, quick_leases):
    enqueue(Job.PLAN, task.pk)
    job = StageJob.objects.get(task=task)
    assert (job.kind, job.args, job.sent_at) == (Job.PLAN, [task.pk], None)


def test_it_sends_again_a_job_no_worker_started_for_long_a_few_times_at_most(task, quick_leases):
    # given a job the broker took long ago that no worker ever started (a message lost with a worker)
    job = job_for(task, sends=1)
    StageJob.objects.filter(pk=job.pk).update(sent_at=timezone.now() - timedelta(hours=1))
    # when the sweeper looks, it puts the job back in the outbox to be sent again
    assert resend_unstarted() == 1
    assert StageJob.objects.get(pk=job.pk).sent_at is None
    # and a job already sent many times is left alone: the page asks whether a worker is running
    StageJob.objects.filter(pk=job.pk).update(sent_at=timezone.now() - timedelta(hours=1), sends=9)
    assert resend_unstarted() == 0


def test_the_page_asks_whether_a_worker_is_running_when_a_job_waits(task, quick_leases):
    # given a job sent a minute ago that no worker has taken
    StageJob.objects.create(
        task=task, kind=Job.PLAN, args=[task.pk], sent_at=timezone.now() - timedelta(minutes=1), sends=1
    )

    # when its owner opens the task page
    page = client_for(task.owner).get(reverse("task_detail", args=[task.pk])).content.decode()

    # then it says what the task waits for, since when, and how to start a worker
    assert "waiting for a worker since" in page and "is a worker running?" in page
    assert "celery -A researchapp worker" in page
    assert "working…" not in page
