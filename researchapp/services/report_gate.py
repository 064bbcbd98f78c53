"""The report gate: approve a checked draft, or send it back with comments."""

from __future__ import annotations

from django.contrib.auth.models import User
from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from researchapp.core.messages import Message, gettext_noop, message, plural_message, with_note
from researchapp.models import Gate, ReportDraft, ResearchTask
from researchapp.pipeline import runner
from researchapp.services.dispatch import Job, enqueue

Status = ResearchTask.Status


def locked_current_draft(draft: ReportDraft, version_seen: int | None) -> ReportDraft:
    """The draft, locked, if it is still the one the analyst saw (``version_seen``; None: the version
    of ``draft``), the latest, awaiting review; ``StaleState`` otherwise."""
    seen = draft.version if version_seen is None else version_seen
    draft = ReportDraft.objects.select_for_update().select_related("task").get(pk=draft.pk)
    draft.refuse_unless_seen(seen)
    if draft != draft.task.drafts.current():
        raise draft.stale()
    draft.task.refuse_unless_at(Gate.REPORT_REVIEW)
    return draft


def _draft_decide(draft: ReportDraft, to: str, *, actor: User | None, message: Message, **fields) -> None:
    """The analyst's decision on the locked draft, logged as the draft's move."""
    draft.decide_move(to, draft.version, actor=actor, stage=Gate.REPORT_REVIEW, message=message, **fields)


def report_approve(
    *, draft: ReportDraft, actor: User | None, note: str = "", version_seen: int | None = None
) -> ReportDraft:
    """Approve the draft only if every claim still checks against the ledger, right now."""
    with transaction.atomic():
        draft = locked_current_draft(draft, version_seen)
        issues = runner.recheck(draft)
        if issues:
            raise ValidationError(
                _("The draft fails its checks and cannot be approved: %(issues)s")
                % {"issues": "; ".join(i.message for i in issues[:5])}
            )
        said = with_note(message(gettext_noop("Report v%(version)s approved."), version=draft.version), note)
        approval = {"approved_by": actor, "approved_at": timezone.now()}
        _draft_decide(draft, ReportDraft.Status.APPROVED, actor=actor, message=said, **approval)
        said = message(gettext_noop("The task is done: its report is approved."))
        draft.task.transition(Status.APPROVED, actor=actor, stage=Gate.REPORT_REVIEW, message=said)
    return draft


def report_send_back(
    *,
    draft: ReportDraft,
    actor: User | None,
    comments: str,
    sentence_comments: list[dict[str, str]] | None = None,
    version_seen: int | None = None,
) -> ReportDraft:
    """Send the draft back with general ``comments`` and/or comments on its sentences
    (``{anchor, sentence, comment}``); the writer drafts the next version with them."""
    comments, sentence_comments = comments.strip(), list(sentence_comments or [])
    if not comments and not sentence_comments:
        raise ValidationError(
            _("Say what the writer should change: comment on a sentence or on the whole report.")
        )
    with transaction.atomic():
        draft = locked_current_draft(draft, version_seen)
        asked = comments or plural_message(
            gettext_noop("%(count)s comment on a sentence"),
            gettext_noop("%(count)s comments on sentences"),
            len(sentence_comments),
        )
        said = message(
            gettext_noop("Report v%(version)s sent back: %(asked)s"), version=draft.version, asked=asked
        )
        _draft_decide(
            draft,
            ReportDraft.Status.SENT_BACK,
            actor=actor,
            message=said,
            feedback=comments,
            sentence_comments=sentence_comments,
        )
        task = draft.task
        task.transition(
            Status.WRITING,
            actor=actor,
            stage=Gate.REPORT_REVIEW,
            message=message(gettext_noop("The writer is revising the report.")),
            write_pass=task.write_pass + 1,
        )
        enqueue(Job.WRITE, task.pk)
    return draft
