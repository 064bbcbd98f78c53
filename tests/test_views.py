"""Web views: a permission test for every view × persona, submission, polling, the report page,
exports and query counts. The gates' pages are tested in ``test_gate_views.py``.

No Celery worker is needed: services enqueue with ``transaction.on_commit``, which never fires
inside the test transaction.
"""

from __future__ import annotations

import re

import pytest
from django.urls import reverse

from researchapp.models import Event, Plan, ReportDraft, ResearchTask
from reviews.models import ReviewDecision
from tests.factories import (
    Scenario,
    TaskFactory,
    evidence_review_task,
    plan_review_task,
    report_review_task,
    researcher_persona,
    task_with_plan,
)
from tests.helpers import HTMX, client_for

pytestmark = pytest.mark.django_db
Status = ResearchTask.Status
PERSONAS = ("anonymous", "outsider", "other_researcher", "researcher", "analyst")


# --- personas (the fixtures of conftest.py, built by tests/factories.py) ---------------------------


@pytest.fixture
def people(researcher, analyst, outsider):
    return {
        "anonymous": None,
        "outsider": outsider,  # logged in, in no group
        "other_researcher": researcher_persona("other_researcher"),
        "researcher": researcher,
        "analyst": analyst,
    }


@pytest.fixture
def scenario(researcher) -> Scenario:
    """A task of ``researcher`` at the report gate: a plan, findings, evidence and a checked draft."""
    return report_review_task(researcher)


def url_for(name: str, scenario: Scenario) -> str:
    if name == "evidence_context":
        return reverse(name, args=[scenario.evidence[0].pk])
    return reverse(name, args=[scenario.task.pk])


# --- permissions ----------------------------------------------------------------------------------

TASK_GETS = [
    "task_detail",
    "task_progress",
    "plan_review",
    "evidence_review",
    "report_view",
    "evidence_context",
    "task_audit",
    "task_audit_csv",
    "export_markdown",
    "export_pdf",
]
# What the task's owner and an analyst get: exports answer 409 until the report is approved,
# the progress poll 200 because a task awaiting review can still move (it polls on, more slowly).
OWN_STATUS = {"export_markdown": 409, "export_pdf": 409}


@pytest.mark.parametrize("name", TASK_GETS)
@pytest.mark.parametrize("persona", PERSONAS)
def test_it_guards_every_task_page(people, scenario, persona, name):
    # given a task owned by the researcher, when each persona opens one of its pages
    url = url_for(name, scenario)
    response = client_for(people[persona]).get(url)
    # then anonymous users log in first, strangers learn nothing, the owner and analysts see it
    if persona == "anonymous":
        assert response.status_code == 302
        assert response["Location"].startswith(reverse("login") + "?next=")
    elif persona in ("outsider", "other_researcher"):
        assert response.status_code == 404
    else:
        assert response.status_code == OWN_STATUS.get(name, 200)


DECISIONS = {
    "plan_review": {"action": "reject", "plan_version": "1", "feedback": "Split sub-question 2."},
    "evidence_review": {"finding": "0", "version": "1", "decision": "drop"},
    "report_view": {"decision": "send_back", "draft_version": "1", "comments": "Say who counted."},
}


@pytest.mark.parametrize("name", list(DECISIONS))
@pytest.mark.parametrize("persona", PERSONAS)
def test_it_lets_only_analysts_decide(people, persona, name, researcher):
    # given a task of the researcher waiting at the gate that view decides
    data = dict(DECISIONS[name])
    if name == "plan_review":
        task = plan_review_task(researcher).task
    elif name == "evidence_review":
        scenario = evidence_review_task(researcher)
        task = scenario.task
        data["finding"] = str(scenario.gap.pk)
    else:
        task = report_review_task(researcher).task
    # when each persona posts a decision
    response = client_for(people[persona]).post(reverse(name, args=[task.pk]), data)
    # then only an analyst's decision is taken
    expected = {"anonymous": 302, "outsider": 404, "other_researcher": 404, "researcher": 403, "analyst": 302}
    assert response.status_code == expected[persona]
    decided = ReviewDecision.objects.filter(task=task).count()
    assert decided == (1 if persona == "analyst" else 0)
    if persona == "anonymous":
        assert response["Location"].startswith(reverse("login"))


