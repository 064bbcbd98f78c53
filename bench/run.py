"""Run every benchmark, print one table, write bench/results/latest.json.

Each benchmark runs in its own subprocess (``python -m bench.<name> ... --json FILE``) with a time
budget; the budgets are cut to fit what is left of ``TOTAL_BUDGET``, so the whole run stays under
31 minutes. A benchmark over its budget gets SIGTERM (it stops its servers and drops its databases
on the way out), then SIGKILL. A benchmark without its data or services reports "skipped" and
the run goes on. Each benchmark's own output goes to a log file whose path is printed.

    python -m bench.run [--only extraction,tokens] [--skip throughput]
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

from bench.common import PROJECT_ROOT, Figure, git_commit, machine, print_figures

# The reader's question benches (issue 17) add about eight minutes on an idle machine.
# plus issue 21's load and corpus search, issue 19's fresh clone
TOTAL_BUDGET = 24 * 60 + 30 + 6 * 60 + 4 * 60 + 15 * 60
RESULTS = PROJECT_ROOT / "bench" / "results" / "latest.json"
DATA = "../shared/data"  # relative to the project root, where every benchmark runs

# (name, module, arguments, time budget in seconds)
HOTPOT = f"{DATA}/multihop/hotpotqa_train100.jsonl"
# Thresholds were tuned on the first half of each set; the second half is held back, and both are shown.
BENCHMARKS: list[tuple[str, str, list[str], int]] = [
    ("extraction", "extraction", ["--data", f"{DATA}/extraction"], 150),
    ("evidence_recall", "evidence_recall", ["--data", HOTPOT, "--half", "second"], 60),
    ("evidence_recall_tuning_half", "evidence_recall", ["--data", HOTPOT, "--half", "first"], 60),
    ("musique_style", "evidence_recall", ["--data", HOTPOT, "--style", "musique", "--half", "second"], 60),
    (
        "musique_style_tuning_half",
        "evidence_recall",
        ["--data", HOTPOT, "--style", "musique", "--half", "first"],
        60,
    ),
    (
        "evidence_recall_musique_fixture",
        "evidence_recall",
        ["--data", "bench/fixtures/musique_sample.jsonl"],
        30,
    ),
    ("insufficient", "insufficient", ["--data", f"{DATA}/claims/wice_dev.jsonl", "--half", "second"], 60),
    (
        "insufficient_tuning_half",
        "insufficient",
        ["--data", f"{DATA}/claims/wice_dev.jsonl", "--half", "first"],
        60,
    ),
    ("conflicts", "conflicts", ["--data", f"{DATA}/conflicts", "--half", "second"], 240),
    ("conflicts_tuning_half", "conflicts", ["--data", f"{DATA}/conflicts", "--half", "first"], 240),
    ("conflict_judges", "conflict_judges", ["--data", f"{DATA}/conflicts", "--half", "second"], 60),
    # Issue 17: the reader, on third-party questions (even lines tune, odd lines are held back).
    ("docs_qa", "docs_qa", ["--data", f"{DATA}/qa", "--half", "second"], 420),
    ("docs_qa_tuning_half", "docs_qa", ["--data", f"{DATA}/qa", "--half", "first"], 420),
    ("squad2", "squad2", ["--data", f"{DATA}/qa", "--half", "second"], 150),
    ("squad2_tuning_half", "squad2", ["--data", f"{DATA}/qa", "--half", "first"], 150),
    (
        "musique_dev",
        "multihop_recall",
        ["--data", f"{DATA}/multihop/musique_dev200.jsonl", "--half", "second"],
        90,
    ),
    (
        "musique_dev_tuning_half",
        "multihop_recall",
        ["--data", f"{DATA}/multihop/musique_dev200.jsonl", "--half", "first"],
        90,
    ),
    (
        "2wiki_dev",
        "multihop_recall",
        ["--data", f"{DATA}/multihop/2wiki_dev200.jsonl", "--half", "second"],
        90,
    ),
    (
        "2wiki_dev_tuning_half",
        "multihop_recall",
        ["--data", f"{DATA}/multihop/2wiki_dev200.jsonl", "--half", "first"],
        90,
    ),
    ("relevance", "relevance", ["--data", f"{DATA}/extraction", "--half", "second"], 90),
    ("relevance_tuning_half", "relevance", ["--data", f"{DATA}/extraction", "--half", "first"], 90),
    (
        "plan_phrasing",
        "plan_phrasing",
        ["--data", f"{DATA}/questions/deepresearch_bench_queries.jsonl"],
        60,
    ),
    ("review_desk", "review_desk", [], 240),
    # One standard-task run reports both wall time (4) and token economy (5).
    ("pipeline_time+tokens", "pipeline_time", ["--with-tokens"], 150),
    ("throughput", "throughput", [], 330),
    # Issue 21: fair shares under one person's flood, and tasks per minute with 1, 2 and 4 workers.
    ("load", "load", ["--batch", "16"], 360),
    ("exports", "exports", [], 90),
    ("corpus_import", "corpus_import", [], 90),
    # Issue 19: a fresh clone's `make run` (runtime lock only) to a 200 from /healthz; target < 60 s.
    ("fresh_clone", "fresh_clone", ["--timeout", "230"], 240),
    # Issue 21: corpus search in the database (PostgreSQL full-text, SQLite FTS5). The 1,000,000
    # passages take about an hour to import here: run `python -m bench.corpus_search --passages 1000000`.
    ("corpus_search", "corpus_search", ["--passages", "100000", "--queries", "300"], 900),
]


def run_one(name: str, module: str, arguments: list[str], budget: float, logs: Path) -> dict:
    out = logs / f"{name}.json"
    log = logs / f"{name}.log"
    command = [sys.executable, "-m", f"bench.{module}", *arguments]
    shown = " ".join(["python", "-m", f"bench.{module}", *arguments])
    started = time.monotonic()
    with log.open("wb") as handle:
        process = subprocess.Popen(
            [*command, "--json", str(out)],
            cwd=PROJECT_ROOT,
            stdout=handle,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        try:
            process.wait(timeout=budget)
        except subprocess.TimeoutExpired:
            _end(process)
        except KeyboardInterrupt:
            _end(process)
            raise
    seconds = round(time.monotonic() - started, 1)
    if out.exists():
        result = json.loads(out.read_text())
    else:
        reason = f"timed out after {budget:.0f}s" if seconds >= budget else f"exit code {process.returncode}"
        result = {
            "benchmark": module,
            "status": "error",
            "figures": [vars(Figure(module, "error", f"{reason}; see {log}"))],
        }
    if process.returncode not in (0, None) and result.get("status") == "ok":
        result["status"] = "error"
    result.update(name=name, command=shown, seconds=seconds, log=str(log))
    if "+" not in name:  # a second run of one module (another data file) shows under its own name
        for figure in result["figures"]:
            figure["benchmark"] = name
    return result


def _end(process: subprocess.Popen) -> None:
    """SIGTERM first, so the benchmark's cleanup runs; SIGKILL if it has not gone in 30 s."""
    for sig, wait in ((signal.SIGTERM, 30), (signal.SIGKILL, 5)):
        try:
            os.killpg(process.pid, sig)
            process.wait(wait)
            return
        except ProcessLookupError:
            return
        except subprocess.TimeoutExpired:
            continue


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.run")
    parser.add_argument("--only", default="", help="comma-separated benchmark names")
    parser.add_argument("--skip", default="", help="comma-separated benchmark names")
    parser.add_argument("--output", type=Path, default=RESULTS)
    args = parser.parse_args()
    only = {n for n in args.only.split(",") if n}
    skip = {n for n in args.skip.split(",") if n}
    chosen = [b for b in BENCHMARKS if (not only or b[0] in only) and b[0] not in skip]

    logs = Path(tempfile.mkdtemp(prefix="bench-logs-"))
    record = {
        "date": datetime.now(UTC).isoformat(timespec="seconds"),
        "commit": git_commit(),
        "machine": machine(),
        "benchmarks": [],
    }
    print(
        f"research desk benchmarks, {record['date']}, commit {record['commit']}; logs in {logs}", flush=True
    )
    deadline = time.monotonic() + TOTAL_BUDGET
    for name, module, arguments, budget in chosen:
        left = deadline - time.monotonic()
        if left < 20:
            record["benchmarks"].append(
                {
                    "name": name,
                    "status": "not run",
                    "seconds": 0,
                    "figures": [vars(Figure(module, "not run", "the time budget ran out"))],
                }
            )
            continue
        print(f"- {name} ...", end=" ", flush=True)
        result = run_one(name, module, arguments, min(budget, left), logs)
        print(f"{result['status']} in {result['seconds']}s", flush=True)
        record["benchmarks"].append(result)
    record["total_seconds"] = round(TOTAL_BUDGET - (deadline - time.monotonic()), 1)
    record["machine"]["load_average_1_5_15_at_end"] = [round(x, 2) for x in os.getloadavg()]

    figures = [Figure(**f) for result in record["benchmarks"] for f in result["figures"]]
    print()
    print_figures(figures)
    m = record["machine"]
    print(
        f"\n{m['cpu']}, {m['cores']} cores, {m['memory_gb']} GB, Python {m['python']}, {m['platform']}; "
        f"load {m['load_average_1_5_15']}; total {record['total_seconds']}s",
        flush=True,
    )
    args.output.parent.mkdir(parents=True, exist_ok=True)
    args.output.write_text(json.dumps(record, indent=2, ensure_ascii=False) + "\n")
    shown = args.output.relative_to(PROJECT_ROOT) if args.output.is_relative_to(PROJECT_ROOT) else args.output
    print(f"written: {shown}")


if __name__ == "__main__":
    main()
