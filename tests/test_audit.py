"""The audit trail: one line per act (who, when, what, what it changed, the note), per task and across
tasks, with plan diffs, submissions and downloads; and its CSV."""

from __future__ import annotations

import csv
import io

import pytest
from django.core.cache import cache
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from researchapp.models import ReportDraft, ResearchTask
from researchapp.services import submission
from researchapp.services.plan_gate import SubQuestionEdit
from reviews import services
from reviews.models import ReviewDecision
from tests.factories import (
    PlanFactory,
    analyst_persona,
    evidence_review_task,
    report_review_task,
)
from tests.helpers import client_for

pytestmark = pytest.mark.django_db
Status = ResearchTask.Status


def lines_of(body: str) -> list[str]:
    """Each audit line's HTML, in the page's order."""
    return body.split('data-testid="audit-line"')[1:]


def submitted_and_planned(researcher) -> tuple[ResearchTask, object]:
    """A task submitted in the browser's way, planned by the system, waiting at plan review."""
    task = submission.task_submit(owner=researcher, question="How busy is the Harbor City tram?")
    plan = PlanFactory(task=task, subquestions=2)
    task.transition(Status.PLANNING, message="Planning sub-questions.")
    task.transition(Status.AWAITING_PLAN_REVIEW, message="Plan v1 is ready for review.")
    return task, plan


def test_a_decision_is_one_line_with_what_it_changed_and_the_note(researcher, analyst):
    # given a submitted task whose plan an analyst edited, then approved with a note
    task, plan = submitted_and_planned(researcher)
    first, second = plan.subquestions.order_by("order")
    edits = [
        SubQuestionEdit(text="How many riders a weekday?", queries=("tram riders weekday",), id=first.pk),
        SubQuestionEdit(text=second.text, queries=tuple(second.queries), id=second.pk),
    ]
    services.plan_decide(plan=plan, actor=analyst, decision="edit", version_seen=1, edits=edits)
    services.plan_decide(plan=plan, actor=analyst, decision="approve", version_seen=1, note="Looks right.")

    # when anyone who may see the task opens its audit
    body = client_for(researcher).get(reverse("task_audit", args=[task.pk])).content.decode()
    lines = lines_of(body)

    # then: the submission, the planner's two moves, and one line per decision
    kinds = [line.split('data-kind="')[1].split('"')[0] for line in lines]
    assert kinds == ["submission", "status", "status", "decision", "decision"]
    assert f"<td>{researcher.username}</td>" in lines[0] and "Submitted the question" in lines[0]
    assert "Planning → Plan review" in lines[2]
    edit, approve = lines[3], lines[4]
    assert "Edited plan v1" in edit and f"<td>{analyst.username}</td>" in edit
    assert "-1. Sub-question 1?" in edit and "+1. How many riders a weekday?" in edit
    assert "+   search: tram riders weekday" in edit and "-   search: query 1a" in edit
    assert (
        "Approved plan v1" in approve and "Plan review → Collecting" in approve and "Looks right." in approve
    )
    # and no stored key reaches the page, nor a decision's second wording
    assert "awaiting_plan_review" not in body and "draft → approved" not in body


def test_finding_decisions_and_downloads_are_lines_of_their_own(researcher, analyst):
    # given an item decided with a note, and a report approved and downloaded twice
    scenario = evidence_review_task(researcher)
    services.finding_decide(
        finding=scenario.conflict,
        actor=analyst,
        decision="pick_supports",
        version_seen=1,
        note="Official count.",
    )
    approved = report_review_task(
        researcher, status=Status.APPROVED, draft_status=ReportDraft.Status.APPROVED
    )
    client = client_for(researcher)
    client.get(reverse("export_markdown", args=[approved.task.pk]))
    client.get(reverse("export_pdf", args=[approved.task.pk]))

    # then the decision reads as what it did, and each download says who took which format
    decided = client_for(analyst).get(reverse("task_audit", args=[scenario.task.pk])).content.decode()
    line = next(line for line in lines_of(decided) if 'data-kind="decision"' in line)
    assert f"Item {scenario.conflict.pk}: picked side A (the sources that say so)" in line
    assert "Official count." in line
    downloads = [
        line for line in lines_of(client.get(reverse("task_audit", args=[approved.task.pk])).content.decode())
        if 'data-kind="export"' in line
    ]  # fmt: skip
    assert len(downloads) == 2
    assert "Downloaded report v1 (Markdown)" in downloads[0] and "Downloaded report v1 (PDF)" in downloads[1]
    assert all(f"<td>{researcher.username}</td>" in line for line in downloads)


