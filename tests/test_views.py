"""Web views: a permission test for every view × persona, HTMX fragments, polling, query counts,
submit errors and two analysts racing on one item.

No Celery worker is needed: services enqueue with ``transaction.on_commit``, which never fires
inside the test transaction.
"""

from __future__ import annotations

import re
import threading

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from researchapp.models import Event, Finding, Plan, ReportDraft, ResearchTask
from reviews.models import ReviewDecision
from tests.factories import (
    Scenario,
    TaskFactory,
    analyst_persona,
    evidence_review_task,
    plan_review_task,
    report_review_task,
    researcher_persona,
    task_with_plan,
)

pytestmark = pytest.mark.django_db
Status = ResearchTask.Status
HTMX = {"HTTP_HX_REQUEST": "true"}
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


def client_for(user) -> Client:
    client = Client()
    if user is not None:
        client.force_login(user)
    return client


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
    "export_markdown",
    "export_pdf",
]
# What the task's owner and an analyst get: exports answer 409 until the report is approved,
# the progress poll 286 because a task awaiting review is not running.
OWN_STATUS = {"export_markdown": 409, "export_pdf": 409, "task_progress": 286}


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
    "status", [Status.AWAITING_PLAN_REVIEW, Status.FAILED, Status.APPROVED, Status.CANCELLED]
)
def test_it_stops_polling_once_the_task_is_not_running(researcher, status):
    task = TaskFactory(owner=researcher, status=status)
    response = client_for(researcher).get(reverse("task_progress", args=[task.pk]), **HTMX)
    assert response.status_code == 286
    assert 'hx-trigger="every 2s"' not in response.content.decode()
    assert f'data-status="{status}"' in response.content.decode()


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
    assert "The plan changed since you loaded it" in stale.content.decode()
    plan_gate.refresh_from_db()
    assert plan_gate.status == Plan.Status.DRAFT
    assert not ReviewDecision.objects.exists()


def test_it_shows_the_plan_read_only_to_its_researcher(researcher, plan_gate):
    body = client_for(researcher).get(reverse("plan_review", args=[plan_gate.task_id])).content.decode()
    assert 'data-testid="plan-readonly"' in body
    assert 'data-testid="plan-approve"' not in body
    assert "query 1a" in body


# --- evidence review ----------------------------------------------------------------------------


def decide(client: Client, finding: Finding, decision: str, version: int | None = None):
    data = {"finding": finding.pk, "version": version or finding.version, "decision": decision, "note": ""}
    return client.post(reverse("evidence_review", args=[finding.task_id]), data, **HTMX)


def test_it_rerenders_the_findings_from_fresh_data_after_a_decision(analyst, researcher):
    scenario = evidence_review_task(researcher)
    response = decide(client_for(analyst), scenario.conflict, "pick_supports")
    body = response.content.decode()
    assert response.status_code == 200
    assert "<html" not in body and body.lstrip().startswith('<div id="findings"')
    assert 'data-pending="1"' in body  # the gap is left
    assert f"Decided: <strong>Picked</strong> by {analyst.username}" in body
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
    assert "analyst1 already decided this item" in lost.content.decode()
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
    assert f"{winner} already decided this item" in bodies[loser]
    assert list(ReviewDecision.objects.values_list("reviewer__username", flat=True)) == [winner]
    assert Finding.objects.get(pk=scenario.conflict.pk).version == 2


def test_it_shows_both_sides_and_disables_more_research_without_rounds(analyst, researcher):
    scenario = evidence_review_task(researcher, round=2, max_rounds=2)
    body = client_for(analyst).get(reverse("evidence_review", args=[scenario.task.pk])).content.decode()
    assert "42,000 passengers a day" in body and "31,000 passengers a day" in body
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


# --- report, context, exports -------------------------------------------------------------------


def test_it_links_every_citation_and_sanitizes_the_report(analyst, researcher):
    scenario = report_review_task(researcher)
    ReportDraft.objects.filter(pk=scenario.draft.pk).update(
        markdown=scenario.draft.markdown
        + "\n<script>alert(1)</script>\n\n[click](javascript:alert(2)) [E999999]\n"
    )
    body = client_for(analyst).get(reverse("report_view", args=[scenario.task.pk])).content.decode()
    for evidence in scenario.evidence:
        assert f'href="{reverse("evidence_context", args=[evidence.pk])}"' in body
    assert body.count('data-testid="citation"') == 3
    assert "<script>alert(1)</script>" not in body
    assert "javascript:alert(2)" not in body
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
