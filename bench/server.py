"""Processes a benchmark starts and always stops: gunicorn, Celery workers, throwaway databases.

Everything listens on 127.0.0.1 only. Every process is started in its own session and stopped by
its own pid (its process group), never by name.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Mapping
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import httpx

from bench.common import PROJECT_ROOT

VENV_BIN = Path(sys.executable).parent
ADMIN_DATABASE_URL = "postgres://postgres@127.0.0.1:5432/postgres"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def start(command: list[str], env: Mapping[str, str], log: Path) -> subprocess.Popen:
    handle = log.open("wb")
    return subprocess.Popen(
        command,
        cwd=PROJECT_ROOT,
        env={**os.environ, **env},
        stdout=handle,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )


def stop(process: subprocess.Popen, timeout: float = 15) -> None:
    """SIGTERM the process group, then SIGKILL it if it has not gone within ``timeout``."""
    if process.poll() is not None:
        return
    for sig, wait in ((signal.SIGTERM, timeout), (signal.SIGKILL, 5)):
        try:
            os.killpg(process.pid, sig)
        except ProcessLookupError:
            return
        try:
            process.wait(wait)
            return
        except subprocess.TimeoutExpired:
            continue


def wait_http(url: str, timeout: float = 30) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            if httpx.get(url, timeout=2, trust_env=False).status_code < 500:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.2)
    raise RuntimeError(f"{url} did not answer within {timeout}s")


def gunicorn(port: int, env: Mapping[str, str], log: Path, workers: int = 2) -> subprocess.Popen:
    return start(
        [
            str(VENV_BIN / "gunicorn"),
            "researchapp.wsgi:application",
            "-b",
            f"127.0.0.1:{port}",
            "-w",
            str(workers),
            "--log-level",
            "warning",
        ],
        env,
        log,
    )


# --- throwaway PostgreSQL databases -------------------------------------------------------------


def admin_database_url() -> str:
    """The server's maintenance database: BENCH_ADMIN_DATABASE_URL, else the server of a PostgreSQL
    DATABASE_URL (``make bench`` passes the test database's), else the local default."""
    url = os.environ.get("BENCH_ADMIN_DATABASE_URL") or os.environ.get("DATABASE_URL", "")
    if not url.startswith(("postgres://", "postgresql://")):
        return ADMIN_DATABASE_URL
    return urlunsplit(urlsplit(url)._replace(path="/postgres"))


def database_url(name: str) -> str:
    return urlunsplit(urlsplit(admin_database_url())._replace(path=f"/{name}"))


def _admin(sql: str) -> None:
    import psycopg

    with psycopg.connect(admin_database_url(), autocommit=True, connect_timeout=5) as connection:
        connection.execute(sql)


def postgres_available() -> bool:
    try:
        _admin("SELECT 1")
        return True
    except Exception:
        return False


def create_database(name: str) -> str:
    """A fresh, empty database ``name`` (dropped first if a crashed run left it); returns its URL."""
    url = database_url(name)  # before anything changes DATABASE_URL
    _admin(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
    _admin(f'CREATE DATABASE "{name}"')
    return url


def drop_database(name: str) -> None:
    _admin(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
