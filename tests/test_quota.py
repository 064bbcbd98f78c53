"""Per-person submission limits: tasks in flight, tasks and model tokens in any 24 hours, each a
setting an administrator can change for one person; a clear message when one is reached."""

from __future__ import annotations

import threading
from datetime import timedelta

import pytest
from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.db import connection
from django.urls import reverse
from django.utils import timezone

from researchapp.models import LLMCall, ResearchTask, SubmissionQuota
from researchapp.services.quota import QuotaReached
from researchapp.services.submission import task_cancel, task_submit
from tests.factories import TaskFactory
from tests.helpers import client_for

pytestmark = pytest.mark.django_db
QUESTION = "How tall is the Greywater Point lighthouse?"


@pytest.fixture
def limits(settings):
    def set_limits(in_flight: int = 0, per_day: int = 0, tokens: int = 0) -> None:
        settings.RESEARCH = {
            **settings.RESEARCH,
            "QUOTA_TASKS_IN_FLIGHT": in_flight,
            "QUOTA_TASKS_PER_DAY": per_day,
            "QUOTA_TOKENS_PER_DAY": tokens,
        }

    return set_limits


def submit(user):
    return client_for(user).post(reverse("task_submit"), {"question": QUESTION, "depth": "quick"})


def test_it_refuses_a_task_past_the_tasks_in_flight_and_takes_one_when_a_task_ends(limits, researcher):
    # given a limit of two tasks in flight, and two submitted
    limits(in_flight=2)
    assert [submit(researcher).status_code for _ in range(2)] == [302, 302]

    # when a third is submitted, then it is refused with a message that says why and what to do
    refused = submit(researcher)
    assert refused.status_code == 429
    assert "You have 2 tasks in progress, your limit." in refused.content.decode()
    assert ResearchTask.objects.count() == 2

    # and once one of them is cancelled, the next is accepted
    task_cancel(task=ResearchTask.objects.first(), actor=researcher)
    assert submit(researcher).status_code == 302


def test_it_counts_the_tasks_of_the_last_24_hours_and_says_when_one_frees_up(limits, researcher):
    # given a limit of three a day: one submitted 25 hours ago, two within the day
    limits(per_day=3)
    old = TaskFactory(owner=researcher, status=ResearchTask.Status.APPROVED)
    ResearchTask.objects.filter(pk=old.pk).update(created_at=timezone.now() - timedelta(hours=25))
    first = TaskFactory(owner=researcher, status=ResearchTask.Status.APPROVED)
    ResearchTask.objects.filter(pk=first.pk).update(created_at=timezone.now() - timedelta(hours=20))
    TaskFactory(owner=researcher, status=ResearchTask.Status.APPROVED)

    # when two more are submitted: the first fits (the old one no longer counts), the second does not
    assert submit(researcher).status_code == 302
    refused = submit(researcher)

    # then the refusal says when the oldest task of the day leaves the window (about four hours)
    assert refused.status_code == 429
    body = refused.content.decode()
    assert "You have submitted 3 tasks in the last 24 hours, your limit. Try again in 3\xa0hours" in body


def test_it_counts_the_model_tokens_of_the_last_24_hours(limits, researcher, analyst):
    # given a limit of 10,000 tokens a day, 6,000 spent yesterday and 9,000 spent today
    limits(tokens=10_000)
    task = TaskFactory(owner=researcher, status=ResearchTask.Status.APPROVED)
    old = LLMCall.objects.create(task=task, stage="plan", model="m", tokens_in=5_000, tokens_out=1_000)
    LLMCall.objects.filter(pk=old.pk).update(at=timezone.now() - timedelta(hours=30))
    LLMCall.objects.create(task=task, stage="write", model="m", tokens_in=8_000, tokens_out=1_000)
    assert submit(researcher).status_code == 302  # 9,000 < 10,000

    # when the day's spending reaches the limit
    LLMCall.objects.create(task=task, stage="write", model="m", tokens_in=900, tokens_out=100)
    refused = submit(researcher)

    # then the owner is refused, saying how much was used; another person is not
    assert refused.status_code == 429
    assert "Your tasks used 10,000 model tokens in the last 24 hours; your limit is 10,000." in (
        refused.content.decode()
    )
    assert submit(analyst).status_code == 302


def test_an_administrators_limit_for_one_person_overrides_the_sites(limits, researcher, analyst):
    # given a site limit of one task in flight, and an administrator who lifts it for the researcher
    limits(in_flight=1)
    admin = get_user_model().objects.create_superuser("root", "root@example.test", "a-long-admin-pass-7")
    added = client_for(admin).post(
        reverse("admin:researchapp_submissionquota_add"),
        {"user": researcher.pk, "tasks_in_flight": 0, "note": "runs the weekly batch"},
    )
    assert added.status_code == 302, added.content.decode()[:2000]

    # when each submits three tasks
    theirs = [submit(researcher).status_code for _ in range(3)]
    others = [submit(analyst).status_code for _ in range(3)]

    # then the researcher's limit is theirs (0: none), the analyst keeps the site's
    assert theirs == [302, 302, 302]
    assert others == [302, 429, 429]


def test_the_command_line_is_not_held_to_a_persons_limits(limits, researcher):
    limits(in_flight=1)
    task_submit(owner=researcher, question=QUESTION)
    with pytest.raises(QuotaReached):
        task_submit(owner=researcher, question=QUESTION)
    task_submit(owner=researcher, question=QUESTION, quota=False)
    assert ResearchTask.objects.count() == 2


@pytest.mark.django_db(transaction=True)
def test_a_burst_of_simultaneous_submissions_is_counted_one_at_a_time(limits, researcher):
    # given a limit of three in flight, and twelve submissions at the same moment
    if connection.vendor != "postgresql":
        pytest.skip("simultaneous writers need PostgreSQL (`make test` provides it)")
    limits(in_flight=3)
    start = threading.Barrier(12)
    outcomes: list[str] = []

    def one() -> None:
        start.wait()
        try:
            task_submit(owner=researcher, question=QUESTION)
            outcomes.append("accepted")
        except ValidationError:
            outcomes.append("refused")
        finally:
            connection.close()

    threads = [threading.Thread(target=one) for _ in range(12)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)

    # then exactly three were accepted
    assert sorted(outcomes) == ["accepted"] * 3 + ["refused"] * 9
    assert ResearchTask.objects.count() == 3
    assert SubmissionQuota.objects.count() == 0
