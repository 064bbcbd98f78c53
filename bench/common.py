"""What every benchmark shares: where the data lives, how figures are reported, the command line.

A benchmark module defines ``add_arguments(parser)`` (optional) and ``run(args) -> list[Figure]``
and ends with ``if __name__ == "__main__": main(...)``. ``--json PATH`` makes it write its figures
as JSON too, which is how ``bench.run`` collects them from a subprocess.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import signal
import subprocess
import sys
import time
import unicodedata
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path

PROJECT_ROOT = Path(__file__).resolve().parent.parent
DATA_ROOT = PROJECT_ROOT.parent / "shared" / "data"


@dataclass
class Figure:
    """One measured value. ``met`` is None when there is no target (the figure is for information)."""

    benchmark: str
    name: str
    value: float | int | str | None
    unit: str = ""
    target: str = ""
    met: bool | None = None
    note: str = ""


class Skipped(Exception):
    """The benchmark cannot run here (no data, no database): it says why and the run goes on."""


def require_path(path: Path) -> Path:
    if not path.exists():
        raise Skipped(f"skipped: no data at {path}")
    return path


def format_value(value: object) -> str:
    if isinstance(value, float):
        if abs(value) < 10:
            return f"{value:.4f}".rstrip("0").rstrip(".") if value != int(value) else f"{value:.0f}"
        return f"{value:,.2f}" if abs(value) < 100 else f"{value:,.1f}"
    if isinstance(value, int) and not isinstance(value, bool):
        return f"{value:,}"
    return "" if value is None else str(value)


def _width(text: str) -> int:
    """Columns a terminal gives ``text``: CJK characters take two."""
    return sum(2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in text)


def _pad(text: str, width: int) -> str:
    return text + " " * (width - _width(text))


def print_figures(figures: Sequence[Figure], *, out=sys.stdout) -> None:
    """One aligned table: benchmark, figure, value, target, met?"""
    rows = [("benchmark", "figure", "value", "target", "met?")]
    for figure in figures:
        met = "" if figure.met is None else ("yes" if figure.met else "NO")
        value = format_value(figure.value) + (f" {figure.unit}" if figure.unit else "")
        rows.append((figure.benchmark, figure.name, value, figure.target, met))
    widths = [max(_width(row[i]) for row in rows) for i in range(5)]
    for index, row in enumerate(rows):
        print(
            "  ".join(_pad(cell, width) for cell, width in zip(row, widths, strict=True)).rstrip(), file=out
        )
        if index == 0:
            print("  ".join("-" * width for width in widths), file=out)
    noted = [figure for figure in figures if figure.note]
    if noted:
        print("\nnotes:", file=out)
        for figure in noted:
            print(f"  {figure.benchmark} / {figure.name.strip()}: {figure.note}", file=out)
    out.flush()


def main(
    benchmark: str,
    run: Callable[[argparse.Namespace], list[Figure]],
    add_arguments: Callable[[argparse.ArgumentParser], None] | None = None,
    argv: Sequence[str] | None = None,
) -> None:
    parser = argparse.ArgumentParser(prog=f"python -m bench.{benchmark}")
    if add_arguments is not None:
        add_arguments(parser)
    parser.add_argument("--json", type=Path, help="also write the figures to this JSON file")
    args = parser.parse_args(argv)
    # bench.run ends an overrunning benchmark with SIGTERM: turn it into an exception so the
    # benchmark's ``finally`` blocks stop its servers and drop its databases.
    signal.signal(signal.SIGTERM, _terminate)
    started = time.monotonic()
    try:
        figures = run(args)
        status = "ok"
    except Skipped as skip:
        print(skip, flush=True)
        figures, status = [Figure(benchmark, "skipped", str(skip))], "skipped"
    elapsed = time.monotonic() - started
    if status == "ok":
        print_figures(figures)
        print(f"({benchmark}: {elapsed:.1f}s)", flush=True)
    if args.json:
        args.json.write_text(
            json.dumps(
                {
                    "benchmark": benchmark,
                    "status": status,
                    "seconds": round(elapsed, 1),
                    "figures": [asdict(figure) for figure in figures],
                },
                indent=2,
                ensure_ascii=False,
            )
        )


def _terminate(signum, frame) -> None:
    raise SystemExit(f"stopped by signal {signum}")


# --- the record of where figures were measured ------------------------------------------------


def _cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def _memory_gb() -> float | None:
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal:"):
                return round(int(line.split()[1]) / 1024 / 1024, 1)
    except OSError:
        pass
    return None


def git_commit() -> str:
    try:
        result = subprocess.run(
            ["git", "rev-parse", "HEAD"],
            cwd=PROJECT_ROOT,
            capture_output=True,
            text=True,
            timeout=10,
            check=False,
        )
    except OSError:
        return "uncommitted"
    commit = result.stdout.strip()
    if result.returncode != 0 or not commit:
        return "uncommitted"
    dirty = subprocess.run(
        ["git", "status", "--porcelain", "--untracked-files=no"],
        cwd=PROJECT_ROOT,
        capture_output=True,
        text=True,
        timeout=10,
        check=False,
    ).stdout.strip()
    return commit + ("+local changes" if dirty else "")


def machine() -> dict[str, object]:
    return {
        "cpu": _cpu_model(),
        "cores": os.cpu_count(),
        "memory_gb": _memory_gb(),
        "python": platform.python_version(),
        "platform": platform.platform(),
        # Benchmarks share the machine with whatever else runs: the load says how much did.
        "load_average_1_5_15": [round(x, 2) for x in os.getloadavg()],
    }
