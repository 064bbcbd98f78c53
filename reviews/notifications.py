"""Emails about tasks: one to each analyst when a task waits at a review gate; one to the owner when
their task fails, and when its report is approved or sent back to the writer. Everyone can turn each
kind off on the preferences page; each email is written in its reader's language. Tasks that approve
their own gates (``auto_approve``, the headless command) wait for nobody and send nothing, and nobody
is emailed about their own decision.
"""

from __future__ import annotations

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.mail import EmailMessage, mailers
from django.db.models import Q
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import translation
from django.utils.translation import gettext_lazy

from researchapp.core.enums import FindingStatus
from researchapp.models import Event, Finding, ReportDraft, ResearchTask
from researchapp.permissions import ANALYST
from reviews.models import UserPreference

Status = ResearchTask.Status
GATE_PAGES = {
    Status.AWAITING_PLAN_REVIEW: "plan_review",
    Status.AWAITING_EVIDENCE_REVIEW: "evidence_review",
    Status.AWAITING_REPORT_REVIEW: "report_view",
}


def recipients_waiting():
    """Analysts with an email address who did not turn the "waits for review" email off."""
    analysts = get_user_model().objects.filter(Q(groups__name=ANALYST) | Q(is_superuser=True), is_active=True)
    analysts = analysts.exclude(email="").exclude(preference__email_when_waiting=False)
    return list(analysts.select_related("preference").distinct().order_by("pk"))


def recipients_owner(task: ResearchTask, wants: str):
    """The owner, if they have an email address and did not turn this kind of email (the preference
    field ``wants``) off."""
    owner, preference = task.owner, _preference(task.owner)
    wanted = preference is None or getattr(preference, wants)
    return [owner] if owner.is_active and owner.email and wanted else []


def email_kind(move: dict) -> str:
    """The email a task's move calls for ("" for none), from its event's data (``from``, ``to``)."""
    moved_to = move.get("to")
    if moved_to == Status.FAILED:
        return "failed"
    if moved_to in GATE_PAGES:
        return "waiting"
    if moved_to == Status.APPROVED:
        return "report_approved"
    if moved_to == Status.WRITING and move.get("from") == Status.AWAITING_REPORT_REVIEW:
        return "report_sent_back"
    return ""


def _preference(user) -> UserPreference | None:
    try:
        return user.preference
    except UserPreference.DoesNotExist:
        return None


def _language(user) -> str:
    preference = _preference(user)
    return (preference.language if preference else "") or settings.LANGUAGE_CODE


def notify_move(event_id: int) -> int:
    """Send the emails one move of a task calls for; returns how many were sent.

    1. Load the move; nothing for a task that approves its own gates, or a move that calls for none.
    2. Pick the readers: analysts for a gate, the owner for a failure or a decision on the report
       (each as they chose; never the person whose decision it was).
    3. Write each email in its reader's language and send them over one connection.
    """
    event = Event.objects.select_related("task__owner", "actor").filter(pk=event_id).first()
    if event is None or event.task.auto_approve:
        return 0
    task, kind = event.task, email_kind(event.data or {})
    if not kind:
        return 0
    readers = recipients_waiting() if kind == "waiting" else recipients_owner(task, OWNER_WANTS[kind])
    readers = [reader for reader in readers if reader.pk != event.actor_id]
    moved_to = event.data["to"]
    context = {
        "task": task,
        "gate": moved_to,
        "url": settings.SITE_URL + reverse(PAGES.get(kind) or GATE_PAGES[moved_to], args=[task.pk]),
        "preferences_url": settings.SITE_URL + reverse("preferences"),
        "event": event,  # its text is read in each reader's language (``Event.text``)
        **_items_waiting(task, moved_to),
        **_report_decided(task, event, kind),
    }
    emails = []
    for reader in readers:
        with translation.override(_language(reader)):
            # the template's first paragraph is the subject
            text = render_to_string(f"email/{TEMPLATES[kind]}", {**context, "reader": reader})
            subject, _blank, body = text.partition("\n\n")
            emails.append(EmailMessage(" ".join(subject.split()), body, to=[reader.email]))
    if not emails:
        return 0
    return mailers.default.send_messages(emails)


# Per kind of email: its template, the page it links to (a gate's own page for "waiting"), and the
# owner's preference that turns it off.
TEMPLATES = {
    "failed": "task_failed.txt",
    "waiting": "task_waiting.txt",
    "report_approved": "report_approved.txt",
    "report_sent_back": "report_sent_back.txt",
}
PAGES = {"failed": "task_detail", "report_approved": "report_view", "report_sent_back": "report_view"}
OWNER_WANTS = {
    "failed": "email_when_failed",
    "report_approved": "email_when_report_decided",
    "report_sent_back": "email_when_report_decided",
}


def _report_decided(task: ResearchTask, event: Event, kind: str) -> dict:
    """The draft a decision on the report was about, and who decided."""
    if kind not in ("report_approved", "report_sent_back"):
        return {}
    status = ReportDraft.Status.APPROVED if kind == "report_approved" else ReportDraft.Status.SENT_BACK
    draft = task.drafts.filter(status=status).order_by("-version").first()
    # lazy: it is put in words in each reader's language, as the email is
    who = event.actor.get_username() if event.actor else gettext_lazy("An analyst")
    return {"draft": draft, "decided_by": who}


def _items_waiting(task: ResearchTask, moved_to: str) -> dict:
    if moved_to != Status.AWAITING_EVIDENCE_REVIEW:
        return {}
    pending = Finding.objects.filter(task=task).needing_review()
    return {
        "conflicts": pending.filter(status=FindingStatus.CONFLICT).count(),
        "gaps": pending.filter(status=FindingStatus.INSUFFICIENT).count(),
    }