@pytest.mark.parametrize("persona", PERSONAS)
def test_it_guards_the_task_list_and_submit(people, persona):
    user = people[persona]
    client = client_for(user)
    listing = client.get(reverse("task_list"))
    submitted = client.post(reverse("task_submit"), {"question": "Is the tram busy?", "depth": "quick"})
    if persona == "anonymous":
        assert listing.status_code == submitted.status_code == 302
        assert ResearchTask.objects.count() == 0
    elif persona == "outsider":  # logged in but in no group: may look, may not submit
        assert listing.status_code == 200
        assert b'data-testid="no-submit"' in listing.content
        assert submitted.status_code == 403
    else:
        assert listing.status_code == 200
        task = ResearchTask.objects.get(owner=user)
        assert submitted.status_code == 302
        assert submitted["Location"] == reverse("task_detail", args=[task.pk])


@pytest.mark.parametrize("persona", PERSONAS)
def test_it_shows_the_review_queue_to_analysts_only(people, persona):
    response = client_for(people[persona]).get(reverse("review_queue"))
    expected = {"anonymous": 302, "outsider": 403, "other_researcher": 403, "researcher": 403, "analyst": 200}
    assert response.status_code == expected[persona]


@pytest.mark.parametrize("name", ["task_cancel", "task_resume"])
@pytest.mark.parametrize("persona", PERSONAS)
def test_it_lets_the_owner_and_analysts_cancel_and_resume(people, researcher, persona, name):
    # given a failed task of the researcher (both cancel and resume are legal moves from failed)
    task = task_with_plan(
        researcher,
        status=Status.FAILED,
        plan_status=Plan.Status.APPROVED,
        failed_stage="collecting",
        failure_reason="boom",
    ).task
    response = client_for(people[persona]).post(reverse(name, args=[task.pk]))
    task.refresh_from_db()
    if persona == "anonymous":
        assert response.status_code == 302 and response["Location"].startswith(reverse("login"))
        assert task.status == Status.FAILED
    elif persona in ("outsider", "other_researcher"):
        assert response.status_code == 404
        assert task.status == Status.FAILED
    else:
        assert response.status_code == 302
        assert task.status == (Status.CANCELLED if name == "task_cancel" else Status.COLLECTING)


def test_it_refuses_get_on_post_only_views(researcher):
    task = TaskFactory(owner=researcher)
    client = client_for(researcher)
    for name in ("task_cancel", "task_resume"):
        assert client.get(reverse(name, args=[task.pk])).status_code == 405
    assert client.get(reverse("task_submit")).status_code == 405


# --- submit -------------------------------------------------------------------------------------


def test_it_keeps_an_empty_question_and_says_why(researcher):
    response = client_for(researcher).post(reverse("task_submit"), {"question": "   ", "depth": "quick"})
    assert response.status_code == 400
    assert "The question is empty. Type what you want researched." in response.content.decode()
    assert ResearchTask.objects.count() == 0


def test_it_keeps_a_100k_character_question_and_says_why(researcher):
    question = "x" * 100_000
    response = client_for(researcher).post(reverse("task_submit"), {"question": question, "depth": "deep"})
    body = response.content.decode()
    assert response.status_code == 400
    assert "The question is 100,000 characters long; the limit is" in body
    assert question in body  # the user's text is kept in the textarea, untouched
    assert '<option value="deep" selected>' in body
    assert ResearchTask.objects.count() == 0


def test_it_submits_and_escapes_the_question(researcher):
    client = client_for(researcher)
    response = client.post(
        reverse("task_submit"), {"question": "<script>alert(1)</script> tram?", "depth": "quick"}, follow=True
    )
    body = response.content.decode()
    assert "&lt;script&gt;alert(1)&lt;/script&gt; tram?" in body
    assert "<script>alert(1)</script>" not in body
    assert "{#" not in body and "{%" not in body  # no template syntax leaks into the page
    assert 'style="' not in body and "<style" not in body  # the CSP allows no inline styles
    assert ResearchTask.objects.get().events.filter(stage="submitted").exists()


# --- progress polling ---------------------------------------------------------------------------


def test_it_keeps_polling_while_the_task_runs(researcher):
    task = TaskFactory(owner=researcher, status=Status.COLLECTING)
    Event.objects.create(
        task=task, stage="collecting", kind=Event.Kind.PROGRESS, message="Sub-question 1: 3 new sources"
    )
    response = client_for(researcher).get(reverse("task_progress", args=[task.pk]), **HTMX)
    body = response.content.decode()
    assert response.status_code == 200
    assert 'hx-trigger="every 2s"' in body
    assert "Sub-question 1: 3 new sources" in body
    assert "<html" not in body  # a fragment, not a page


