"""Send stage jobs to the workers once the transaction that made them necessary commits.

Inside ``inline()``, jobs are queued in memory instead and ``drain`` runs them in this process one
after another: the ``research`` command uses it to run a task to the end without a worker.
"""

from __future__ import annotations

import contextvars
from collections import deque
from collections.abc import Iterator
from contextlib import contextmanager
from enum import StrEnum

from django.db import transaction


class Job(StrEnum):
    PLAN = "plan"
    COLLECT = "collect"  # one sub-question of one round: (task id, sub-question id, round)
    FINISH_COLLECTION = "finish_collection"
    ANALYSE = "analyse"
    WRITE = "write"


_inline: contextvars.ContextVar[deque | None] = contextvars.ContextVar("inline_queue", default=None)


def celery_task(job: Job):
    """The Celery task object that runs ``job``.

    The one function-level import of the project: ``researchapp.tasks`` imports the services
    (each Celery task calls one), so importing it at the top of this module would be a cycle.
    """
    from researchapp import tasks

    return {
        Job.PLAN: tasks.plan_task,
        Job.COLLECT: tasks.collect_task,
        Job.FINISH_COLLECTION: tasks.finish_collection_task,
        Job.ANALYSE: tasks.analyse_task,
        Job.WRITE: tasks.write_task,
    }[job]


def enqueue(job: Job, *args: int) -> None:
    queue = _inline.get()
    if queue is not None:
        # Inline jobs run on this connection after the caller returns, so they see its writes;
        # each stage checks the task's status first, so one queued by a rolled-back call is a no-op.
        queue.append((job, args))
    else:
        transaction.on_commit(lambda: celery_task(job).apply_async(args=args))


@contextmanager
def inline() -> Iterator[deque]:
    queue: deque = deque()
    token = _inline.set(queue)
    try:
        yield queue
    finally:
        _inline.reset(token)


def drain(queue: deque) -> int:
    """Run queued jobs in order until none is left; returns how many ran."""
    ran = 0
    while queue:
        job, args = queue.popleft()
        celery_task(job).apply(args=args)
        ran += 1
    return ran
