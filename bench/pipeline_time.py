"""Pipeline wall time against the longest chain of waits: does the pipeline overlap what it can?

One standard task (5 sub-questions, 6 pages each) runs end to end through a real Celery worker
(threads pool, ``--concurrency 8``, so sub-questions collect in parallel as in production) against
``bench.stub_world``: search 300 ms, pages 200–1500 ms (fixed per URL), model 1 s per call. The
database is a throwaway SQLite file, the broker Redis database 12. A warm-up task runs first, so
the figures are those of a warm worker, as in production.

Figures: wall time (submission → approved), the sequential sum of every wait the stubs served,
and the longest chain of waits (``stub_world.longest_chain`` says how it is derived from the
stubs' logs). ``--with-tokens`` adds the token figures of ``bench.tokens`` from the same run.

    python -m bench.pipeline_time [--concurrency 8] [--research-concurrency 4] [--with-tokens]
"""

from __future__ import annotations

import argparse
import os
import shutil

from bench.common import Figure, main

NAME = "pipeline_time"
BROKER_DB = 12


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--concurrency", type=int, default=8, help="worker threads")
    parser.add_argument(
        "--research-concurrency",
        type=int,
        default=None,
        help="RESEARCH_CONCURRENCY for the pipeline (default: the app's own setting)",
    )
    parser.add_argument("--timeout", type=float, default=180, help="seconds a task may take")
    parser.add_argument("--no-warmup", action="store_true")
    parser.add_argument("--with-tokens", action="store_true", help="also report bench.tokens' figures")
    parser.add_argument(
        "--set",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="an app setting from the environment, e.g. TAVILY_RATE_PER_SECOND=50 (repeatable)",
    )


def run_standard(args: argparse.Namespace) -> dict:
    """Run the warm-up and the measured task; return everything both reports need."""
    from bench.standard_task import (
        configure,
        forget_queue,
        require_redis,
        stage_seconds,
        start_workers,
        stop_workers,
        submit_and_wait,
        task_costs,
    )
    from bench.stub_world import World, longest_chain

    require_redis(BROKER_DB)
    if args.research_concurrency:
        os.environ["RESEARCH_CONCURRENCY"] = str(args.research_concurrency)
    for setting in args.set:
        name, _, value = setting.partition("=")
        os.environ[name] = value
    with World() as world:
        scratch = configure(world, database_url="sqlite:///{scratch}/bench.sqlite3", broker_db=BROKER_DB)
        workers = start_workers(1, args.concurrency, scratch)
        try:
            if not args.no_warmup:
                submit_and_wait(1, timeout=args.timeout, first_case=0)
            first_wait, first_chat = len(world.log.waits), len(world.openai.chats)
            batch = submit_and_wait(1, timeout=args.timeout, first_case=1)
            waits = list(world.log.waits[first_wait:])
            chats = world.openai.chats[first_chat:]
        finally:
            stop_workers(workers)
            forget_queue(BROKER_DB)
        task_id = batch.task_ids[0]
        result = {
            "batch": batch,
            "chain": longest_chain(waits),
            "costs": task_costs([task_id]),
            "waits": waits,
            "stages": stage_seconds(task_id),
            "prompt_chars": sum(len(str(m.get("content") or "")) for chat in chats for m in chat["messages"]),
            "research_concurrency": os.environ.get("RESEARCH_CONCURRENCY", "app default"),
            "settings": list(args.set),
        }
    if batch.done == 1:
        shutil.rmtree(scratch, ignore_errors=True)
    else:  # keep the database and the worker's log to see what went wrong
        batch.failures.append(f"database and worker log kept in {scratch}")
    return result


def time_figures(result: dict, worker_threads: int) -> list[Figure]:
    batch = result["batch"]
    if batch.done != 1:
        return [
            Figure(
                NAME,
                "task",
                f"did not finish: {dict(batch.statuses)}",
                met=False,
                note="; ".join(batch.failures)[:300],
            )
        ]
    wall = batch.wall
    return [*_chain_figures(result, wall, worker_threads), *stage_figures(result["stages"], wall)]


def _chain_figures(result: dict, wall: float, worker_threads: int) -> list[Figure]:
    chain = result["chain"]
    return [
        Figure(
            NAME,
            "wall time, submit → approved",
            round(wall, 2),
            "s",
            target=f"<= 1.5x chain ({1.5 * chain['chain']:.1f}s)",
            met=wall <= 1.5 * chain["chain"],
            note=f"collection rounds {result['costs']['rounds']}, worker threads {worker_threads}, "
            f"RESEARCH_CONCURRENCY {result['research_concurrency']}"
            + "".join(f", {setting}" for setting in result["settings"]),
        ),
        Figure(
            NAME,
            "longest chain of waits",
            round(chain["chain"], 2),
            "s",
            note=f"plan {chain['plan']:.1f} + probe {chain['probe']:.1f} + collect leg "
            f"{chain['collect_leg']:.2f} + follow-on search {chain['follow_on']:.1f} + judges "
            f"{chain['judges']:.1f} (of {chain['judge_sum']:.0f}s in all) + analyse "
            f"{chain['analyse_max']:.1f} + support + write {chain['write']:.1f}",
        ),
        Figure(
            NAME,
            "wall / longest chain",
            round(wall / chain["chain"], 2),
            target="<= 1.15",
            met=wall <= 1.15 * chain["chain"],
        ),
        Figure(
            NAME,
            "wall / chain as counted before issue 21",
            round(wall / chain["chain_before_issue_21"], 2),
            note=f"{chain['chain_before_issue_21']:.1f}s: no probe, follow-on search or judges",
        ),
        Figure(
            NAME,
            "chain with analyse, support and judge calls in a row",
            round(chain["chain_analyse_serial"], 2),
            "s",
            note=f"{chain['calls'].get('analyse', 0)} analyse calls, {chain['analyse_sum']:.1f}s in all",
        ),
        Figure(
            NAME,
            "sequential sum of all waits",
            round(chain["sequential_sum"], 2),
            "s",
            note=", ".join(f"{k} {v}" for k, v in chain["calls"].items()),
        ),
        Figure(NAME, "wall / sequential sum", round(wall / chain["sequential_sum"], 3)),
    ]


STAGES = (
    ("planning", "planning"),
    ("collecting", "collecting"),
    ("analysing", "analysing"),
    ("writing", "writing"),
)


def stage_figures(starts: dict[str, float], wall: float) -> list[Figure]:
    """Seconds spent in each stage, from the transition events (a stage ends where the next begins)."""
    figures = []
    for index, (status, label) in enumerate(STAGES):
        if status not in starts:
            continue
        later = [starts[s] for s, _ in STAGES[index + 1 :] if s in starts]
        end = min(later) if later else starts.get("awaiting_report_review", wall)
        figures.append(Figure(NAME, f"  {label} stage", round(end - starts[status], 2), "s"))
    return figures


def run(args: argparse.Namespace) -> list[Figure]:
    result = run_standard(args)
    figures = time_figures(result, args.concurrency)
    if args.with_tokens:
        from bench.tokens import token_figures

        figures += token_figures(result)
    return figures


if __name__ == "__main__":
    main(NAME, run, add_arguments)
