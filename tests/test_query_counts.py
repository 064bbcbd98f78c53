"""Queries per page do not grow with the number of rows (timings are for ``make bench``)."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from researchapp.models import Event, ResearchTask
from tests.factories import (
    TaskFactory,
    evidence_review_task,
    plan_review_task,
    report_review_task,
    researcher_persona,
)
from tests.helpers import client_for

pytestmark = pytest.mark.django_db
Status = ResearchTask.Status


# --- query counts -------------------------------------------------------------------------------


def queries_for(client: Client, url: str) -> int:
    with CaptureQueriesContext(connection) as captured:
        assert client.get(url).status_code == 200
    return len(captured)


def test_it_lists_tasks_in_constant_queries(analyst, researcher):
    client = client_for(analyst)
    evidence_review_task(researcher)
    one = queries_for(client, reverse("task_list"))
    for _ in range(9):
        evidence_review_task(researcher_persona(f"r{_}"))
    assert queries_for(client, reverse("task_list")) == one


def test_it_reads_one_task_in_constant_queries(analyst, researcher):
    client = client_for(analyst)
    small = report_review_task(researcher)
    big = report_review_task(researcher, extra_conflicts=9)
    for i in range(9):
        Event.objects.create(
            task=big.task, stage="collecting", kind=Event.Kind.WARNING, message=f"warning {i}"
        )
    for name in ("task_detail", "task_progress", "evidence_review", "report_view", "plan_review"):
        if name == "task_progress":
            small_n = _count(client, reverse(name, args=[small.task.pk]))
            big_n = _count(client, reverse(name, args=[big.task.pk]))
        else:
            small_n = queries_for(client, reverse(name, args=[small.task.pk]))
            big_n = queries_for(client, reverse(name, args=[big.task.pk]))
        assert small_n == big_n, name


def _count(client: Client, url: str) -> int:
    with CaptureQueriesContext(connection) as captured:
        client.get(url)
    return len(captured)


def test_it_builds_the_review_queue_in_constant_queries(analyst, researcher):
    client = client_for(analyst)
    evidence_review_task(researcher)
    one = queries_for(client, reverse("review_queue"))
    for i in range(3):
        evidence_review_task(researcher)
        report_review_task(researcher)
        plan_review_task(researcher, question=f"q{i}")
    response = client.get(reverse("review_queue"))
    assert response.content.decode().count('data-testid="queue-item"') == 10
    assert queries_for(client, reverse("review_queue")) == one


def test_the_review_queue_lists_the_oldest_waits_per_gate_and_counts_the_rest(client, analyst, monkeypatch):
    # given more tasks waiting at one gate than the queue lists
    monkeypatch.setattr("reviews.selectors.QUEUE_LENGTH", 3)
    tasks = [TaskFactory(status=Status.AWAITING_PLAN_REVIEW) for _ in range(5)]
    client.force_login(analyst)
    response = client.get("/reviews/")

    # then the oldest three are listed, and all five are counted
    body = response.content.decode()
    listed = [t.pk for t in tasks if f'data-task-id="{t.pk}"' in body]
    assert listed == [t.pk for t in tasks[:3]]
    assert "Plans to approve (5)" in body and "The oldest 3 of 5 are shown." in body


def test_the_task_list_pages_through_tasks_newest_first(client, analyst, monkeypatch):
    monkeypatch.setattr("researchapp.selectors.TASK_LIST_LENGTH", 2)
    tasks = [TaskFactory(owner=analyst) for _ in range(5)]
    client.force_login(analyst)
    first = client.get("/").content.decode()
    third = client.get("/?page=3").content.decode()

    def rows(body: str) -> list[int]:
        return [t.pk for t in reversed(tasks) if f'data-task-id="{t.pk}"' in body]

    assert rows(first) == [tasks[4].pk, tasks[3].pk]
    assert rows(third) == [tasks[0].pk]
    assert "Page 1 of 3 (5 tasks)" in first and 'data-testid="older"' in first
