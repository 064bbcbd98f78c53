"""Throughput: 50 standard tasks submitted at once, one Celery worker, then two.

Every stub latency is scaled by ``--scale`` (0.1 by default: search 30 ms, pages 20–150 ms, model
100 ms per call), so two batches of 50 tasks fit the 15-minute budget of ``make bench``; the search
rate limit is scaled alike (the app's 5 searches/s becomes 50/s), so the run is the real one with
time compressed tenfold, and the figure leans towards what the machine's CPU and database can do.
As in production, the rate limit and the provider cache are shared by all workers through Redis
(database 13, also the broker's; emptied before and after). Each worker is ``celery -A
researchapp worker --pool=threads --concurrency N`` (on a queue of its own, ``bench.worker``); a
throwaway PostgreSQL database (``bench_throughput``) is dropped at the end.

At full time the shared limit caps throughput whatever the workers: a standard task makes 10
searches, so 5 searches/s allow at most 30 tasks a minute (``--search-rate 5`` shows it).

Figures: tasks per minute (approved tasks / (last finish - first submit)) with one worker and with
two, and the scaling factor between them.

    python -m bench.throughput [--tasks 50 --scale 0.1 --concurrency 8]
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil

from bench.common import Figure, Skipped, main
from bench.server import create_database, drop_database, postgres_available

NAME = "throughput"
DATABASE = "bench_throughput"
BROKER_DB = 13


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--tasks", type=int, default=50)
    parser.add_argument("--scale", type=float, default=0.1, help="multiplies every stub latency")
    parser.add_argument("--concurrency", type=int, default=8, help="threads per worker")
    parser.add_argument("--timeout", type=float, default=240, help="seconds a batch may take")
    parser.add_argument("--workers", default="1,2", help="worker counts to try, in order")
    parser.add_argument(
        "--search-rate",
        type=float,
        default=None,
        help="TAVILY_RATE_PER_SECOND (default: the app's 5/s divided by --scale)",
    )


def _cpu(who: int) -> float:
    usage = resource.getrusage(who)
    return usage.ru_utime + usage.ru_stime


def measure(count: int, args: argparse.Namespace, scratch, search_rate: float) -> tuple[float, Figure]:
    """One batch of tasks with ``count`` workers: its tasks per minute, and the figure that says so."""
    from bench.standard_task import start_workers, stop_workers, submit_and_wait

    workers = start_workers(count, args.concurrency, scratch)
    own_cpu, worker_cpu = _cpu(resource.RUSAGE_SELF), _cpu(resource.RUSAGE_CHILDREN)
    try:
        batch = submit_and_wait(args.tasks, timeout=args.timeout, first_case=1000 * count)
    finally:
        stop_workers(workers)  # reaped here, so their CPU time shows in RUSAGE_CHILDREN
    own_cpu, worker_cpu = _cpu(resource.RUSAGE_SELF) - own_cpu, _cpu(resource.RUSAGE_CHILDREN) - worker_cpu
    per_minute = batch.done / batch.wall * 60 if batch.wall > 0 else 0.0
    figure = Figure(
        NAME,
        f"{count} worker{'s' if count > 1 else ''} x {args.concurrency} threads",
        round(per_minute, 1),
        "tasks/min",
        note=f"{batch.done}/{args.tasks} approved in {batch.wall:.1f}s; "
        f"{dict(batch.statuses)}; latencies x{args.scale}, searches {search_rate:g}/s; "
        f"CPU: workers {worker_cpu:.0f}s, stubs+bench {own_cpu:.0f}s"
        + (f"; {batch.failures[0][:200]}" if batch.failures else ""),
    )
    return per_minute, figure


def clean_up(scratch) -> None:
    """Empty the broker's queue and our Redis database, drop the database and the scratch folder."""
    from bench.standard_task import forget_queue

    forget_queue(BROKER_DB)
    from django.db import connections

    if scratch is not None:
        from django.core.cache import cache

        cache.clear()  # our Redis database: pages, searches and the rate limiter's key

    connections.close_all()
    drop_database(DATABASE)
    if scratch is not None:
        shutil.rmtree(scratch, ignore_errors=True)


def run(args: argparse.Namespace) -> list[Figure]:
    from bench.standard_task import configure, require_redis
    from bench.stub_world import World

    if not postgres_available():
        raise Skipped("skipped: no PostgreSQL at 127.0.0.1:5432")
    require_redis(BROKER_DB)
    search_rate = args.search_rate or float(os.environ.get("TAVILY_RATE_PER_SECOND", "5")) / args.scale
    os.environ["TAVILY_RATE_PER_SECOND"] = f"{search_rate:g}"
    database_url = create_database(DATABASE)
    rates: dict[int, float] = {}
    figures: list[Figure] = []
    scratch = None
    try:
        with World(scale=args.scale) as world:
            scratch = configure(world, database_url=database_url, broker_db=BROKER_DB, shared_redis=True)
            for count in (int(n) for n in args.workers.split(",")):
                rates[count], figure = measure(count, args, scratch, search_rate)
                figures.append(figure)
    finally:
        clean_up(scratch)
    if 1 in rates and 2 in rates and rates[1] > 0:
        figures.append(
            Figure(
                NAME,
                "scaling, 1 → 2 workers",
                round(rates[2] / rates[1], 2),
                "x",
                note=f"{os.cpu_count()} cores shared by workers, stubs and PostgreSQL",
            )
        )
    return figures


if __name__ == "__main__":
    main(NAME, run, add_arguments)
