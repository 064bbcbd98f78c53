"""The gates' pages: the plan editor and the evidence review, their HTMX fragments, and two
analysts racing on one item.

No Celery worker is needed: services enqueue with ``transaction.on_commit``, which never fires
inside the test transaction.
"""

from __future__ import annotations

import re
import threading

import pytest
from django.db import connection
from django.test import Client
from django.urls import reverse

from researchapp.models import Finding, Plan, ResearchTask
from reviews.models import ReviewDecision
from tests.factories import analyst_persona, evidence_review_task, plan_review_task, report_review_task
from tests.helpers import HTMX, client_for

pytestmark = pytest.mark.django_db
Status = ResearchTask.Status


# --- plan review --------------------------------------------------------------------------------


def plan_post(plan: Plan, action: str, **extra) -> dict[str, str]:
    data = {"plan_version": str(plan.version), "action": action}
    subquestions = list(plan.subquestions.order_by("order"))
    data["sq-total"] = str(len(subquestions))
    for i, sq in enumerate(subquestions):
        data |= {
            f"sq-{i}-id": str(sq.pk),
            f"sq-{i}-text": sq.text,
            f"sq-{i}-queries": "\r\n".join(sq.queries),
            f"sq-{i}-rationale": sq.rationale,
        }
    return data | extra


@pytest.fixture
def plan_gate(researcher) -> Plan:
    return plan_review_task(researcher).plan


def test_it_moves_adds_and_removes_subquestions_and_rerenders_fresh(analyst, plan_gate):
    client = client_for(analyst)
    url = reverse("plan_review", args=[plan_gate.task_id])
    first, second, third = plan_gate.subquestions.order_by("order")
    # when the analyst moves the second sub-question up over HTMX
    response = client.post(url, plan_post(plan_gate, "up:1"), **HTMX)
    # then the fragment shows the stored order
    body = response.content.decode()
    assert response.status_code == 200 and "<html" not in body and 'id="plan-editor"' in body
    assert list(plan_gate.subquestions.order_by("order").values_list("pk", flat=True)) == [
        second.pk,
        first.pk,
        third.pk,
    ]
    assert body.index("Sub-question 2?") < body.index("Sub-question 1?")
    # when they add one and remove another
    client.post(
        url,
        plan_post(plan_gate, "add", **{"new-text": "Who runs it?", "new-queries": "tram operator\n"}),
        **HTMX,
    )
    response = client.post(url, plan_post(plan_gate, "remove:0"), **HTMX)
    texts = list(plan_gate.subquestions.order_by("order").values_list("text", flat=True))
    assert texts == ["Sub-question 1?", "Sub-question 3?", "Who runs it?"]
    assert "Who runs it?" in response.content.decode()
    assert ReviewDecision.objects.filter(object_type="plan", decision="edit").count() == 3


def test_it_keeps_the_analysts_edits_when_they_are_invalid(analyst, plan_gate):
    data = plan_post(plan_gate, "save", **{"sq-0-text": "   ", "sq-1-text": "My rewording"})
    response = client_for(analyst).post(reverse("plan_review", args=[plan_gate.task_id]), data, **HTMX)
    body = response.content.decode()
    assert "A sub-question cannot be empty." in body
    assert "My rewording" in body  # not lost, not stored
    assert not plan_gate.subquestions.filter(text="My rewording").exists()


def test_it_approves_a_plan_with_its_unsaved_edits(analyst, plan_gate):
    data = plan_post(plan_gate, "approve", **{"sq-2-text": "Sub-question 3, sharper?"})
    response = client_for(analyst).post(reverse("plan_review", args=[plan_gate.task_id]), data, **HTMX)
    plan_gate.refresh_from_db()
    assert plan_gate.status == Plan.Status.APPROVED
    assert plan_gate.task.status == Status.COLLECTING
    assert plan_gate.subquestions.filter(text="Sub-question 3, sharper?").exists()
    assert "approved; collection has started" in response.content.decode()
    assert list(ReviewDecision.objects.values_list("decision", flat=True)) == ["approve"]


def test_it_needs_feedback_to_reject_and_refuses_a_stale_plan(analyst, plan_gate):
    client = client_for(analyst)
    url = reverse("plan_review", args=[plan_gate.task_id])
    empty = client.post(url, {"action": "reject", "plan_version": "1", "feedback": " "}, **HTMX)
    assert "Say what should change" in empty.content.decode()
    stale = client.post(url, plan_post(plan_gate, "approve", plan_version="7"), **HTMX)
    assert "Someone changed or decided this item first" in stale.content.decode()
    plan_gate.refresh_from_db()
    assert plan_gate.status == Plan.Status.DRAFT
    assert not ReviewDecision.objects.exists()


def test_it_shows_the_plan_read_only_to_its_researcher(researcher, plan_gate):
    body = client_for(researcher).get(reverse("plan_review", args=[plan_gate.task_id])).content.decode()
    assert 'data-testid="plan-readonly"' in body
    assert 'data-testid="plan-approve"' not in body
    assert "query 1a" in body


# --- evidence review ----------------------------------------------------------------------------


def decide(client: Client, finding: Finding, decision: str, version: int | None = None, note: str = ""):
    note = note or ("Official count." if decision.startswith("pick_") else "")
    data = {"finding": finding.pk, "version": version or finding.version, "decision": decision, "note": note}
    return client.post(reverse("evidence_review", args=[finding.task_id]), data, **HTMX)


