"""Review desk at size: 1,000 tasks and 10,000 findings in PostgreSQL, served by gunicorn.

1. Create a throwaway database (``--database``, default ``bench_desk``), migrate it, seed 10 tasks
   (``bench.desk_data``).
2. Count the database queries of every page in-process (test Client + CaptureQueriesContext).
3. Seed up to ``--tasks`` tasks / ``--findings`` findings, ANALYZE the tables; count the queries
   again: a page whose count changed grows with the rows.
4. Serve the database with gunicorn (2 sync workers) on 127.0.0.1 and request every page, logged
   in as an analyst, ``--requests`` times each from ``--concurrency`` client threads, in rounds
   that interleave the pages (so a burst of load from elsewhere hits all of them), beside
   ``/healthz``, a trivial view that runs ``SELECT 1``. Report p50/p95 latency per page.
5. Stop gunicorn and drop the database, whatever happened.

Settings are the embedded profile's with DEBUG off (as deployed); ``conn_max_age=0``, so every
request, ``/healthz`` included, opens its own database connection.

    python -m bench.review_desk [--tasks 1000 --findings 10000 --requests 200 --concurrency 4]
        [--database bench_desk]   # another name when several checkouts share one PostgreSQL
"""

from __future__ import annotations

import argparse
import logging
import os
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path

import httpx

from bench.common import Figure, Skipped, main
from bench.server import (
    create_database,
    drop_database,
    free_port,
    gunicorn,
    postgres_available,
    stop,
    wait_http,
)

NAME = "review_desk"
DATABASE = "bench_desk"
ROUNDS = 4


def setup_django(database_url: str) -> None:
    logging.getLogger("httpx").setLevel(logging.WARNING)  # one INFO line per request otherwise
    os.environ["DATABASE_URL"] = database_url
    os.environ["DEBUG"] = "false"
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "researchapp.settings")
    os.environ.setdefault("RESEARCH_VAR_DIR", tempfile.mkdtemp(prefix="bench-desk-var-"))
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)


def analyze_tables() -> None:
    """Give the planner the statistics autovacuum would have gathered by now on a database in use
    (right after a bulk load it still plans for empty tables)."""
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("ANALYZE")


def pages_for(tasks) -> dict[str, str]:
    """The URL of every page, for tasks waiting at each gate (the first ten tasks hold them all)."""
    from django.urls import reverse

    first = {}
    for task in tasks:
        first.setdefault(task.status, task)
    evidence, plan = first["awaiting_evidence_review"], first["awaiting_plan_review"]
    report = first["awaiting_report_review"]
    return {
        "task_list": reverse("task_list"),
        "task_detail": reverse("task_detail", args=[evidence.pk]),
        "plan_review": reverse("plan_review", args=[plan.pk]),
        "evidence_review": reverse("evidence_review", args=[evidence.pk]),
        "report_view": reverse("report_view", args=[report.pk]),
        "review_queue": reverse("review_queue"),
        "review_queue (conflicts)": reverse("review_queue") + "?queue=conflicts",
        "task_audit": reverse("task_audit", args=[evidence.pk]),
    }


def count_queries(pages: dict[str, str], analyst) -> dict[str, tuple[int, float, float, int]]:
    """Per page: (queries, median in-process ms, of which SQL ms, HTML bytes), over 5 requests."""
    from django.db import connection
    from django.test import Client
    from django.test.utils import CaptureQueriesContext

    client = Client()
    client.force_login(analyst)
    measured = {}
    for name, url in pages.items():
        client.get(url)  # warm: the first request of a session may load more
        runs = []
        for _ in range(5):
            with CaptureQueriesContext(connection) as captured:
                started = time.perf_counter()
                response = client.get(url)
                elapsed = time.perf_counter() - started
            if response.status_code != 200:
                raise RuntimeError(f"{name} ({url}) answered {response.status_code} in-process")
            sql = sum(float(query["time"]) for query in captured.captured_queries)
            runs.append((len(captured.captured_queries), elapsed * 1000, sql * 1000, len(response.content)))
        runs.sort(key=lambda run: run[1])
        measured[name] = runs[len(runs) // 2]
    return measured


def session_cookie(analyst) -> tuple[str, str]:
    from django.conf import settings
    from django.test import Client

    client = Client()
    client.force_login(analyst)
    return settings.SESSION_COOKIE_NAME, client.cookies[settings.SESSION_COOKIE_NAME].value


def hammer(
    url: str, cookies: dict[str, str], count: int, concurrency: int, deadline: float
) -> tuple[list[float], int]:
    """``count`` GETs of ``url`` from ``concurrency`` threads; stops early at ``deadline``."""
    latencies: list[float] = []
    errors = 0
    remaining = [count]
    lock = threading.Lock()

    def worker() -> None:
        nonlocal errors
        with httpx.Client(cookies=cookies, timeout=30, trust_env=False) as client:
            while time.monotonic() < deadline:
                with lock:
                    if remaining[0] <= 0:
                        return
                    remaining[0] -= 1
                started = time.perf_counter()
                try:
                    ok = client.get(url).status_code == 200
                except httpx.HTTPError:
                    ok = False
                elapsed = time.perf_counter() - started
                with lock:
                    latencies.append(elapsed) if ok else None
                    errors += not ok

    threads = [threading.Thread(target=worker) for _ in range(concurrency)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return latencies, errors


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))] if ordered else float("nan")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--tasks", type=int, default=1000)
    parser.add_argument("--findings", type=int, default=10_000)
    parser.add_argument("--requests", type=int, default=200, help="requests per page")
    parser.add_argument("--concurrency", type=int, default=4)
    parser.add_argument(
        "--page-seconds",
        type=float,
        default=24,
        help="time limit per page (all rounds together); a slow page gets fewer requests",
    )
    parser.add_argument("--workers", type=int, default=2, help="gunicorn workers")
    parser.add_argument(
        "--database", default=DATABASE, help="name of the throwaway database (created, then dropped)"
    )


