"""Corpus import: peak memory of `manage.py corpus_import` on large inputs, and its speed.

Three imports, each in its own process (its peak RSS read with ``wait4``), into a throwaway SQLite
database (the figure is the importer's memory, not the database server's):

- a folder holding a 1 GiB sparse file, a symbolic link to /etc/passwd, a dotfile, a ``.git``
  folder and 50 small documents (the old importer read the sparse file whole: 1.15 GB of memory);
- a JSONL file of ``--records`` records (about 3 KB each, every 50th URL repeated), then one four
  times as large: with the file streamed and stored in batches, memory should not grow with it;
- while the larger one is imported, another connection writes to the database every 50 ms, as a
  login does: its longest wait for SQLite's one write lock (the import used to hold it for the
  whole file; it now commits each batch on its own).

    python -m bench.corpus_import [--records 10000]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

from bench.common import PROJECT_ROOT, Figure, main

NAME = "corpus_import"
PARAGRAPH = (
    "The Greywater Point lighthouse stands on the northern headland; its keepers logged the weather "
    "every four hours, and the log books, kept since 1871, record storms, wrecks and repairs. "
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--records", type=int, default=10_000, help="records in the smaller JSONL file")


def manage(env: dict[str, str], *args: str) -> tuple[float, float, str]:
    """Run ``manage.py args``; returns (seconds, peak RSS in MB, its output)."""
    started = time.monotonic()
    process = subprocess.Popen(
        [sys.executable, "manage.py", *args],
        cwd=PROJECT_ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
    )
    output = process.stdout.read().decode() if process.stdout else ""
    _, status, usage = os.wait4(process.pid, 0)
    process.returncode = os.waitstatus_to_exitcode(status)
    if process.returncode != 0:
        raise RuntimeError(f"manage.py {' '.join(args)} failed:\n{output[-2000:]}")
    return time.monotonic() - started, usage.ru_maxrss / 1024, output


def write_jsonl(path: Path, records: int) -> int:
    with path.open("w", encoding="utf-8") as handle:
        for number in range(records):
            url = f"https://example.org/log/{number - 1 if number % 50 == 49 else number}"
            text = f"Entry {number}. " + PARAGRAPH * 12
            handle.write(json.dumps({"url": url, "title": f"Log {number}", "text": text}) + "\n")
    return path.stat().st_size


class WriteProbe(threading.Thread):
    """Writes to the database every 50 ms until stopped; ``longest`` is its longest wait in seconds."""

    def __init__(self, database: Path) -> None:
        super().__init__(daemon=True)
        self.database, self.longest, self.writes = database, 0.0, 0
        self.stopped = threading.Event()

    def run(self) -> None:
        connection = sqlite3.connect(self.database, timeout=600, isolation_level=None)
        connection.execute("CREATE TABLE IF NOT EXISTS bench_probe (at REAL)")
        while not self.stopped.wait(0.05):
            started = time.monotonic()
            connection.execute("BEGIN IMMEDIATE")
            connection.execute("INSERT INTO bench_probe VALUES (?)", (started,))
            connection.execute("COMMIT")
            self.longest = max(self.longest, time.monotonic() - started)
            self.writes += 1
        connection.close()


def build_folder(root: Path) -> None:
    root.mkdir()
    for number in range(50):
        (root / f"doc{number}.md").write_text(f"# Document {number}\n\n{PARAGRAPH * 4}", encoding="utf-8")
    (root / "passwords.txt").symlink_to("/etc/passwd")
    (root / ".env.txt").write_text(PARAGRAPH, encoding="utf-8")
    (root / ".git").mkdir()
    (root / ".git" / "notes.txt").write_text(PARAGRAPH, encoding="utf-8")
    with (root / "huge.txt").open("wb") as huge:
        huge.truncate(1024**3)


def run(args: argparse.Namespace) -> list[Figure]:
    scratch = Path(tempfile.mkdtemp(prefix="bench-corpus-"))
    env = {
        **{
            k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "CELERY_BROKER_URL", "REDIS_URL")
        },
        "DJANGO_SETTINGS_MODULE": "researchapp.settings",
        "DATABASE_URL": f"sqlite:///{scratch / 'db.sqlite3'}",
        "RESEARCH_VAR_DIR": str(scratch / "var"),
    }
    figures: list[Figure] = []
    try:
        manage(env, "migrate", "--noinput")
        build_folder(scratch / "folder")
        seconds, peak, output = manage(env, "corpus_import", str(scratch / "folder"), "--name", "folder")
        figures.append(
            Figure(
                NAME,
                "folder with a 1 GiB sparse file, a link, hidden files: peak RSS",
                round(peak, 1),
                "MB",
                target="< 200 MB (the old importer: 1,150 MB)",
                met=peak < 200,
                note=f"{seconds:.1f}s; {output.strip().splitlines()[-1]}",
            )
        )
        probe = WriteProbe(scratch / "db.sqlite3")
        for records in (args.records, args.records * 4):
            path = scratch / f"records-{records}.jsonl"
            size = write_jsonl(path, records)
            if records > args.records:
                probe.start()
            seconds, peak, output = manage(env, "corpus_import", str(path), "--name", f"jsonl-{records}")
            figures.append(
                Figure(
                    NAME,
                    f"JSONL of {size / 1e6:.0f} MB ({records:,} records): peak RSS",
                    round(peak, 1),
                    "MB",
                    note=f"{seconds:.1f}s, {records / seconds:,.0f} records/s; "
                    f"{output.strip().splitlines()[-1]}",
                )
            )
            path.unlink()
        probe.stopped.set()
        probe.join()
        figures.append(
            Figure(
                NAME,
                f"longest wait of another writer during the {args.records * 4:,}-record import",
                round(probe.longest * 1000),
                "ms",
                target="< 10,000 ms (SQLite's busy timeout: a login waits, never fails)",
                met=probe.longest < 10,
                note=f"{probe.writes} writes every 50 ms while it ran",
            )
        )
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    return figures


if __name__ == "__main__":
    main(NAME, run, add_arguments)
