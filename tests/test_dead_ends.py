"""Every dead end has a way out: empty follow-up rounds, stalled tasks, messages in the page's words."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.core.exceptions import ValidationError
from django.core.management import call_command
from django.utils import timezone

from researchapp.core.enums import INSUFFICIENT_MARK
from researchapp.demo import DEMO_QUESTION
from researchapp.models import Finding, Job, ResearchTask, StageJob
from researchapp.selectors import task_detail
from researchapp.services.dispatch import drain, inline
from researchapp.services.evidence_gate import finding_resolve
from researchapp.services.plan_gate import plan_approve
from researchapp.services.report_gate import report_approve
from researchapp.services.submission import task_resume, task_submit

pytestmark = pytest.mark.django_db
Status = ResearchTask.Status


def decide_all(task, decisions: dict[str, str], actor, queue, capture) -> None:
    """Decide every item waiting for review (by finding status), then run what the decisions queued."""
    for finding in Finding.objects.filter(task=task).needing_review():
        with capture(execute=True):
            decision = decisions[finding.status]
            finding_resolve(
                finding=finding,
                actor=actor,
                decision=decision,
                version_seen=finding.version,
                note="A reason to pick it." if decision.startswith("pick_") else "",
            )
    drain(queue)
    task.refresh_from_db()


def test_it_turns_more_research_that_finds_nothing_into_a_gap_the_report_keeps(
    analyst, django_capture_on_commit_callbacks
):
    # given the demo question at the evidence gate, with a [证据不足] item
    call_command("demo_setup", stdout=open("/dev/null", "w"))
    with inline() as queue:
        task = task_submit(owner=analyst, question=DEMO_QUESTION)
        drain(queue)
        plan_approve(plan=task.plans.get(), actor=analyst)
        drain(queue)
        task.refresh_from_db()
        assert task.status == Status.AWAITING_EVIDENCE_REVIEW
        gap = Finding.objects.filter(task=task, status="insufficient").first()
        assert gap is not None

        # when an analyst asks for more research on it, and the follow-up round finds nothing new
        decide_all(
            task,
            {"conflict": "pick_supports", "insufficient": "more_research"},
            analyst,
            queue,
            django_capture_on_commit_callbacks,
        )

        # then the sub-question comes back as a [证据不足] item saying what was searched
        assert task.round == 2
        assert task.status == Status.AWAITING_EVIDENCE_REVIEW
        reopened = Finding.objects.get(task=task, round=2, subquestion=gap.subquestion)
        assert reopened.needs_review and reopened.statement.startswith(INSUFFICIENT_MARK)
        assert "follow-up round 2 searched “" in reopened.statement

        # when the analyst keeps it as a gap
        decide_all(task, {"insufficient": "gap"}, analyst, queue, django_capture_on_commit_callbacks)

    # then the report passes its checks, keeps the gap "to verify", and can be approved
    assert task.status == Status.AWAITING_REPORT_REVIEW, task.failure_reason
    draft = task.drafts.current()
    assert not draft.check_issues
    assert "follow-up round 2 searched" in draft.markdown
    report_approve(draft=draft, actor=analyst)
    task.refresh_from_db()
    assert task.status == Status.APPROVED


def test_it_resumes_a_task_left_running_with_no_job(researcher):
    # given a task that says "planning" although no job is queued or running for it (lost long ago)
    with inline():
        task = task_submit(owner=researcher, question="How tall is the Greywater Point lighthouse?")
    ResearchTask.objects.filter(pk=task.pk).update(
        status=Status.PLANNING, updated_at=timezone.now() - timedelta(minutes=5)
    )
    task.refresh_from_db()
    assert task.is_stalled
    assert task_detail(task.pk, researcher).waiting.what == "stalled"

    # when its owner resumes it
    task_resume(task=task, actor=researcher)

    # then a plan job is queued, and the task is no longer stalled
    job = StageJob.objects.get(task=task)
    assert job.kind == Job.PLAN and job.is_open
    task.refresh_from_db()
    assert not task.is_stalled
    assert task.events.filter(kind="decision", message__startswith="Resumed at").exists()


def test_it_refuses_to_resume_a_task_whose_stage_is_queued(researcher):
    task = task_submit(owner=researcher, question="How tall is the Greywater Point lighthouse?")
    ResearchTask.objects.filter(pk=task.pk).update(updated_at=timezone.now() - timedelta(minutes=5))
    task.refresh_from_db()

    with pytest.raises(ValidationError, match="failed or stalled"):
        task_resume(task=task, actor=researcher)
    assert StageJob.objects.filter(task=task).count() == 1
