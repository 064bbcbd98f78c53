"""``manage.py devserver`` (what ``make run`` starts): the web server, a worker and the sweeper, supervised.

A child that dies is started again (a worker killed mid-task comes back, and the stage leases bring its
work back to it); one that keeps dying (more than ``MAX_RESTARTS`` times in ``RESTART_WINDOW`` seconds)
stops the desk with the reason rather than looping. Every way the devserver ends stops all three:
Ctrl-C, SIGTERM or SIGHUP, an error, and on Linux even a SIGKILL of the devserver itself (each child
asks the kernel for SIGTERM when its parent dies).
"""

from __future__ import annotations

import ctypes
import os
import signal
import subprocess
import sys
import time
from collections import deque
from dataclasses import dataclass, field

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

MAX_RESTARTS = 5
RESTART_WINDOW = 60.0  # seconds
POLL_SECONDS = 0.5
STOP_SECONDS = 15  # a child still running this long after SIGTERM is killed
PR_SET_PDEATHSIG = 1


class Stop(Exception):
    """SIGTERM or SIGHUP: stop every child, then exit."""


def die_with_parent() -> None:
    """In the child, before its exec: the kernel sends it SIGTERM when the devserver dies, however."""
    if sys.platform.startswith("linux"):
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGTERM, 0, 0, 0)


def start_child(command: list[str], env: dict[str, str]) -> subprocess.Popen:
    return subprocess.Popen(command, env=env, preexec_fn=die_with_parent)


@dataclass
class Child:
    name: str
    command: list[str]
    process: subprocess.Popen | None = None
    starts: deque = field(default_factory=lambda: deque(maxlen=MAX_RESTARTS + 1))

    def start(self, env: dict[str, str]) -> None:
        self.process = start_child(self.command, env)
        self.starts.append(time.monotonic())

    def crash_looping(self) -> bool:
        """Started more than ``MAX_RESTARTS`` times again within ``RESTART_WINDOW`` seconds."""
        return len(self.starts) > MAX_RESTARTS and self.starts[-1] - self.starts[0] < RESTART_WINDOW


def child_commands(python: str, host: str, port: str, concurrency: str) -> dict[str, list[str]]:
    worker = [python, "-m", "celery", "-A", "researchapp", "worker", "--pool=threads"]
    worker += [f"--concurrency={concurrency}", "--loglevel=INFO", "--without-gossip", "--without-mingle"]
    return {
        "worker": worker,
        # The same sweep Celery beat runs in production: the outbox relay and expired stage leases.
        "sweeper": [python, "manage.py", "sweep", "--every", str(settings.RESEARCH["SWEEP_SECONDS"])],
        "web": [python, "manage.py", "runserver", f"{host}:{port}", "--noreload"],
    }


class Command(BaseCommand):
    help = "Run the web server, a Celery worker and the sweeper together, restarting any that dies."

    def add_arguments(self, parser):
        parser.add_argument("--host", default="127.0.0.1")
        parser.add_argument("--port", default="8000")
        parser.add_argument("--concurrency", default="4")

    def handle(self, *args, host: str, port: str, concurrency: str, **options):
        # Links in the worker's emails point at this server unless SITE_URL says otherwise.
        env = {"SITE_URL": f"http://{host}:{port}", **os.environ}
        commands = child_commands(sys.executable, host, port, concurrency)
        children = [Child(name, command) for name, command in commands.items()]
        previous = {number: signal.getsignal(number) for number in (signal.SIGTERM, signal.SIGHUP)}

        def stop(signum, frame):
            raise Stop(signal.Signals(signum).name)

        for number in previous:
            signal.signal(number, stop)
        try:
            for child in children:
                child.start(env)
            self.stdout.write(self.style.SUCCESS(self.banner(host, port)))
            self.supervise(children, env)
        except (KeyboardInterrupt, Stop):
            pass
        finally:
            for number, handler in previous.items():
                signal.signal(number, handler)
            self.stop_all(children)
        self.stdout.write("stopped.")

    def supervise(self, children: list[Child], env: dict[str, str]) -> None:
        """Start again each child that ended; give up on one that keeps ending."""
        while True:
            for child in children:
                status = child.process.poll() if child.process else None
                if status is None:
                    continue
                if child.crash_looping():
                    raise CommandError(
                        f"the {child.name} exited {MAX_RESTARTS + 1} times within {RESTART_WINDOW:g} s "
                        f"(last status {status}); stopping the desk. Its output above says why."
                    )
                self.stderr.write(f"the {child.name} exited with status {status}; starting it again.")
                child.start(env)
            time.sleep(POLL_SECONDS)

    def stop_all(self, children: list[Child]) -> None:
        running = [child.process for child in children if child.process and child.process.poll() is None]
        for process in running:
            process.send_signal(signal.SIGTERM)
        for process in running:
            try:
                process.wait(timeout=STOP_SECONDS)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()

    def banner(self, host: str, port: str) -> str:
        return (
            f"\nResearch desk: http://{host}:{port}/\n"
            f"  accounts: analyst / demo, researcher / demo (embedded profile)\n"
            f"  database: {settings.DATABASES['default']['NAME']}\n"
            f"  broker:   {settings.CELERY_BROKER_URL}\n"
            "  Ctrl-C stops the web server, the worker and the sweeper; one that dies is started again.\n"
        )
