"""Load: one person's flood against nineteen people's first tasks, and tasks per minute by worker count.

The stub world of ``bench.stub_world`` (search, pages, model) with every latency times ``--scale``
(0.1: search 30 ms, pages 20-150 ms, model 100 ms), a throwaway PostgreSQL database, the broker and
the shared cache in one Redis database (``--broker-db``), workers ``celery -A researchapp worker
--pool=threads`` on queues of their own (``bench.worker``). Every task asks about its own city.

1. An idle desk: 19 light users submit ``--per-light`` (5) tasks each at once; each task's time from
   submission to its plan review (the analyst's queue), p50 and p95.
2. The same, right after one user submitted ``--flood`` (100) tasks at once, auto-approved at every
   gate (so their collection, analysis and writing compete too). Target: the light users' p50 and
   p95 within 2x of the idle desk's. The flood's tasks left are cancelled once the light ones are in.
3. ``--batch`` (24) auto-approved tasks from four users, with 1, 2 and 4 worker processes: approved
   tasks per minute (first submission to last approval), and the factor from 1 to 2 workers (target
   1.8x). Nothing lost or doubled: no task failed or cancelled (one still running at the time limit
   is said as such), one plan each, no page stored twice in a task, no draft revision twice, no job
   of an approved task left open.

    python -m bench.load [--flood 100 --light-users 19 --per-light 5 --batch 24 --workers 1,2,4]
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import time

from bench.common import Figure, Skipped, main
from bench.server import create_database, drop_database, postgres_available

NAME = "load"
DATABASE = "bench_load"
PLAN_REVIEW = "awaiting_plan_review"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--flood", type=int, default=100, help="tasks the heavy user submits at once")
    parser.add_argument("--light-users", type=int, default=19)
    parser.add_argument("--per-light", type=int, default=5, help="tasks each light user submits")
    parser.add_argument("--batch", type=int, default=24, help="tasks per throughput run")
    parser.add_argument("--workers", default="1,2,4", help="worker process counts for the throughput runs")
    parser.add_argument("--fair-workers", type=int, default=2, help="worker processes for steps 1 and 2")
    parser.add_argument("--concurrency", type=int, default=8, help="threads per worker")
    parser.add_argument("--scale", type=float, default=0.1, help="multiplies every stub latency")
    parser.add_argument("--timeout", type=float, default=240, help="seconds a step may take")
    parser.add_argument("--broker-db", type=int, default=11, help="Redis database of the broker and cache")


def users(prefix: str, count: int) -> list:
    from django.contrib.auth import get_user_model

    model = get_user_model()
    return [model.objects.get_or_create(username=f"{prefix}{n}")[0] for n in range(count)]


def submit(owner, case: int, *, auto_approve: bool):
    from bench.stub_world import question_for
    from researchapp.services.submission import task_submit

    return task_submit(
        owner=owner,
        question=question_for(case),
        auto_approve=auto_approve,
        search_provider="tavily",
        engine="openai",
        quota=False,  # a load test: the per-person limits would refuse the flood
    )


def wait_until(task_ids: list[int], statuses: tuple[str, ...], timeout: float) -> int:
    """Wait until every task has been in one of ``statuses`` (by its transitions); how many were."""
    from researchapp.models import Event

    deadline = time.monotonic() + timeout
    reached = 0
    while time.monotonic() < deadline:
        reached = (
            Event.objects.filter(
                task_id__in=task_ids, kind="transition", data__to__in=statuses, data__object="researchtask"
            )
            .values("task_id")
            .distinct()
            .count()
        )
        if reached == len(task_ids):
            break
        time.sleep(0.2)
    return reached


def plan_review_seconds(task_ids: list[int]) -> list[float]:
    """Per task: seconds from submission to its first arrival at plan review."""
    from researchapp.models import Event, ResearchTask

    created = dict(ResearchTask.objects.filter(pk__in=task_ids).values_list("pk", "created_at"))
    first: dict[int, float] = {}
    for task_id, at in (
        Event.objects.filter(
            task_id__in=task_ids, kind="transition", data__to=PLAN_REVIEW, data__object="researchtask"
        )
        .order_by("id")
        .values_list("task_id", "at")
    ):
        first.setdefault(task_id, (at - created[task_id]).total_seconds())
    return sorted(first.values())


def percentile(values: list[float], q: float) -> float:
    if len(values) < 2:
        return values[0] if values else float("nan")
    return statistics.quantiles(values, n=100, method="inclusive")[int(q) - 1]


def light_round(args, light, first_case: int, flood_owner=None) -> dict:
    """Optionally a flood first, then every light user's tasks; their times to plan review."""
    flood_ids = [
        submit(flood_owner, first_case + n, auto_approve=True).pk
        for n in range(args.flood if flood_owner else 0)
    ]
    case = first_case + len(flood_ids)
    light_ids = []
    for owner in light:
        for _ in range(args.per_light):
            light_ids.append(submit(owner, case, auto_approve=False).pk)
            case += 1
    reached = wait_until(light_ids, (PLAN_REVIEW,), args.timeout)
    times = plan_review_seconds(light_ids)
    flood_planned = len(plan_review_seconds(flood_ids))
    return {"times": times, "reached": reached, "count": len(light_ids), "flood_planned": flood_planned}


