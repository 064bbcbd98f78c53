"""Enqueue stage tasks after the transaction that made them necessary commits.

Services name Celery tasks instead of importing them (the tasks module imports the services).
Inside ``inline()``, stages are queued in memory and ``drain`` runs them in this process one after
another: the ``research`` command uses it to run a task to the end without a worker.
"""

from __future__ import annotations

import contextvars
from collections import deque
from collections.abc import Iterator
from contextlib import contextmanager

from django.db import transaction

from researchapp.celery import app

_inline: contextvars.ContextVar[deque | None] = contextvars.ContextVar("inline_queue", default=None)


def enqueue(name: str, *args: int) -> None:
    queue = _inline.get()
    if queue is not None:
        # Inline stages run on this connection after the caller returns, so they see its writes;
        # each stage checks the task's status first, so one queued by a rolled-back call is a no-op.
        queue.append((name, args))
    else:
        # Our app, not ``current_app``: in a request thread of a threaded server ``current_app``
        # is Celery's fallback app, whose broker is not ours.
        transaction.on_commit(lambda: app.send_task(f"researchapp.tasks.{name}", args=args))


@contextmanager
def inline() -> Iterator[deque]:
    queue: deque = deque()
    token = _inline.set(queue)
    try:
        yield queue
    finally:
        _inline.reset(token)


def drain(queue: deque) -> int:
    """Run queued stages in order until none is left; returns how many ran."""
    from researchapp import tasks

    ran = 0
    while queue:
        name, args = queue.popleft()
        getattr(tasks, name).apply(args=args)
        ran += 1
    return ran