def test_the_audit_downloads_as_csv_with_formulas_kept_as_text(researcher, analyst):
    scenario = evidence_review_task(researcher)
    services.finding_decide(
        finding=scenario.gap, actor=analyst, decision="gap", version_seen=1, note='=HYPERLINK("http://x")'
    )
    response = client_for(analyst).get(reverse("task_audit_csv", args=[scenario.task.pk]))
    assert response["Content-Type"] == "text/csv; charset=utf-8"
    assert f'filename="audit-task-{scenario.task.pk}.csv"' in response["Content-Disposition"]
    rows = list(csv.DictReader(io.StringIO(response.content.decode())))
    decision = next(row for row in rows if row["Kind"] == "decision")
    assert decision["Who"] == analyst.username and decision["Task"] == str(scenario.task.pk)
    assert decision["What"] == f"Item {scenario.gap.pk}: kept as a gap"
    assert decision["Note"] == '\'=HYPERLINK("http://x")'


def test_the_audit_across_tasks_shows_what_people_did_to_analysts_only(researcher, analyst):
    # given decisions by two analysts on two tasks
    other = analyst_persona("analyst2")
    one, two = evidence_review_task(researcher), evidence_review_task(researcher)
    services.finding_decide(finding=one.conflict, actor=analyst, decision="disputed", version_seen=1)
    services.finding_decide(finding=two.gap, actor=other, decision="drop", version_seen=1)

    # then analysts see both, newest first, and can narrow to one person or task; researchers cannot
    body = client_for(analyst).get(reverse("desk_audit")).content.decode()
    lines = lines_of(body)
    assert (
        f"Item {two.gap.pk}: dropped" in lines[0] and f"Item {one.conflict.pk}: kept as disputed" in lines[1]
    )
    only = client_for(analyst).get(reverse("desk_audit"), {"who": "analyst2"}).content.decode()
    assert [f"Item {two.gap.pk}: dropped" in line for line in lines_of(only)] == [True]
    task_only = client_for(analyst).get(reverse("desk_audit"), {"task": one.task.pk}).content.decode()
    assert all(f'href="/reviews/tasks/{one.task.pk}/audit/"' in line for line in lines_of(task_only))
    rows = list(csv.reader(io.StringIO(client_for(analyst).get(reverse("desk_audit_csv")).content.decode())))
    assert len(rows) == 1 + len(lines)
    assert client_for(researcher).get(reverse("desk_audit")).status_code == 403
    assert client_for(researcher).get(reverse("desk_audit_csv")).status_code == 403


def test_the_audit_pages_read_in_constant_queries(researcher, analyst):
    def queries(url: str) -> int:
        client = client_for(analyst)
        cache.clear()  # measured cold: the navigation's cached queue counts are counted too
        with CaptureQueriesContext(connection) as captured:
            assert client.get(url).status_code == 200
        return len(captured)

    small = evidence_review_task(researcher)
    services.finding_decide(finding=small.conflict, actor=analyst, decision="disputed", version_seen=1)
    urls = [reverse("task_audit", args=[small.task.pk]), reverse("desk_audit")]
    before = [queries(url) for url in urls]
    for scenario in [small] + [evidence_review_task(researcher) for _ in range(3)]:
        for finding in (scenario.gap,):
            services.finding_decide(finding=finding, actor=analyst, decision="gap", version_seen=1)
    assert [queries(url) for url in urls] == before
    assert ReviewDecision.objects.count() == 5