def end_round() -> None:
    """Cancel every task still running (the flood's), so the next step starts on an idle desk."""
    from researchapp.models import ResearchTask
    from researchapp.services.submission import task_cancel

    for task in ResearchTask.objects.filter(status__in=ResearchTask.RUNNING | {PLAN_REVIEW}):
        try:
            task_cancel(task=task, actor=None)
        except Exception:  # noqa: BLE001 - it moved on by itself: nothing to cancel
            continue


def fairness_figures(idle: dict, flooded: dict, args) -> list[Figure]:
    figures = []
    for label, q in (("p50", 50), ("p95", 95)):
        calm, busy = percentile(idle["times"], q), percentile(flooded["times"], q)
        figures.append(
            Figure(NAME, f"light users' time to plan review {label}, idle desk", round(calm, 2), "s")
        )
        figures.append(
            Figure(
                NAME,
                f"light users' time to plan review {label}, during the flood",
                round(busy, 2),
                "s",
                target=f"<= 2x idle ({2 * calm:.2f}s)",
                met=busy <= 2 * calm,
                note=f"{flooded['reached']}/{flooded['count']} reached plan review; the flood's "
                f"{args.flood} tasks: {flooded['flood_planned']} planned by then; {args.fair_workers} "
                f"workers x {args.concurrency} threads",
            )
        )
    return figures


def purge_queues(broker_db: int) -> None:
    """Drop the messages still queued for our workers (the cancelled flood's); bindings stay."""
    import redis

    from bench.standard_task import REDIS

    client = redis.Redis.from_url(f"{REDIS}/{broker_db}")
    keys = list(client.scan_iter(f"{os.environ['BENCH_QUEUE']}.*"))
    if keys:
        client.delete(*keys)
    client.close()


def lost_or_doubled(task_ids: list[int]) -> list[str]:
    """What went wrong with a batch: tasks not approved, plans, pages, jobs or drafts twice or left open."""
    from django.db.models import Count

    from researchapp.models import Plan, ReportDraft, ResearchTask, Source, StageJob

    problems = []
    tasks = ResearchTask.objects.filter(pk__in=task_ids)
    lost = list(tasks.filter(status__in=("failed", "cancelled")).values_list("status", "failure_reason"))
    if lost:
        problems.append(f"{len(lost)} lost (first: {lost[0][0]} {lost[0][1][:150]})")
    unfinished = tasks.exclude(status__in=("approved", "failed", "cancelled")).count()
    if unfinished:
        problems.append(f"{unfinished} still running at the time limit")
    plans = (
        Plan.objects.filter(task_id__in=task_ids).values("task_id").annotate(n=Count("id")).filter(n__gt=1)
    )
    if plans.exists():
        problems.append(f"{plans.count()} tasks planned twice")
    pages = Source.objects.filter(task_id__in=task_ids).values("task_id", "normalized_url")
    twice = pages.annotate(n=Count("id")).filter(n__gt=1).count()
    if twice:
        problems.append(f"{twice} pages stored twice")
    drafts = ReportDraft.objects.filter(task_id__in=task_ids).values("task_id", "write_pass", "revision")
    if drafts.annotate(n=Count("id")).filter(n__gt=1).exists():
        problems.append("a draft revision stored twice")
    finished_open = StageJob.objects.filter(
        task_id__in=task_ids, finished_at__isnull=True, task__status="approved"
    )
    if finished_open.exists():
        problems.append("jobs of approved tasks left open")
    return problems


