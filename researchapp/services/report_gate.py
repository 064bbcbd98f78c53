"""The report gate: approve a checked draft, or send it back with comments."""

from __future__ import annotations

from django.core.exceptions import ValidationError
from django.db import transaction

from researchapp.models import Gate, ReportDraft, ResearchTask, StaleState
from researchapp.pipeline import runner
from researchapp.services.dispatch import Job, enqueue

Status = ResearchTask.Status


def locked_current_draft(draft: ReportDraft) -> ReportDraft:
    """The draft, locked, if it is still the one awaiting review; ``StaleState`` otherwise."""
    draft = ReportDraft.objects.select_for_update().select_related("task").get(pk=draft.pk)
    task = draft.task
    if task.status != Status.AWAITING_REPORT_REVIEW or draft != task.drafts.current():
        raise StaleState(f"Report v{draft.version} is no longer the draft awaiting review.")
    return draft


def report_approve(*, draft: ReportDraft, actor, note: str = "") -> ReportDraft:
    """Approve the draft only if every claim still checks against the ledger, right now."""
    with transaction.atomic():
        draft = locked_current_draft(draft)
        issues = runner.recheck(draft)
        if issues:
            raise ValidationError(
                "The draft fails its checks and cannot be approved: "
                + "; ".join(i.message for i in issues[:5])
            )
        message = f"Report v{draft.version} approved{f' ({note})' if note else ''}."
        draft.decide(ReportDraft.Status.APPROVED, actor=actor, message=message)
        message = "The task is done: its report is approved."
        draft.task.transition(Status.APPROVED, actor=actor, stage=Gate.REPORT_REVIEW, message=message)
    return draft


def report_send_back(
    *, draft: ReportDraft, actor, comments: str, sentence_comments: list[dict[str, str]] | None = None
) -> ReportDraft:
    """Send the draft back with general ``comments`` and/or comments on its sentences
    (``{anchor, sentence, comment}``); the writer drafts the next version with them."""
    comments, sentence_comments = comments.strip(), list(sentence_comments or [])
    if not comments and not sentence_comments:
        raise ValidationError(
            "Say what the writer should change: comment on a sentence or on the whole report."
        )
    with transaction.atomic():
        draft = locked_current_draft(draft)
        said = comments or f"{len(sentence_comments)} comment(s) on sentences"
        message = f"Report v{draft.version} sent back: {said}"
        draft.decide(
            ReportDraft.Status.SENT_BACK,
            actor=actor,
            message=message,
            feedback=comments,
            sentence_comments=sentence_comments,
        )
        task, message = draft.task, "The writer is revising the report."
        task.transition(
            Status.WRITING,
            actor=actor,
            stage=Gate.REPORT_REVIEW,
            message=message,
            write_pass=task.write_pass + 1,
        )
        enqueue(Job.WRITE, task.pk)
    return draft
