"""``manage.py devserver`` (what ``make run`` starts): the web server, a worker and the sweeper."""

from __future__ import annotations

from io import StringIO

import pytest
from django.core.management import call_command

from researchapp.management.commands import devserver


class FinishedProcess:
    """Stands in for a child process that has already exited: the command starts it, sees it end."""

    started: list[FinishedProcess] = []

    def __init__(self, args, env):
        self.args, self.env = args, env
        FinishedProcess.started.append(self)

    def poll(self):
        return 0

    def wait(self, timeout=None):
        return 0


@pytest.fixture
def children(monkeypatch):
    FinishedProcess.started = []
    monkeypatch.setattr(devserver.subprocess, "Popen", FinishedProcess)
    return FinishedProcess.started


def test_the_worker_links_its_emails_to_the_port_the_server_runs_on(children, monkeypatch):
    monkeypatch.delenv("SITE_URL", raising=False)
    call_command("devserver", "--port", "8765", stdout=StringIO())
    worker, sweeper, web = children
    assert "worker" in worker.args and "sweep" in sweeper.args and "127.0.0.1:8765" in web.args
    assert {child.env["SITE_URL"] for child in children} == {"http://127.0.0.1:8765"}


def test_a_site_url_from_the_environment_wins(children, monkeypatch):
    monkeypatch.setenv("SITE_URL", "https://desk.example")
    call_command("devserver", "--port", "8765", stdout=StringIO())
    assert {child.env["SITE_URL"] for child in children} == {"https://desk.example"}
