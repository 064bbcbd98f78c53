"""Queries per page do not grow with the number of rows (timings are for ``make bench``)."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.core.cache import cache
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone

from researchapp.models import Event, Finding, Plan, ResearchTask, Step, SubQuestion
from reviews import services
from reviews.models import Claim
from tests.factories import (
    EvidenceFactory,
    FindingFactory,
    PlanFactory,
    SubQuestionFactory,
    TaskFactory,
    evidence_review_task,
    plan_review_task,
    report_review_task,
    researcher_persona,
    task_with_plan,
)
from tests.helpers import client_for

pytestmark = pytest.mark.django_db
Status = ResearchTask.Status


# --- query counts -------------------------------------------------------------------------------


def queries_for(client: Client, url: str) -> int:
    cache.clear()  # measured cold: the navigation's cached queue counts are counted too
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
        small_n = queries_for(client, reverse(name, args=[small.task.pk]))
        big_n = queries_for(client, reverse(name, args=[big.task.pk]))
        assert small_n == big_n, name


def test_a_task_page_at_rest_reads_its_progress_from_the_cache_until_an_event(analyst, researcher):
    # given a task waiting at the report gate whose page was shown once
    scenario = report_review_task(researcher)
    client = client_for(analyst)
    url = reverse("task_detail", args=[scenario.task.pk])
    cold = queries_for(client, url)

    # then the next showing reads the user, the task and its claims only (10 -> 3 queries; the
    # navigation's queue counts, cleared by queries_for, are cached again too)
    warm = _count(client, url)
    assert (cold, warm) == (10, 3)

    # and an event (every write a page shows writes one) makes it read everything again
    Event.objects.create(
        task=scenario.task, stage="writing", kind=Event.Kind.PROGRESS, message="A fresh note 4711"
    )
    page = client.get(url).content.decode()
    assert "A fresh note 4711" in page and _count(client, url) == 3


def test_a_collecting_task_page_takes_as_many_queries_for_many_sub_questions(analyst, researcher):
    small = task_with_plan(researcher, status=Status.COLLECTING, plan_status=Plan.Status.APPROVED)
    big = task_with_plan(researcher, status=Status.COLLECTING, plan_status=Plan.Status.APPROVED)
    for i in range(6):
        SubQuestion.objects.create(
            plan=big.plan, order=3 + i, text=f"More {i}?", progress={"state": "searching"}
        )
        Event.objects.create(task=big.task, stage="collecting", kind=Event.Kind.WARNING, message=f"w {i}")
    client = client_for(analyst)
    for name in ("task_detail", "task_progress"):
        assert queries_for(client, reverse(name, args=[small.task.pk])) == queries_for(
            client, reverse(name, args=[big.task.pk])
        ), name


def test_the_plan_page_shows_every_version_in_constant_queries(analyst, researcher):
    # given a plan in its first version, and another in its fourth (three rejected before it)
    one = plan_review_task(researcher, question="q one").task
    many = plan_review_task(researcher, question="q many")
    for version in (2, 3, 4):
        Plan.objects.filter(task=many.task).update(status=Plan.Status.REJECTED)
        PlanFactory(task=many.task, version=version, subquestions=3 + version)
    client = client_for(analyst)
    # then the page with its history and diffs takes as many queries
    body = client.get(reverse("plan_review", args=[many.task.pk])).content.decode()
    assert body.count('data-testid="plan-version"') == 4
    assert queries_for(client, reverse("plan_review", args=[one.pk])) == queries_for(
        client, reverse("plan_review", args=[many.task.pk])
    )


def _count(client: Client, url: str) -> int:
    with CaptureQueriesContext(connection) as captured:
        client.get(url)
    return len(captured)


def test_it_builds_every_review_queue_in_constant_queries(analyst, researcher):
    # given one item in each queue
    client = client_for(analyst)
    evidence_review_task(researcher)
    report_review_task(researcher)
    plan_review_task(researcher)
    urls = [f"{reverse('review_queue')}?queue={name}" for name in ("plans", "conflicts", "gaps", "reports")]
    one = [queries_for(client, url) for url in urls]

    # when many more items wait, some of them claimed
    for i in range(4):
        scenario = evidence_review_task(researcher, extra_conflicts=2)
        Claim.objects.create(
            task=scenario.task,
            object_type="finding",
            finding=scenario.conflict,
            analyst=analyst,
            expires_at=timezone.now() + timedelta(minutes=5),
        )
        report_review_task(researcher)
        plan_review_task(researcher, question=f"q{i}")

    # then every queue lists them all in as many queries as before
    conflicts = client.get(urls[1]).content.decode()
    assert conflicts.count('data-testid="queue-item"') == 1 + 4 * 3
    assert [queries_for(client, url) for url in urls] == one


def test_a_queue_lists_the_oldest_waits_first_a_page_at_a_time(client, analyst, monkeypatch):
    # given more tasks waiting at one gate than a page lists
    monkeypatch.setattr("reviews.selectors.queues.QUEUE_LENGTH", 3)
    tasks = [TaskFactory(status=Status.AWAITING_PLAN_REVIEW) for _ in range(5)]
    client.force_login(analyst)
    response = client.get("/reviews/?queue=plans")

    # then the oldest three are listed, and all five are counted
    body = response.content.decode()
    listed = [t.pk for t in tasks if f'data-task-id="{t.pk}"' in body]
    assert listed == [t.pk for t in tasks[:3]]
    assert 'data-testid="nav-queue-count"' in body and "Page 1 of 2" in body
    assert '<span class="muted">(5)</span>' in body


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


def test_the_evidence_gate_reads_in_constant_queries_however_many_items_and_passages(analyst, researcher):
    # given two tasks at the evidence gate; the bigger has more conflicts, more [证据不足] items on
    # sub-questions of their own, each with sources opened and passages below the bar, and a gap
    # answered by hand
    small = evidence_review_task(researcher)
    big = evidence_review_task(researcher, extra_conflicts=6)
    for scenario, extra_gaps in ((small, 0), (big, 5)):
        for i in range(extra_gaps):
            subquestion = SubQuestionFactory(plan=scenario.plan, order=10 + i, queries=[f"q{i}"])
            FindingFactory(subquestion=subquestion, status="insufficient", statement=f"[证据不足] gap {i}")
        for finding in Finding.objects.filter(task=scenario.task, status="insufficient"):
            finding.subquestion.sources.add(*scenario.sources)
            for source in scenario.sources:
                EvidenceFactory(source=source, subquestion=finding.subquestion, length=20, clears_bar=False)
    answered = FindingFactory(subquestion=big.plan.subquestions.last(), status="insufficient", statement="x")
    services.evidence_add_by_hand(
        finding=answered, actor=analyst, source=big.sources[0], start=0, end=40, version_seen=1
    )
    client = client_for(analyst)

    # then its page takes as many queries for the big task as for the small one
    url = "evidence_review"
    assert queries_for(client, reverse(url, args=[big.task.pk])) == queries_for(
        client, reverse(url, args=[small.task.pk])
    )


def test_it_shows_a_deep_tasks_trace_in_constant_queries(analyst, researcher):
    # given two deep tasks, one whose loops took one step and one whose loops took twelve
    client = client_for(analyst)
    small = report_review_task(researcher, depth="deep")
    big = report_review_task(researcher, depth="deep", extra_conflicts=9)
    for scenario, count in ((small, 1), (big, 12)):
        for index in range(count):
            evidence = scenario.evidence[index % len(scenario.evidence)]
            Step.objects.create(
                task=scenario.task, subquestion=evidence.subquestion, index=index, turn=index,
                tool="open_page", arguments={"url": evidence.source.url},
                status="done" if index else "stopped", error="" if index else "budget",
                result_ids=[f"S{evidence.source_id}", f"E{evidence.pk}"],
            )  # fmt: skip
    # then the task page and the report read them in as many queries, and the page shows every step
    for name in ("task_detail", "report_view"):
        assert queries_for(client, reverse(name, args=[small.task.pk])) == queries_for(
            client, reverse(name, args=[big.task.pk])
        ), name
    page = client.get(reverse("task_detail", args=[big.task.pk])).content.decode()
    assert page.count('data-testid="trace-step"') == 12
    assert f'href="/evidence/{big.evidence[1].pk}/"' in page


def test_a_page_of_tasks_is_one_query_and_a_page_past_the_last_is_the_last(analyst, monkeypatch):
    # given five tasks listed two a page
    monkeypatch.setattr("researchapp.selectors.TASK_LIST_LENGTH", 2)
    tasks = [TaskFactory(owner=analyst) for _ in range(5)]
    from researchapp.selectors import task_list_for

    # then a page reads its rows and the count of all in one query
    with CaptureQueriesContext(connection) as captured:
        second = task_list_for(analyst, "2")
        assert [t.pk for t in second] == [tasks[2].pk, tasks[1].pk]
        assert (second.number, second.paginator.count, second.paginator.num_pages) == (2, 5, 3)
    read_tasks = [q["sql"] for q in captured.captured_queries if "researchapp_researchtask" in q["sql"]]
    assert len(read_tasks) == 1  # (the other asks for the user's groups: a request's user has them)
    # and a page past the last is the last, a page that is no number the first
    assert [t.pk for t in task_list_for(analyst, "9")] == [tasks[0].pk]
    assert task_list_for(analyst, "9").number == 3
    assert task_list_for(analyst, "two").number == 1
