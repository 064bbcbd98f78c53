"""A fresh clone to a desk that answers: seconds from ``git clone`` to a 200 from ``/healthz``.

1. ``git clone`` this checkout's committed HEAD into a temporary directory (uncommitted changes are
   not in it, as they would not be in anyone's clone).
2. ``make run PORT=<a free port>`` there, as a new user would type it: the environment is scrubbed of
   the test suite's and this checkout's settings (``DATABASE_URL``, the broker, Redis, the var dir,
   this checkout's ``.venv`` on ``PATH``), so the clone builds its own ``.venv`` from the runtime
   lock, migrates its own SQLite database, loads the demo and starts web + worker + sweeper.
3. Ask ``/healthz`` every 0.2 s until it answers 200; note when ``.venv/.runtime`` appeared (the
   install done) on the way.
4. Stop ``make run``'s process group (SIGTERM: the devserver stops its three children), check that the
   port is free again, and delete the directory, whatever happened.

The figure depends on pip's package cache (``--warm``, the default, is whatever cache this machine
has: run it twice and the second run is the warm figure) and on the machine's load.

    python -m bench.fresh_clone [--timeout 600] [--keep]
"""

from __future__ import annotations

import argparse
import os
import shutil
import socket
import subprocess
import tempfile
import time
from pathlib import Path

import httpx

from bench.common import PROJECT_ROOT, Figure, Skipped, main
from bench.server import free_port, stop

NAME = "fresh_clone"
TARGET_SECONDS = 60
# What a new user's shell would not have: the test suite's services and this checkout's own settings.
SCRUBBED = (
    "DATABASE_URL",
    "CELERY_BROKER_URL",
    "REDIS_URL",
    "RESEARCH_VAR_DIR",
    "DJANGO_SETTINGS_MODULE",
    "VIRTUAL_ENV",
    "DEBUG",
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--timeout", type=float, default=600, help="seconds to wait for /healthz")
    parser.add_argument("--keep", action="store_true", help="keep the clone (its path is printed)")


def clean_environment() -> dict[str, str]:
    env = {key: value for key, value in os.environ.items() if key not in SCRUBBED}
    ours = str(PROJECT_ROOT / ".venv")
    env["PATH"] = os.pathsep.join(p for p in env.get("PATH", "").split(os.pathsep) if not p.startswith(ours))
    return env


def port_open(port: int) -> bool:
    with socket.socket() as sock:
        sock.settimeout(1)
        return sock.connect_ex(("127.0.0.1", port)) == 0


def healthy(url: str) -> bool:
    try:
        return httpx.get(url, timeout=2, trust_env=False).status_code == 200
    except httpx.HTTPError:
        return False


def wait_for_desk(
    process: subprocess.Popen, clone: Path, log: Path, url: str, timeout: float
) -> tuple[float, float, float]:
    """Seconds to ``.venv/.runtime`` (the install done), to the devserver's start (migrated, demo
    loaded) and to a 200 from ``url``."""
    started = time.monotonic()
    installed = serving = float("nan")
    stamp = clone / ".venv" / ".runtime"
    while time.monotonic() - started < timeout:
        if installed != installed and stamp.exists():  # still NaN: not seen yet
            installed = time.monotonic() - started
        if serving != serving and "manage.py devserver" in log.read_text(errors="replace"):
            serving = time.monotonic() - started
        if healthy(url):
            return installed, serving, time.monotonic() - started
        if process.poll() is not None:
            raise RuntimeError(f"make run exited with {process.returncode} before {url} answered")
        time.sleep(0.2)
    raise RuntimeError(f"{url} did not answer 200 within {timeout:.0f}s")


def run(args: argparse.Namespace) -> list[Figure]:
    if shutil.which("git") is None or shutil.which("make") is None:
        raise Skipped("skipped: git and make are needed")
    workdir = Path(tempfile.mkdtemp(prefix="desk-fresh-clone-"))
    clone = workdir / "desk"
    log = workdir / "make-run.log"
    process = None
    port = free_port()
    try:
        started = time.monotonic()
        subprocess.run(["git", "clone", "--quiet", str(PROJECT_ROOT), str(clone)], check=True, timeout=120)
        cloned = time.monotonic() - started
        with log.open("wb") as handle:
            process = subprocess.Popen(
                ["make", "run", f"PORT={port}"],
                cwd=clone,
                env=clean_environment(),
                stdout=handle,
                stderr=subprocess.STDOUT,
                start_new_session=True,  # its own process group: stopped as one
            )
        installed, serving, answered = wait_for_desk(
            process, clone, log, f"http://127.0.0.1:{port}/healthz", args.timeout
        )
        total = cloned + answered
        stop(process, timeout=20)
        deadline = time.monotonic() + 10  # the devserver's children end a moment after it
        while (still_open := port_open(port)) and time.monotonic() < deadline:
            time.sleep(0.2)
    except Exception:
        if log.exists():
            print(log.read_text(errors="replace")[-4000:], flush=True)
        raise
    finally:
        if process is not None:
            stop(process, timeout=20)
        if args.keep:
            print(f"kept {workdir}", flush=True)
        else:
            shutil.rmtree(workdir, ignore_errors=True)
    return _figures(total, cloned, installed, serving, answered, still_open)


def _figures(
    total: float, cloned: float, installed: float, serving: float, answered: float, still_open: bool
) -> list[Figure]:
    return [
        Figure(
            NAME,
            "fresh clone → /healthz 200",
            round(total, 1),
            "s",
            target=f"< {TARGET_SECONDS} s",
            met=total < TARGET_SECONDS,
            note=f"git clone {cloned:.1f} s; make run: runtime lock installed at {installed:.1f} s, "
            f"migrated and demo loaded at {serving:.1f} s, /healthz 200 at {answered:.1f} s; "
            f"load average {os.getloadavg()[0]:.1f} at the end",
        ),
        Figure(
            NAME,
            "devserver stopped",
            "port free" if not still_open else "port still open",
            target="port free",
            met=not still_open,
            note="SIGTERM to make run's process group",
        ),
    ]


if __name__ == "__main__":
    main(NAME, run, add_arguments)
