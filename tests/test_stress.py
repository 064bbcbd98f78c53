"""Ten research tasks collected in parallel by one worker (concurrency 4), five times over: none fails.

Parallel collect stages of one task rewrite the same source rows (re-clustering); taken in different
orders those row locks once deadlocked PostgreSQL and failed the task. A stress run, not a timing
test: it counts failures (and prints how long each round took). ``STRESS_ROUNDS`` changes the
number of rounds (default 5).
"""

from __future__ import annotations

import os
import time

import pytest

from researchapp.models import Event, ResearchTask, Source, StageJob
from researchapp.services.submission import task_submit
from tests.helpers import wait_for
from tests.live import QUESTION, live_settings, web_results

pytestmark = [pytest.mark.worker, pytest.mark.django_db(transaction=True)]
TASKS = 10
ROUNDS = int(os.environ.get("STRESS_ROUNDS", "5"))
QUESTIONS = [
    QUESTION,
    "How much power does the Marrowby tidal lagoon produce each year?",
    "When did the Marrowby tidal lagoon open and what did it cost?",
    "Who operates the Marrowby tidal lagoon?",
    "What are the environmental effects of the Marrowby tidal lagoon?",
]


def test_it_finishes_ten_parallel_tasks_five_times_without_a_failure(
    celery_worker_thread, researcher, settings, stub_web, stub_tavily
):
    # live mode against the stubs: pages fetched over HTTP, so the sub-questions' stages overlap
    live_settings(settings, web=stub_web, tavily=stub_tavily, AUTO_FOLLOWUP="never")
    stub_tavily.results = web_results(stub_web)
    for round_no in range(1, ROUNDS + 1):
        # given ten tasks submitted at once, every gate approved as proposed
        started = time.monotonic()
        tasks = [
            task_submit(owner=researcher, question=QUESTIONS[i % len(QUESTIONS)], auto_approve=True)
            for i in range(TASKS)
        ]

        # when one worker runs them all, four stages at a time
        def settled(tasks=tasks) -> bool:
            statuses = ResearchTask.objects.filter(pk__in=[t.pk for t in tasks]).values_list(
                "status", flat=True
            )
            return all(s in (ResearchTask.Status.APPROVED, ResearchTask.Status.FAILED) for s in statuses)

        wait_for(settled, timeout=300, interval=0.5, what=f"round {round_no}'s tasks to finish")
        print(f"round {round_no}: {TASKS} tasks in {time.monotonic() - started:.1f}s")

        # then none failed, none was retried for a deadlock, and every job is finished
        failed = ResearchTask.objects.filter(pk__in=[t.pk for t in tasks], status=ResearchTask.Status.FAILED)
        assert not failed.exists(), [(t.pk, t.failure_reason) for t in failed]
        busy = Event.objects.filter(task__in=tasks, data__code="database_busy")
        assert not busy.exists(), [e.message for e in busy]
        assert not StageJob.objects.filter(task__in=tasks, finished_at__isnull=True).exists()
        for task in tasks:
            urls = list(Source.objects.filter(task=task).values_list("normalized_url", flat=True))
            assert urls and len(urls) == len(set(urls))
