"""``manage.py devserver`` (what ``make run`` starts): the web server, a worker and the sweeper, supervised.

The supervision is tested on real child processes (small Python sleepers standing in for the three,
each writing its pid and its SITE_URL to a file), signalled as a crash or an operator would.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from researchapp.management.commands import devserver
from tests.helpers import wait_for

ROOT = Path(__file__).resolve().parent.parent
NAMES = ("worker", "sweeper", "web")
SLEEPER = (
    "import os, sys, time\n"
    "with open(sys.argv[1], 'a') as f: f.write(f\"{os.getpid()} {os.environ.get('SITE_URL')}\\n\")\n"
    "time.sleep(120)\n"
)


def started(folder: Path, name: str) -> list[tuple[int, str]]:
    path = folder / name
    lines = path.read_text().splitlines() if path.exists() else []
    return [(int(pid), url) for pid, url in (line.split(" ", 1) for line in lines)]


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # a child the command has not reaped yet is a zombie: dead all the same
    state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    return state != "Z"


@pytest.fixture
def sleepers(monkeypatch, tmp_path):
    """The three children replaced by sleepers; returns the folder their files are in."""

    def commands(python, host, port, concurrency):
        return {name: [python, "-c", SLEEPER, str(tmp_path / name)] for name in NAMES}

    monkeypatch.setattr(devserver, "child_commands", commands)
    monkeypatch.setattr(devserver, "POLL_SECONDS", 0.1)
    return tmp_path


def run_devserver(*args: str, then) -> tuple[str, str]:
    """Run the command in this (main) thread while ``then`` acts from another one."""
    out, err = StringIO(), StringIO()
    helper = threading.Thread(target=then, daemon=True)
    helper.start()
    try:
        call_command("devserver", *args, stdout=out, stderr=err)
    finally:
        helper.join(timeout=30)
    return out.getvalue(), err.getvalue()


def terminate_me() -> None:
    os.kill(os.getpid(), signal.SIGTERM)


def test_it_starts_the_worker_the_sweeper_and_the_web_server_on_the_port_given():
    commands = devserver.child_commands("python", "127.0.0.1", "8765", "4")
    assert "worker" in commands["worker"] and "--pool=threads" in commands["worker"]
    assert "sweep" in commands["sweeper"]
    assert "127.0.0.1:8765" in commands["web"]


def test_the_worker_links_its_emails_to_the_port_the_server_runs_on(sleepers, monkeypatch):
    monkeypatch.delenv("SITE_URL", raising=False)

    def then():
        wait_for(lambda: all(started(sleepers, name) for name in NAMES), timeout=30, what="children")
        terminate_me()

    run_devserver("--port", "8765", then=then)
    assert {started(sleepers, name)[0][1] for name in NAMES} == {"http://127.0.0.1:8765"}


def test_a_site_url_from_the_environment_wins(sleepers, monkeypatch):
    monkeypatch.setenv("SITE_URL", "https://desk.example")

    def then():
        wait_for(lambda: all(started(sleepers, name) for name in NAMES), timeout=30, what="children")
        terminate_me()

    run_devserver("--port", "8765", then=then)
    assert {started(sleepers, name)[0][1] for name in NAMES} == {"https://desk.example"}


def test_a_killed_worker_is_started_again_and_sigterm_stops_every_child(sleepers):
    # given the three children running
    def then():
        wait_for(lambda: all(started(sleepers, name) for name in NAMES), timeout=30, what="children")
        # when the worker is killed
        os.kill(started(sleepers, "worker")[0][0], signal.SIGKILL)
        # then a new worker starts, and the others are left alone
        wait_for(lambda: len(started(sleepers, "worker")) == 2, timeout=30, what="a new worker")
        # and when the devserver is sent SIGTERM
        terminate_me()

    _, err = run_devserver(then=then)

    # then it said what it did, and no child of it is left running
    assert "the worker exited with status -9; starting it again." in err
    assert [len(started(sleepers, name)) for name in NAMES] == [2, 1, 1]
    pids = [pid for name in NAMES for pid, _ in started(sleepers, name)]
    assert not [pid for pid in pids if alive(pid)]


def test_a_child_that_keeps_dying_stops_the_desk_with_the_reason(sleepers, monkeypatch):
    # given a sweeper that exits as soon as it starts
    real = devserver.child_commands

    def commands(*args):
        found = real(*args)
        found["sweeper"] = [sys.executable, "-c", "import sys; sys.exit(3)"]
        return found

    monkeypatch.setattr(devserver, "child_commands", commands)
    # when the desk runs, then it gives up on the sweeper after a few starts, saying why
    with pytest.raises(CommandError, match=r"the sweeper exited 6 times within 60 s \(last status 3\)"):
        call_command("devserver", stdout=StringIO(), stderr=StringIO())
    # and the other children were stopped
    wait_for(lambda: all(started(sleepers, name) for name in ("worker", "web")), timeout=5, what="files")
    assert not [pid for name in ("worker", "web") for pid, _ in started(sleepers, name) if alive(pid)]


def test_a_child_dies_with_the_devserver_even_when_it_is_killed(tmp_path):
    # given a process that starts a child the way the devserver does
    parent = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import sys, time\n"
            "from researchapp.management.commands.devserver import start_child\n"
            f"start_child([sys.executable, '-c', {SLEEPER!r}, {str(tmp_path / 'child')!r}], {{}})\n"
            "time.sleep(120)\n",
        ],
        cwd=ROOT,
    )
    try:
        wait_for(lambda: started(tmp_path, "child"), timeout=30, what="the child")
        ((child, _),) = started(tmp_path, "child")
        # when the parent is killed outright (no handler of its own can run)
        parent.kill()
        parent.wait()
        # then the kernel ends the child too
        deadline = time.monotonic() + 10
        while alive(child) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert not alive(child)
    finally:
        parent.kill()
