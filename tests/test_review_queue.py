"""The review queues: one per kind of item, with counts, filters, sorting by age and claims.

No Celery worker is needed: services enqueue with ``transaction.on_commit``, which never fires
inside the test transaction.
"""

from __future__ import annotations

import threading
from datetime import timedelta

import pytest
from django.db import connection
from django.urls import reverse
from django.utils import timezone

from researchapp.models import Finding, ResearchTask
from reviews import services
from reviews.models import Claim, ReviewDecision
from tests.factories import (
    analyst_persona,
    evidence_review_task,
    plan_review_task,
    report_review_task,
    researcher_persona,
)
from tests.helpers import HTMX, client_for

pytestmark = pytest.mark.django_db
Status = ResearchTask.Status
QUEUE = reverse("review_queue")
CLAIM = reverse("review_claim")


def listed(body: str, attribute: str = "data-task-id") -> list[int]:
    """The ids of the queue's items in the order the page lists them."""
    parts = body.split('data-testid="queue-item"')[1:]
    return [int(part.split(f'{attribute}="')[1].split('"')[0]) for part in parts]


def waited(task: ResearchTask, hours: float) -> ResearchTask:
    """Make ``task`` look as if it reached its gate ``hours`` ago."""
    ResearchTask.objects.filter(pk=task.pk).update(updated_at=timezone.now() - timedelta(hours=hours))
    return task


def claim(client, *, task, object_type: str, finding=None, action: str = "claim", follow=True):
    """Press the claim (or release) button of one item, as the queue's form sends it."""
    item = f"finding:{finding.pk}" if finding is not None else f"{object_type}:{task.pk}"
    return client.post(CLAIM, {action: item, "next": QUEUE}, follow=follow)


# --- queues ---------------------------------------------------------------------------------------


def test_it_counts_every_queue_in_the_navigation_and_its_tabs(analyst, researcher):
    # given two plans, one report and a task at evidence review (one conflict, one [证据不足] item)
    plan_review_task(researcher)
    plan_review_task(researcher)
    report_review_task(researcher)
    evidence_review_task(researcher)

    # when an analyst opens any page
    body = client_for(analyst).get(reverse("task_list")).content.decode()
    queue = client_for(analyst).get(QUEUE).content.decode()

    # then the navigation counts all five items, and each tab its own
    assert 'data-testid="nav-queue-count"' in body and ">5</span>" in body
    for name, count in (("plans", 2), ("conflicts", 1), ("gaps", 1), ("reports", 1)):
        tab = queue.split(f'data-testid="queue-tab-{name}"')[1].split("</a>")[0]
        assert f'<span class="count">{count}</span>' in tab


def test_it_lists_conflicts_and_gaps_one_finding_at_a_time(analyst, researcher):
    scenario = evidence_review_task(researcher, extra_conflicts=2)
    client = client_for(analyst)
    conflicts = client.get(QUEUE, {"queue": "conflicts"}).content.decode()
    gaps = client.get(QUEUE, {"queue": "gaps"}).content.decode()
    assert len(listed(conflicts, "data-finding")) == 3
    assert listed(gaps, "data-finding") == [scenario.gap.pk]
    assert "[证据不足] How punctual the trams are" in gaps
    assert f"{reverse('evidence_review', args=[scenario.task.pk])}#finding-{scenario.gap.pk}" in gaps


def test_it_filters_a_queue_by_task_owner_age_and_claim(analyst, researcher):
    # given plans of two owners that have waited 2 hours, 2 days and 10 minutes
    other = researcher_persona("someone_else")
    old = waited(plan_review_task(researcher, question="Tram ridership in Harbor City?").task, 48)
    middle = waited(plan_review_task(other, question="Ferry delays?").task, 2)
    new = waited(plan_review_task(researcher, question="Bus fares?").task, 0.2)
    Claim.objects.create(
        task=middle, object_type="plan", analyst=analyst, expires_at=timezone.now() + timedelta(minutes=9)
    )
    client = client_for(analyst)

    def plans(**filters) -> list[int]:
        return listed(client.get(QUEUE, {"queue": "plans", **filters}).content.decode())

    # then each filter keeps what it says, and the default order is the oldest wait first
    assert plans() == [old.pk, middle.pk, new.pk]
    assert plans(sort="newest") == [new.pk, middle.pk, old.pk]
    assert plans(task=str(middle.pk)) == [middle.pk]
    assert plans(task=f"#{new.pk}") == [new.pk]
    assert plans(task="harbor") == [old.pk]
    assert plans(owner="SOMEONE_ELSE") == [middle.pk]
    assert plans(age="1h") == [old.pk, middle.pk]
    assert plans(age="1d") == [old.pk]
    assert plans(claim="mine") == [middle.pk]
    assert plans(claim="unclaimed") == [old.pk, new.pk]
    assert plans(claim="others") == []
    assert plans(age="forever", claim="nonsense") == [old.pk, middle.pk, new.pk]  # malformed: no filter