@dataclass(frozen=True)
class Seeded:
    """The desk as seeded: its pages, their query counts at 10 tasks and at full size, its rows."""

    pages: dict[str, str]
    queries_small: dict[str, tuple[int, float, float, int]]
    queries_large: dict[str, tuple[int, float, float, int]]
    n_tasks: int
    n_findings: int
    n_review: int
    seed_seconds: float
    cookies: dict[str, str]  # the analyst's session


def seed_and_count(args: argparse.Namespace) -> Seeded:
    """Steps 1-3: seed 10 tasks and count each page's queries, seed the rest and count again."""
    from django.db import connections

    from bench.desk_data import seed, users
    from researchapp.models import Finding, ResearchTask

    analyst, _ = users()
    # The first 10 tasks get the same share of findings per task as the full desk will have.
    small_findings = args.findings * 10 // args.tasks
    pages = pages_for(seed(10, small_findings))
    queries_small = count_queries(pages, analyst)
    started = time.monotonic()
    seed(args.tasks - 10, args.findings - small_findings, start_index=10)
    seed_seconds = time.monotonic() - started
    analyze_tables()
    seeded = Seeded(
        pages=pages,
        queries_small=queries_small,
        queries_large=count_queries(pages, analyst),
        n_tasks=ResearchTask.objects.count(),
        n_findings=Finding.objects.count(),
        n_review=Finding.objects.needing_review().count(),
        seed_seconds=seed_seconds,
        cookies=dict([session_cookie(analyst)]),
    )
    connections.close_all()
    return seeded


def serve_and_load(
    database_url: str, args: argparse.Namespace, targets: dict[str, str], cookies: dict[str, str]
) -> tuple[dict[str, list[float]], dict[str, int]]:
    """Step 4: every target under gunicorn, in rounds; the latencies and the failures of each."""
    port = free_port()
    log = Path(tempfile.gettempdir()) / f"bench-gunicorn-{port}.log"
    environment = {
        "DATABASE_URL": database_url,
        "DEBUG": "false",
        "RESEARCH_VAR_DIR": os.environ["RESEARCH_VAR_DIR"],
    }
    server = gunicorn(port, environment, log, workers=args.workers)
    try:
        origin = f"http://127.0.0.1:{port}"
        wait_http(origin + "/healthz")
        latencies: dict[str, list[float]] = {name: [] for name in targets}
        errors = dict.fromkeys(targets, 0)
        per_round = max(1, args.requests // ROUNDS)
        for _ in range(ROUNDS):
            for name, path in targets.items():
                deadline = time.monotonic() + args.page_seconds / ROUNDS
                got, failed = hammer(origin + path, cookies, per_round, args.concurrency, deadline)
                latencies[name] += got
                errors[name] += failed
    finally:
        stop(server)
    return latencies, errors


def figures_for(
    seeded: Seeded, targets: dict[str, str], latencies: dict[str, list[float]], errors: dict[str, int]
) -> list[Figure]:
    base_p95 = percentile(latencies["healthz (trivial)"], 0.95)
    n_tasks = seeded.n_tasks
    figures = [
        Figure(
            NAME,
            "rows",
            f"{n_tasks:,} tasks, {seeded.n_findings:,} findings ({seeded.n_review:,} awaiting review)",
            note=f"seeded in {seeded.seed_seconds:.1f}s",
        ),
    ]
    for name in targets:
        got = latencies[name]
        p50, p95 = percentile(got, 0.5) * 1000, percentile(got, 0.95) * 1000
        is_page = name in seeded.pages
        figures.append(
            Figure(
                NAME,
                f"{name} p50 / p95",
                f"{p50:.1f} / {p95:.1f} ms",
                target="p95 <= 3x healthz" if is_page else "",
                met=(p95 <= 3 * base_p95 * 1000) if is_page else None,
                note=f"{len(got)} ok, {errors[name]} failed, p95 = {p95 / (base_p95 * 1000):.1f}x healthz",
            )
        )
    for name in seeded.pages:
        small, large = seeded.queries_small[name][0], seeded.queries_large[name][0]
        _, ms, sql_ms, size = seeded.queries_large[name]
        figures.append(
            Figure(
                NAME,
                f"{name} queries (10 → {n_tasks:,} tasks)",
                f"{small} → {large}",
                target="constant",
                met=small == large,
                note=f"in-process at {n_tasks:,} tasks: {ms:.0f} ms, of which SQL {sql_ms:.0f} ms; "
                f"{size / 1024:.0f} KB of HTML",
            )
        )
    return figures


def run(args: argparse.Namespace) -> list[Figure]:
    if not postgres_available():
        raise Skipped("skipped: no PostgreSQL at 127.0.0.1:5432")
    database_url = create_database(args.database)
    try:
        setup_django(database_url)
        seeded = seed_and_count(args)
        targets = {"healthz (trivial)": "/healthz", **seeded.pages}
        latencies, errors = serve_and_load(database_url, args, targets, seeded.cookies)
    finally:
        try:
            from django.db import connections

            connections.close_all()
        except Exception:
            pass
        drop_database(args.database)
    return figures_for(seeded, targets, latencies, errors)


if __name__ == "__main__":
    main(NAME, run, add_arguments)
