"""``celery -A researchapp worker ...`` on queues of the benchmark's own (``BENCH_QUEUE`` prefixes them).

Workers of other runs on the same Redis (a test suite's, another benchmark's) would otherwise take
our tasks from the shared queues (``celery``, ``collect``, ``model``...), whatever database number we
pick. The benchmark process renames the queues and routes the same way on its side (``use_queue``),
so every stage task, whoever sends it, goes to our queues and only our workers read them.

    BENCH_QUEUE=bench-123 python -m bench.worker --pool=threads --concurrency=8 -n bench0@%h
"""

from __future__ import annotations

import os
import sys


def use_queue(prefix: str) -> None:
    """Every queue of the settings (and every route to one) renamed ``<prefix>.<queue>``."""
    from kombu import Queue

    from researchapp.celery import app

    names = [queue.name for queue in app.conf.task_queues]
    app.conf.task_queues = tuple(Queue(f"{prefix}.{n}", routing_key=f"{prefix}.{n}") for n in names)
    app.conf.task_default_queue = f"{prefix}.{app.conf.task_default_queue}"
    app.conf.task_routes = {
        task: {**route, "queue": f"{prefix}.{route['queue']}"} for task, route in app.conf.task_routes.items()
    }


def main() -> None:
    from researchapp.celery import app

    use_queue(os.environ["BENCH_QUEUE"])
    app.worker_main(["worker", *sys.argv[1:]])


if __name__ == "__main__":
    main()