@pytest.mark.parametrize(
    "status",
    [
        Status.AWAITING_PLAN_REVIEW,
        Status.AWAITING_EVIDENCE_REVIEW,
        Status.AWAITING_REPORT_REVIEW,
        Status.FAILED,
    ],
)
def test_it_polls_more_slowly_while_the_task_waits_for_a_person(researcher, status):
    # a gate or a failure is not the end: an analyst's decision or a resume moves the task on
    task = TaskFactory(owner=researcher, status=status)
    response = client_for(researcher).get(reverse("task_progress", args=[task.pk]), **HTMX)
    body = response.content.decode()
    assert response.status_code == 200
    assert 'hx-trigger="every 10s"' in body and 'hx-trigger="every 2s"' not in body
    assert f'data-status="{status}"' in body


@pytest.mark.parametrize("status", [Status.APPROVED, Status.CANCELLED])
def test_it_stops_polling_once_the_task_can_no_longer_move(researcher, status):
    task = TaskFactory(owner=researcher, status=status)
    response = client_for(researcher).get(reverse("task_progress", args=[task.pk]), **HTMX)
    body = response.content.decode()
    assert response.status_code == 286
    assert "hx-trigger" not in body
    assert f'data-status="{status}"' in body


def test_an_analysts_poll_brings_the_navigations_queue_count(analyst, researcher):
    # given two tasks waiting for an analyst's plan review
    task = TaskFactory(owner=researcher, status=Status.AWAITING_PLAN_REVIEW)
    TaskFactory(owner=researcher, status=Status.AWAITING_PLAN_REVIEW)
    # when an analyst's open task page polls, then the answer carries the count, swapped by its id
    body = client_for(analyst).get(reverse("task_progress", args=[task.pk]), **HTMX).content.decode()
    assert re.search(r'<span id="nav-queue-count"[^>]* data-count="2" hx-swap-oob="true"', body)
    # and the researcher's, who has no queue, does not
    body = client_for(researcher).get(reverse("task_progress", args=[task.pk]), **HTMX).content.decode()
    assert "nav-queue-count" not in body


def test_it_shows_failure_resume_warnings_tokens_and_stats(researcher):
    scenario = evidence_review_task(
        researcher,
        status=Status.FAILED,
        failed_stage="analysing",
        failure_reason="ProviderError: the model timed out",
        llm_tokens_in=1234,
        llm_tokens_out=56,
        pages_opened=7,
    )
    body = client_for(researcher).get(reverse("task_detail", args=[scenario.task.pk])).content.decode()
    assert "ProviderError: the model timed out" in body
    assert 'data-testid="task-resume"' in body
    assert "A page could not be fetched." in body  # a warning event
    assert "1234 / 56" in body
    assert '<dd data-testid="stat-pages-opened">7</dd>' in body
    assert '<dd data-testid="stat-independent">2</dd>' in body


# --- report, context, exports -------------------------------------------------------------------


def test_it_links_every_citation_and_escapes_the_report(analyst, researcher):
    # given a draft whose claim holds markup and cites an id the ledger does not have
    scenario = report_review_task(researcher)
    section = str(scenario.evidence[2].subquestion_id)
    hostile = {"text": "<script>alert(1)</script> [click](javascript:alert(2))", "evidence_ids": [999999]}
    ReportDraft.objects.filter(pk=scenario.draft.pk).update(
        claims=[*scenario.draft.claims, {**hostile, "section": section}]
    )
    # when an analyst opens it
    body = client_for(analyst).get(reverse("report_view", args=[scenario.task.pk])).content.decode()
    # then every citation opens its quote, the markup shows as text, and the unknown id is not a link
    for evidence in scenario.evidence:
        assert f'href="{reverse("evidence_context", args=[evidence.pk])}"' in body
    assert body.count('data-testid="citation"') == 3
    assert "<script>alert(1)</script>" not in body
    assert "&lt;script&gt;alert(1)&lt;/script&gt; [click](javascript:alert(2))" in body
    assert 'href="javascript:' not in body
    assert 'class="cite cite-unknown"' in body  # cites nothing in the ledger: shown, not linked
    assert 'data-testid="report-approve"' in body