def test_it_says_how_long_an_item_has_waited_in_words(analyst, researcher):
    just = plan_review_task(researcher).task
    hours = waited(plan_review_task(researcher).task, 3.5)
    days = waited(plan_review_task(researcher).task, 50)
    body = client_for(analyst).get(QUEUE, {"queue": "plans"}).content.decode()
    ages = body.split('data-testid="queue-age"')[1:]
    assert [age.split("waiting ")[1].split("<")[0] for age in ages] == ["2 days", "3 hours", "just now"]
    assert "waiting 0 minutes" not in body and len({just.pk, hours.pk, days.pk}) == 3


@pytest.mark.parametrize(
    ("persona", "expected"), [("anonymous", 302), ("outsider", 403), ("researcher", 403), ("analyst", 302)]
)
def test_it_lets_only_analysts_claim(persona, expected, researcher, analyst, outsider):
    scenario = plan_review_task(researcher)
    user = {"anonymous": None, "outsider": outsider, "researcher": researcher, "analyst": analyst}[persona]
    response = claim(client_for(user), task=scenario.task, object_type="plan", follow=False)
    assert response.status_code == expected
    assert Claim.objects.count() == (1 if persona == "analyst" else 0)


# --- claims ---------------------------------------------------------------------------------------


def test_an_analyst_claims_an_item_and_the_others_see_who_has_it(researcher):
    # given a conflict waiting for a decision, and two analysts
    scenario = evidence_review_task(researcher)
    first, second = client_for(analyst_persona("analyst1")), client_for(analyst_persona("analyst2"))

    # when the first claims it
    mine = claim(first, task=scenario.task, object_type="finding", finding=scenario.conflict).content.decode()

    # then the first holds it (and may release it), the second sees who has it and cannot take it
    assert "Claimed until" in mine and 'data-testid="release"' in mine
    theirs = second.get(QUEUE, {"queue": "conflicts"}).content.decode()
    assert "Claimed by analyst1 until" in theirs and 'data-testid="claim"' not in theirs
    refused = claim(second, task=scenario.task, object_type="finding", finding=scenario.conflict)
    assert "analyst1 claimed this item first" in refused.content.decode()
    assert list(Claim.objects.values_list("analyst__username", flat=True)) == ["analyst1"]


def test_a_claim_is_renewed_by_its_holder_and_released_by_hand(analyst, researcher):
    scenario = report_review_task(researcher)
    client = client_for(analyst)
    claim(client, task=scenario.task, object_type="report")
    first_expiry = Claim.objects.get().expires_at
    claim(client, task=scenario.task, object_type="report")
    assert Claim.objects.get().expires_at >= first_expiry  # one claim, renewed

    released = claim(client, task=scenario.task, object_type="report", action="release").content.decode()
    assert "Released" in released and Claim.objects.count() == 0
    again = claim(client, task=scenario.task, object_type="report", action="release").content.decode()
    assert "You held no claim on that item." in again


def test_an_expired_claim_is_no_claim(researcher):
    # given a claim of analyst1 that expired a minute ago
    scenario = plan_review_task(researcher)
    Claim.objects.create(
        task=scenario.task,
        object_type="plan",
        analyst=analyst_persona("analyst1"),
        expires_at=timezone.now() - timedelta(minutes=1),
    )
    second = client_for(analyst_persona("analyst2"))
    # then the queue shows it unclaimed, and another analyst takes it
    assert "Claimed by" not in second.get(QUEUE, {"queue": "plans"}).content.decode()
    claim(second, task=scenario.task, object_type="plan")
    assert list(Claim.objects.values_list("analyst__username", flat=True)) == ["analyst2"]


def test_it_refuses_to_claim_an_item_that_no_longer_waits(analyst, researcher):
    scenario = evidence_review_task(researcher)
    Finding.objects.filter(pk=scenario.conflict.pk).update(resolution="picked")
    body = claim(
        client_for(analyst), task=scenario.task, object_type="finding", finding=scenario.conflict
    ).content.decode()
    assert "This item no longer waits for a decision." in body
    body = claim(client_for(analyst), task=scenario.task, object_type="report").content.decode()
    assert "This item no longer waits for a decision." in body
    assert Claim.objects.count() == 0


def test_it_goes_back_only_to_a_page_of_this_site(analyst, researcher):
    scenario = plan_review_task(researcher)
    data = {
        "action": "claim",
        "object_type": "plan",
        "task": scenario.task.pk,
        "next": "https://evil.example/",
    }
    response = client_for(analyst).post(CLAIM, data)
    assert response.status_code == 302 and response["Location"] == QUEUE


# --- claims and decisions -------------------------------------------------------------------------


def decide_conflict(client, finding: Finding):
    url = reverse("evidence_review", args=[finding.task_id])
    data = {"finding": finding.pk, "version": finding.version, "decision": "disputed", "note": ""}
    return client.post(url, data, **HTMX)