def throughput(args, owners, count: int, scratch, first_case: int) -> tuple[float, Figure]:
    """``args.batch`` auto-approved tasks, spread over ``owners``, with ``count`` worker processes."""
    from bench.standard_task import start_workers, stop_workers
    from researchapp.models import ResearchTask

    workers = start_workers(count, args.concurrency, scratch)
    try:
        started = time.time()
        ids = [
            submit(owners[n % len(owners)], first_case + n, auto_approve=True).pk for n in range(args.batch)
        ]
        deadline = time.monotonic() + args.timeout
        while time.monotonic() < deadline and ResearchTask.objects.filter(
            pk__in=ids, status__in=("approved", "failed", "cancelled")
        ).count() < len(ids):
            time.sleep(0.2)
    finally:
        stop_workers(workers)
    ended = ResearchTask.objects.filter(pk__in=ids).values_list("finished_at", flat=True)
    last = max((at.timestamp() for at in ended if at), default=started)
    approved = ResearchTask.objects.filter(pk__in=ids, status="approved").count()
    per_minute = approved / (last - started) * 60 if last > started else 0.0
    problems = lost_or_doubled(ids)
    figure = Figure(
        NAME,
        f"tasks approved per minute, {count} worker{'s' if count > 1 else ''}",
        round(per_minute, 1),
        "tasks/min",
        note=f"{approved}/{args.batch} approved in {last - started:.1f}s, {args.concurrency} threads each; "
        + ("nothing lost or doubled" if not problems else "; ".join(problems)),
    )
    return per_minute, figure


def fair_rounds(args, scratch) -> list[Figure]:
    from bench.standard_task import start_workers, stop_workers

    light = users("light", args.light_users)
    workers = start_workers(args.fair_workers, args.concurrency, scratch)
    try:
        idle = light_round(args, light, first_case=0)
        end_round()
        flooded = light_round(args, light, first_case=2000, flood_owner=users("flood", 1)[0])
        end_round()
    finally:
        stop_workers(workers)
        purge_queues(args.broker_db)  # after the workers: what they had taken went back to the queues
    return fairness_figures(idle, flooded, args)


def run(args: argparse.Namespace) -> list[Figure]:
    from bench.standard_task import configure, forget_queue, require_redis
    from bench.stub_world import World

    if not postgres_available():
        raise Skipped("skipped: no PostgreSQL at 127.0.0.1:5432")
    require_redis(args.broker_db)
    os.environ["TAVILY_RATE_PER_SECOND"] = f"{5 / args.scale:g}"  # the app's 5/s, time compressed alike
    database_url = create_database(DATABASE)
    figures: list[Figure] = []
    rates: dict[int, float] = {}
    scratch = None
    try:
        with World(scale=args.scale) as world:
            scratch = configure(world, database_url=database_url, broker_db=args.broker_db, shared_redis=True)
            figures += fair_rounds(args, scratch)
            owners = users("team", 4)
            for step, count in enumerate(int(n) for n in args.workers.split(",")):
                rates[count], figure = throughput(args, owners, count, scratch, first_case=4000 + 500 * step)
                figures.append(figure)
    finally:
        forget_queue(args.broker_db)
        from django.core.cache import cache
        from django.db import connections

        if scratch is not None:
            cache.clear()
        connections.close_all()
        drop_database(DATABASE)
        if scratch is not None:
            shutil.rmtree(scratch, ignore_errors=True)
    if rates.get(1) and 2 in rates:
        figures.append(
            Figure(
                NAME,
                "scaling, 1 → 2 workers",
                round(rates[2] / rates[1], 2),
                "x",
                target=">= 1.8x",
                met=rates[2] / rates[1] >= 1.8,
                note=f"{os.cpu_count()} cores shared by the workers, the stubs, the bench and PostgreSQL"
                + (f"; 1 → 4 workers {rates[4] / rates[1]:.2f}x" if 4 in rates else ""),
            )
        )
    return figures


if __name__ == "__main__":
    main(NAME, run, add_arguments)
