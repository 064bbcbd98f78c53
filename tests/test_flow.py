"""The whole life of a task on real services: PostgreSQL (or SQLite), Redis, a real Celery worker."""

from __future__ import annotations

import subprocess

import pytest
from django.core.management import call_command

from researchapp.demo import DEMO_QUESTION
from researchapp.exports.markdown import render_markdown
from researchapp.exports.pdf import render_pdf
from researchapp.models import Evidence, Finding, ResearchTask
from researchapp.services.evidence_gate import finding_resolve
from researchapp.services.plan_gate import plan_approve
from researchapp.services.report_gate import report_approve
from researchapp.services.submission import task_submit
from tests.helpers import wait_for_status

pytestmark = [pytest.mark.worker, pytest.mark.django_db(transaction=True)]


def test_it_takes_the_demo_question_from_submission_to_approved_exports(celery_worker_thread, analyst):
    # given the demo corpus and an analyst
    call_command("demo_setup", stdout=open("/dev/null", "w"))

    # when the analyst submits the demo question and approves the plan as proposed
    task = task_submit(owner=analyst, question=DEMO_QUESTION)
    wait_for_status(task, ResearchTask.Status.AWAITING_PLAN_REVIEW)
    plan = task.plans.get()
    assert 3 <= plan.subquestions.count() <= 6
    plan_approve(plan=plan, actor=analyst)

    # then collection and analysis run on the worker and stop at the evidence gate
    wait_for_status(task, ResearchTask.Status.AWAITING_EVIDENCE_REVIEW)
    conflicts = list(Finding.objects.filter(task=task, status="conflict"))
    gaps = list(Finding.objects.filter(task=task, status="insufficient"))
    assert conflicts, "the demo question must yield a conflict"
    assert gaps, "the demo question must yield a [证据不足] item"
    assert all(e.verify() for e in Evidence.objects.filter(task=task).select_related("source"))

    # when the analyst resolves every item
    for finding in conflicts:
        finding_resolve(
            finding=finding,
            actor=analyst,
            decision="pick_supports",
            version_seen=finding.version,
            note="The maker's figure.",
        )
    for finding in gaps:
        finding_resolve(finding=finding, actor=analyst, decision="gap", version_seen=finding.version)

    # then the writer drafts a report that passes its checks, and approval freezes it
    wait_for_status(task, ResearchTask.Status.AWAITING_REPORT_REVIEW)
    draft = task.drafts.current()
    assert draft.claims and not draft.check_issues
    report_approve(draft=draft, actor=analyst)
    task.refresh_from_db()
    assert task.status == ResearchTask.Status.APPROVED
    assert "[证据不足]" in draft.markdown

    # and both exports keep every citation
    draft.refresh_from_db()
    markdown = render_markdown(draft)
    pdf_text = subprocess.run(
        ["pdftotext", "-", "-"], input=render_pdf(draft), capture_output=True, check=True
    ).stdout.decode()
    for evidence_id in draft.cited_evidence_ids:
        assert f"[E{evidence_id}]" in markdown
        assert f"E{evidence_id}" in pdf_text
    assert "证据不足" in pdf_text  # Chinese text renders (and extracts) from the PDF
    call_command("ledger_verify", task=task.pk, stdout=open("/dev/null", "w"))

    # and the audit log holds every move in order
    transitions = list(task.events.filter(kind="transition"))
    moves = [e.data["to"] for e in transitions if e.data["object"] == "researchtask"]
    assert [(e.data["object"], e.data["to"]) for e in transitions if e.data["object"] != "researchtask"] == [
        ("plan", "approved"),
        ("reportdraft", "approved"),
    ]
    assert moves == [
        "planning",
        "awaiting_plan_review",
        "collecting",
        "analysing",
        "awaiting_evidence_review",
        "writing",
        "awaiting_report_review",
        "approved",
    ]