def test_a_decision_on_an_item_another_analyst_claimed_is_refused(researcher):
    # given analyst1 holds the conflict
    scenario = evidence_review_task(researcher)
    holder, other = analyst_persona("analyst1"), analyst_persona("analyst2")
    claim(client_for(holder), task=scenario.task, object_type="finding", finding=scenario.conflict)

    # when analyst2 decides it anyway
    body = decide_conflict(client_for(other), scenario.conflict).content.decode()

    # then the decision is refused with who holds it; nothing is decided or recorded
    assert "analyst1 has claimed this item until" in body
    scenario.conflict.refresh_from_db()
    assert scenario.conflict.resolution == "" and ReviewDecision.objects.count() == 0

    # and the holder's own decision goes through and ends the claim
    assert "Recorded for item" in decide_conflict(client_for(holder), scenario.conflict).content.decode()
    assert Claim.objects.count() == 0


@pytest.mark.parametrize("gate", ["plan", "report"])
def test_a_plan_or_report_decision_is_refused_to_a_non_claimer(gate, researcher):
    scenario = plan_review_task(researcher) if gate == "plan" else report_review_task(researcher)
    claim(client_for(analyst_persona("analyst1")), task=scenario.task, object_type=gate)
    other = client_for(analyst_persona("analyst2"))
    if gate == "plan":
        url, data = reverse("plan_review", args=[scenario.task.pk]), {"action": "reject", "plan_version": 1}
        data["feedback"] = "Narrower, please."
    else:
        url, data = (
            reverse("report_view", args=[scenario.task.pk]),
            {"draft_version": 1, "decision": "approve"},
        )
    body = other.post(url, data, **HTMX).content.decode()
    assert "analyst1 has claimed this item until" in body
    scenario.task.refresh_from_db()
    assert scenario.task.status in ResearchTask.AWAITING and ReviewDecision.objects.count() == 0


def test_editing_a_plan_keeps_the_claim_and_approving_it_ends_it(analyst, researcher):
    scenario = plan_review_task(researcher)
    client = client_for(analyst)
    claim(client, task=scenario.task, object_type="plan")
    subquestions = list(scenario.plan.subquestions.order_by("order"))
    form = {"plan_version": 1, "sq-total": len(subquestions)}
    for i, sq in enumerate(subquestions):
        form |= {f"sq-{i}-id": sq.pk, f"sq-{i}-text": sq.text, f"sq-{i}-queries": "\n".join(sq.queries)}
    form["sq-0-text"] = "How many riders use the tram each weekday?"
    client.post(reverse("plan_review", args=[scenario.task.pk]), {**form, "action": "save"}, **HTMX)
    assert Claim.objects.count() == 1
    client.post(reverse("plan_review", args=[scenario.task.pk]), {**form, "action": "approve"}, **HTMX)
    assert Claim.objects.count() == 0
    assert ReviewDecision.objects.filter(decision="approve").exists()


@pytest.mark.django_db(transaction=True)
@pytest.mark.skipif(connection.vendor != "postgresql", reason="a real race needs concurrent transactions")
def test_two_analysts_claiming_at_once_get_exactly_one_claim(researcher):
    # given one [证据不足] item and two analysts who both press "Claim" at the same moment
    scenario = evidence_review_task(researcher)
    clients = {name: client_for(analyst_persona(name)) for name in ("analyst1", "analyst2")}
    barrier, bodies = threading.Barrier(2), {}

    def press(name: str) -> None:
        try:
            barrier.wait(timeout=10)
            response = claim(clients[name], task=scenario.task, object_type="finding", finding=scenario.gap)
            bodies[name] = response.content.decode()
        finally:
            connection.close()

    threads = [threading.Thread(target=press, args=(name,)) for name in clients]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)

    # then one holds it and the other is told who
    holder = Claim.objects.get().analyst.username
    other = "analyst2" if holder == "analyst1" else "analyst1"
    assert "Claimed until" in bodies[holder]
    assert f"{holder} claimed this item first" in bodies[other]


def nav_count(client) -> str:
    body = client.get(reverse("task_list")).content.decode()
    return body.split('data-testid="nav-queue-count"')[1].split(">")[1].split("<")[0]


def test_the_navigation_counts_are_forgotten_when_an_item_is_decided(
    analyst, researcher, django_capture_on_commit_callbacks
):
    # given a conflict and a [证据不足] item, counted (and cached) by a first page
    scenario = evidence_review_task(researcher)
    client = client_for(analyst)
    assert nav_count(client) == "2"

    # when one is decided and the decision commits
    with django_capture_on_commit_callbacks(execute=True):
        services.finding_decide(finding=scenario.gap, actor=analyst, decision="gap", version_seen=1)

    # then the next page counts again
    assert nav_count(client) == "1"