def test_it_sends_a_report_back_and_rerenders_the_decision(analyst, researcher):
    scenario = report_review_task(researcher)
    data = {"decision": "send_back", "draft_version": 1, "comments": "Name the survey month."}
    response = client_for(analyst).post(reverse("report_view", args=[scenario.task.pk]), data, **HTMX)
    body = response.content.decode()
    assert body.lstrip().startswith('<section id="report-decision"')
    assert "sent back; the writer is revising it" in body
    assert 'data-draft-status="sent_back"' in body
    scenario.task.refresh_from_db()
    assert scenario.task.status == Status.WRITING


def test_it_approves_a_checked_report(analyst, researcher):
    scenario = report_review_task(researcher)
    data = {"decision": "approve", "draft_version": 1, "comments": ""}
    response = client_for(analyst).post(reverse("report_view", args=[scenario.task.pk]), data, **HTMX)
    body = response.content.decode()
    scenario.draft.refresh_from_db()
    assert scenario.draft.status == ReportDraft.Status.APPROVED, body
    assert 'data-testid="export-md"' in body and 'data-testid="export-pdf"' in body


def test_it_shows_a_quote_inside_its_source(researcher):
    scenario = evidence_review_task(researcher)
    evidence = scenario.evidence[0]
    client = client_for(researcher)
    page = client.get(reverse("evidence_context", args=[evidence.pk])).content.decode()
    fragment = client.get(reverse("evidence_context", args=[evidence.pk]), **HTMX)
    assert f'<mark data-testid="quote">{evidence.quote}</mark>' in page
    assert "Harbor City opened its new tram line" in page  # the text before the quote
    assert "Critics say the stations are too far apart" in page  # and after it
    assert evidence.source.sha256 in page
    assert f"{evidence.start}–{evidence.end}" in page
    assert "quote = snapshot[start:end], hash matches" in page
    assert "<html" not in fragment.content.decode() and "HX-Request" in fragment["Vary"]


def test_it_exports_only_an_approved_report(researcher):
    scenario = report_review_task(
        researcher, status=Status.APPROVED, draft_status=ReportDraft.Status.APPROVED
    )
    client = client_for(researcher)
    md = client.get(reverse("export_markdown", args=[scenario.task.pk]))
    pdf = client.get(reverse("export_pdf", args=[scenario.task.pk]))
    assert md.status_code == 200
    assert md["Content-Disposition"] == f'attachment; filename="research-{scenario.task.pk}.md"'
    assert "42,000 passengers a day" in md.content.decode()
    assert pdf.status_code == 200 and pdf.content.startswith(b"%PDF")
    assert pdf["Content-Disposition"] == f'attachment; filename="research-{scenario.task.pk}.pdf"'

    pending = report_review_task(researcher)
    refused = client.get(reverse("export_markdown", args=[pending.task.pk]))
    assert refused.status_code == 409
    assert "only an approved report can be exported" in refused.content.decode()


@pytest.mark.parametrize("question", ["\u200b\u200b\u2060", "\ufeff \u200d\u200c", "\u202e\u202c"])
def test_a_question_of_only_invisible_characters_is_refused_as_empty(researcher, question):
    response = client_for(researcher).post(reverse("task_submit"), {"question": question, "depth": "quick"})
    assert response.status_code == 400
    assert "The question is empty" in response.content.decode()
    assert not ResearchTask.objects.exists()


def test_a_question_is_stored_without_bidi_controls(researcher):
    question = "Is the \u202eNorthgate\u202c ferry safe?\u200b"
    client_for(researcher).post(reverse("task_submit"), {"question": question, "depth": "quick"})
    assert ResearchTask.objects.get().question == "Is the Northgate ferry safe?"


@pytest.mark.django_db(transaction=True)  # as served: a decision's commit forgets the cached counts
def test_a_decision_brings_the_navigations_fresh_queue_count(analyst, researcher):
    # given a conflict and a [证据不足] item waiting: the navigation counts two
    scenario = evidence_review_task(researcher)
    client = client_for(analyst)
    assert (
        'data-count="2"' in client.get(reverse("evidence_review", args=[scenario.task.pk])).content.decode()
    )
    # when the analyst keeps the gap as a gap, over htmx
    response = client.post(
        reverse("evidence_review", args=[scenario.task.pk]),
        {"finding": scenario.gap.pk, "version": scenario.gap.version, "decision": "gap"},
        **HTMX,
    )
    # then the fragment brings the navigation's count, one now, to swap in by its id
    assert re.search(
        r'<span id="nav-queue-count"[^>]* data-count="1" hx-swap-oob="true"', response.content.decode()
    )
