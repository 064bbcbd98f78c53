"""``celery -A researchapp worker ...`` on a queue of the benchmark's own (``BENCH_QUEUE``).

Workers of other runs on the same Redis (a test suite's, another benchmark's) would otherwise take
our tasks from the shared default queue ``celery``, whatever database number we pick. The
benchmark process sets the same default queue on its side (``use_queue``), so every stage task,
whoever sends it, goes to this queue and only our workers read it.

    BENCH_QUEUE=bench-123 python -m bench.worker --pool=threads --concurrency=8 -n bench0@%h
"""

from __future__ import annotations

import os
import sys


def use_queue(name: str) -> None:
    from researchapp.celery import app

    app.conf.task_default_queue = name


def main() -> None:
    from researchapp.celery import app

    use_queue(os.environ["BENCH_QUEUE"])
    app.worker_main(["worker", *sys.argv[1:]])


if __name__ == "__main__":
    main()
