"""The report gate: approve a checked draft, or send it back with comments."""

from __future__ import annotations

from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import timezone

from researchapp.models import ReportDraft, ResearchTask
from researchapp.pipeline import runner
from researchapp.services.queue import enqueue

Status = ResearchTask.Status


def current_draft(task: ResearchTask) -> ReportDraft | None:
    return task.drafts.order_by("-version").first()


def report_approve(*, draft: ReportDraft, actor, note: str = "") -> ReportDraft:
    """Approve the draft only if every claim still checks against the ledger, right now."""
    with transaction.atomic():
        draft = ReportDraft.objects.select_for_update().select_related("task").get(pk=draft.pk)
        task = draft.task
        if task.status != Status.AWAITING_REPORT_REVIEW or draft != current_draft(task):
            raise ValidationError("This draft is not the one awaiting review.")
        issues = runner.recheck(draft)
        if issues:
            raise ValidationError(
                "The draft fails its checks and cannot be approved: "
                + "; ".join(i.message for i in issues[:5])
            )
        draft.status, draft.approved_by, draft.approved_at = (
            ReportDraft.Status.APPROVED,
            actor,
            timezone.now(),
        )
        draft.save(update_fields=["status", "approved_by", "approved_at"])
        task.transition(
            Status.APPROVED,
            actor=actor,
            stage="awaiting_report_review",
            message=f"Report v{draft.version} approved{f' ({note})' if note else ''}.",
            data={"draft": draft.pk},
        )
    return draft


def report_send_back(*, draft: ReportDraft, actor, comments: str) -> ReportDraft:
    comments = comments.strip()
    if not comments:
        raise ValidationError("Say what the writer should change.")
    with transaction.atomic():
        draft = ReportDraft.objects.select_for_update().select_related("task").get(pk=draft.pk)
        task = draft.task
        if task.status != Status.AWAITING_REPORT_REVIEW or draft != current_draft(task):
            raise ValidationError("This draft is not the one awaiting review.")
        draft.status, draft.feedback = ReportDraft.Status.SENT_BACK, comments
        draft.save(update_fields=["status", "feedback"])
        task.transition(
            Status.WRITING,
            actor=actor,
            stage="awaiting_report_review",
            message=f"Report v{draft.version} sent back: {comments}",
            write_pass=task.write_pass + 1,
        )
        enqueue("write_task", task.pk)
    return draft
