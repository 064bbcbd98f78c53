"""Run standard tasks end to end: stub world, throwaway database, real Celery workers.

Shared by ``pipeline_time``, ``tokens`` and ``throughput``. The app is configured the way
production is, through the environment, before ``django.setup()``: Tavily and OpenAI point at
the stubs, the fetcher may reach the stub site's port on 127.0.0.1, the broker is Redis (a
database number of its own) and workers are ``celery -A researchapp worker --pool=threads``
subprocesses. Tasks are submitted with ``task_submit(..., auto_approve=True)`` and the benchmark
polls the database until each one is approved, failed or cancelled (or the time limit passes).
"""

from __future__ import annotations

import os
import socket
import subprocess
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from bench.server import VENV_BIN, start, stop
from bench.stub_world import World, question_for

REDIS = "redis://127.0.0.1:6379"
TERMINAL = ("approved", "failed", "cancelled")


def require_redis(db: int) -> None:
    from bench.common import Skipped

    try:
        import redis

        redis.Redis.from_url(f"{REDIS}/{db}", socket_connect_timeout=2).ping()
    except Exception as error:
        raise Skipped(f"skipped: no Redis at {REDIS} ({error})") from error


def configure(world: World, *, database_url: str, broker_db: int, shared_redis: bool = False) -> Path:
    """Point the app at the stubs, migrate the database; returns the scratch folder.

    ``shared_redis``: the provider cache and the search rate limit live in the broker's Redis
    database, shared by every worker as in production (that database is emptied first: ours
    alone). Otherwise both stay in-process and in the scratch folder, as in the embedded profile.
    """
    scratch = Path(tempfile.mkdtemp(prefix="bench-run-"))
    if shared_redis:
        os.environ["REDIS_URL"] = f"{REDIS}/{broker_db}"
    else:
        os.environ.pop("REDIS_URL", None)
    os.environ.update(world.env)
    os.environ.update(
        {
            "DATABASE_URL": database_url.replace("{scratch}", str(scratch)),
            "CELERY_BROKER_URL": f"{REDIS}/{broker_db}",
            "RESEARCH_VAR_DIR": str(scratch / "var"),
            "DJANGO_SETTINGS_MODULE": "researchapp.settings",
            "DEBUG": "false",
            "LOG_LEVEL": "WARNING",
        }
    )
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)
    if shared_redis:
        from django.core.cache import cache

        cache.clear()  # pages and searches cached by an earlier run must not answer for this one
    # A queue of our own: other workers on this Redis must not take our tasks (see bench.worker).
    os.environ["BENCH_QUEUE"] = f"bench-{os.getpid()}-{int(time.time())}"
    from bench.worker import use_queue

    use_queue(os.environ["BENCH_QUEUE"])
    return scratch


def forget_queue(broker_db: int) -> None:
    """Delete our queue and kombu's bookkeeping of it from the broker, so runs leave nothing behind."""
    import redis

    queue = os.environ.get("BENCH_QUEUE")
    if not queue:
        return
    client = redis.Redis.from_url(f"{REDIS}/{broker_db}")
    # each of our queues (with its priority lists), and our queues' bindings to the exchange
    keys = list(client.scan_iter(f"{queue}.*"))
    if keys:
        client.delete(*keys)
    for binding in client.scan_iter("_kombu.binding.*"):
        ours = [m for m in client.smembers(binding) if queue.encode() in m]
        if ours:
            client.srem(binding, *ours)
    client.close()


def start_workers(count: int, concurrency: int, scratch: Path, timeout: float = 60) -> list[subprocess.Popen]:
    """``count`` worker processes, each a thread pool of ``concurrency``; waits until all answer a ping.

    Only our workers' names count: Redis pub/sub ignores database numbers, so workers of other
    brokers on this Redis (a test suite's) answer the broadcast ping too.
    """
    from researchapp.celery import app

    names = [f"bench{i}-{os.getpid()}@{socket.gethostname()}" for i in range(count)]
    workers = [
        start(
            [
                str(VENV_BIN / "python"),
                "-m",
                "bench.worker",
                "--pool=threads",
                f"--concurrency={concurrency}",
                "-n",
                name,
                "--without-gossip",
                "--without-mingle",
                "--loglevel=INFO",
            ],
            {},
            scratch / f"worker{i}.log",
        )
        for i, name in enumerate(names)
    ]
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if any(worker.poll() is not None for worker in workers):
            break
        answered = {
            name for reply in app.control.ping(destination=names, timeout=1.0) or [] for name in reply
        }
        if answered >= set(names):
            return workers
    for worker in workers:
        stop(worker)
    raise RuntimeError(f"{count} Celery worker(s) did not come up; see {scratch}/worker*.log")


