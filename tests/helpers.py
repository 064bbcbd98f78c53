"""Helpers shared by test modules (fixtures live in ``conftest.py``; nothing is imported from it)."""

from __future__ import annotations

import time

from django.test import Client

HTMX = {"HTTP_HX_REQUEST": "true"}  # the header htmx sends with every request


def wait_for(predicate, *, timeout: float = 60.0, interval: float = 0.2, what: str = "condition"):
    """Poll ``predicate`` until it returns something truthy, and return that."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(interval)
    raise AssertionError(f"timed out after {timeout}s waiting for {what}")


def wait_for_status(task, *statuses: str, timeout: float = 90.0):
    """Wait until ``task`` reaches one of ``statuses``; a task that fails on the way fails the test."""

    def reached():
        task.refresh_from_db()
        if task.status == "failed" and "failed" not in statuses:
            raise AssertionError(f"task failed while {task.failed_stage}: {task.failure_reason}")
        return task.status in statuses

    wait_for(reached, timeout=timeout, what=f"task {task.pk} to reach {statuses}")
    return task


def client_for(user) -> Client:
    """A test client logged in as ``user`` (anonymous for ``None``)."""
    client = Client()
    if user is not None:
        client.force_login(user)
    return client