def test_it_rerenders_the_findings_from_fresh_data_after_a_decision(analyst, researcher):
    scenario = evidence_review_task(researcher)
    response = decide(client_for(analyst), scenario.conflict, "pick_supports")
    body = response.content.decode()
    assert response.status_code == 200
    assert "<html" not in body and body.lstrip().startswith('<div id="findings"')
    assert 'data-pending="1"' in body  # the gap is left
    assert "Decided: picked side A (transit.example)" in body  # which side, not "Decided: Picked"
    assert f"by {analyst.username}" in body and "Official count." in body
    assert "Recorded for item" in body
    assert ReviewDecision.objects.get().version_seen == 1


def test_it_tells_the_second_analyst_who_decided_first(researcher):
    scenario = evidence_review_task(researcher)
    first, second = analyst_persona("analyst1"), analyst_persona("analyst2")
    # when both analysts loaded version 1 and decide it one after the other
    won = decide(client_for(first), scenario.conflict, "pick_supports", version=1)
    lost = decide(client_for(second), scenario.conflict, "drop", version=1)
    # then the first decision stands, and the second analyst is told who was first
    assert "Recorded for item" in won.content.decode()
    assert "analyst1 changed or decided this item first" in lost.content.decode()
    scenario.conflict.refresh_from_db()
    assert scenario.conflict.resolution == "picked"
    assert list(ReviewDecision.objects.values_list("reviewer__username", flat=True)) == ["analyst1"]


@pytest.mark.django_db(transaction=True)
@pytest.mark.skipif(connection.vendor != "postgresql", reason="a real race needs row locks (PostgreSQL)")
def test_it_lets_exactly_one_of_two_racing_analysts_win(researcher):
    # given two analysts who both loaded version 1 of one conflict
    scenario = evidence_review_task(researcher)
    clients = {
        "analyst1": client_for(analyst_persona("analyst1")),
        "analyst2": client_for(analyst_persona("analyst2")),
    }
    barrier, bodies = threading.Barrier(2), {}

    def post(name: str, decision: str) -> None:
        try:
            barrier.wait(timeout=10)
            bodies[name] = decide(clients[name], scenario.conflict, decision, version=1).content.decode()
        finally:
            connection.close()

    # when they decide at the same moment, in two threads with two database connections
    threads = [
        threading.Thread(target=post, args=("analyst1", "pick_supports")),
        threading.Thread(target=post, args=("analyst2", "drop")),
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)
    # then exactly one wins, the other is told who was first, and one audit row exists
    winner = next(name for name, body in bodies.items() if "Recorded for item" in body)
    loser = "analyst2" if winner == "analyst1" else "analyst1"
    assert f"{winner} changed or decided this item first" in bodies[loser]
    assert list(ReviewDecision.objects.values_list("reviewer__username", flat=True)) == [winner]
    assert Finding.objects.get(pk=scenario.conflict.pk).version == 2


def test_it_shows_both_sides_and_disables_more_research_without_rounds(analyst, researcher):
    scenario = evidence_review_task(researcher, round=2, max_rounds=2)
    body = client_for(analyst).get(reverse("evidence_review", args=[scenario.task.pk])).content.decode()
    differing = '<strong class="differs" data-testid="differs">{}</strong> passengers a day'
    assert differing.format("42,000") in body and differing.format("31,000") in body
    assert 'data-testid="decide-pick-supports"' in body and 'data-testid="decide-pick-contradicts"' in body
    assert 'data-testid="decide-gap"' in body
    assert "No research rounds remain (2 of 2 used)." in body
    assert 'value="more_research"' not in body


def test_it_refuses_a_decision_that_does_not_fit_the_item(analyst, researcher):
    scenario = evidence_review_task(researcher)
    body = decide(client_for(analyst), scenario.gap, "pick_supports").content.decode()
    assert "does not apply to a insufficient finding" in body or "does not apply" in body
    assert not ReviewDecision.objects.exists()


def test_it_redirects_after_a_decision_without_htmx(analyst, researcher):
    scenario = evidence_review_task(researcher)
    client = client_for(analyst)
    data = {"finding": scenario.gap.pk, "version": 1, "decision": "gap"}
    response = client.post(reverse("evidence_review", args=[scenario.task.pk]), data, follow=True)
    assert response.redirect_chain[-1][0] == reverse("evidence_review", args=[scenario.task.pk])
    assert "Recorded for item" in response.content.decode()


def test_it_404s_a_finding_of_another_task(analyst, researcher):
    mine, other = evidence_review_task(researcher), evidence_review_task(researcher)
    data = {"finding": other.gap.pk, "version": 1, "decision": "gap"}
    response = client_for(analyst).post(reverse("evidence_review", args=[mine.task.pk]), data, **HTMX)
    assert response.status_code == 404


EVIDENCE_LINK = re.compile(r'<a [^>]*hx-get="/evidence/\d+/"[^>]*>')


def test_it_opens_every_evidence_link_inside_the_side_panel(analyst, researcher):
    # given a task at the evidence gate, whose links sit inside decision forms (hx-swap="outerHTML"),
    # and a task at the report gate
    evidence_gate, report_gate = evidence_review_task(researcher), report_review_task(researcher)
    client = client_for(analyst)
    # when their pages are rendered, and the findings fragment after a decision
    responses = [
        client.get(reverse("evidence_review", args=[evidence_gate.task.pk])),
        decide(client, evidence_gate.gap, "gap"),
        client.get(reverse("report_view", args=[report_gate.task.pk])),
    ]
    # then every evidence link swaps into the side panel's inside, never replacing the panel itself
    links = EVIDENCE_LINK.findall("".join(response.content.decode() for response in responses))
    assert len(links) == 3 + 3 + 6, links  # E1, E2 and E3 twice; the report cites them and lists them
    for link in links:
        assert 'hx-target="#side-panel"' in link and 'hx-swap="innerHTML"' in link, link