def stop_workers(workers: list[subprocess.Popen]) -> None:
    for worker in workers:
        stop(worker, timeout=20)


@dataclass
class Batch:
    """What happened to a batch of tasks submitted together."""

    submitted_at: float  # epoch seconds, just before the first submit
    task_ids: list[int]
    finished_at: dict[int, float] = field(default_factory=dict)  # epoch seconds, per terminal task
    statuses: Counter = field(default_factory=Counter)
    failures: list[str] = field(default_factory=list)

    @property
    def wall(self) -> float:
        return max(self.finished_at.values(), default=self.submitted_at) - self.submitted_at

    @property
    def done(self) -> int:
        return self.statuses.get("approved", 0)


def submit_and_wait(count: int, *, timeout: float, first_case: int) -> Batch:
    """Submit ``count`` tasks at once (cases ``first_case``, ``first_case + 1``, ...); wait for them all."""
    from django.contrib.auth import get_user_model

    from researchapp.models import ResearchTask
    from researchapp.services.submission import task_submit

    owner, _ = get_user_model().objects.get_or_create(username="bench")
    batch = Batch(submitted_at=time.time(), task_ids=[])
    for number in range(count):
        task = task_submit(
            owner=owner,
            question=question_for(first_case + number),
            auto_approve=True,
            search_provider="tavily",
            engine="openai",
            quota=False,  # a load test: every task at once, whatever the per-person limits
        )
        batch.task_ids.append(task.pk)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        rows = list(
            ResearchTask.objects.filter(pk__in=batch.task_ids, status__in=TERMINAL).values_list(
                "pk", "status", "finished_at", "updated_at", "failure_reason"
            )
        )
        if len(rows) == count:
            break
        time.sleep(0.1)
    for pk, status, finished_at, updated_at, reason in rows:
        batch.statuses[status] += 1
        batch.finished_at[pk] = (finished_at or updated_at).timestamp()
        if status == "failed":
            batch.failures.append(f"task {pk}: {reason}")
    unfinished = count - len(rows)
    if unfinished:
        batch.statuses["unfinished at the time limit"] += unfinished
    return batch


def task_costs(task_ids: list[int]) -> dict[str, float]:
    """Model tokens, calls, sources and characters extracted, summed over ``task_ids``."""
    from django.db.models import Count, Max, Sum
    from django.db.models.functions import Length

    from researchapp.models import Evidence, Finding, LLMCall, ReportDraft, ResearchTask, Source

    calls = LLMCall.objects.filter(task_id__in=task_ids).aggregate(
        tokens_in=Sum("tokens_in"), tokens_out=Sum("tokens_out"), calls=Count("id")
    )
    sources = Source.objects.filter(task_id__in=task_ids).aggregate(n=Count("id"), chars=Sum(Length("text")))
    findings = Counter(Finding.objects.filter(task_id__in=task_ids).values_list("status", flat=True))
    drafts = ReportDraft.objects.filter(task_id__in=task_ids, status="approved")
    return {
        "tokens_in": calls["tokens_in"] or 0,
        "tokens_out": calls["tokens_out"] or 0,
        "llm_calls": calls["calls"],
        "sources": sources["n"],
        "chars_extracted": sources["chars"] or 0,
        "evidence": Evidence.objects.filter(task_id__in=task_ids).count(),
        "findings": dict(findings),
        "claims": sum(len(d.claims) for d in drafts),
        "approved_reports": drafts.count(),
        "rounds": ResearchTask.objects.filter(pk__in=task_ids).aggregate(n=Max("round"))["n"] or 0,
    }


def stage_seconds(task_id: int) -> dict[str, float]:
    """Seconds from submission to the first event of each stage, from the task's event rows."""
    from researchapp.models import Event, ResearchTask

    task = ResearchTask.objects.get(pk=task_id)
    firsts: dict[str, float] = {}
    for event in Event.objects.filter(task_id=task_id, kind="transition").order_by("id"):
        to = (event.data or {}).get("to", "")
        firsts.setdefault(to, (event.at - task.created_at).total_seconds())
    return firsts
