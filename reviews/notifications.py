"""Emails about tasks: one to each analyst when a task waits at a review gate, one to the owner when
their task fails. Everyone can turn either off on the preferences page; each email is written in its
reader's language. Tasks that approve their own gates (``auto_approve``, the headless command) wait
for nobody and send nothing.
"""

from __future__ import annotations

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.mail import EmailMessage, mailers
from django.db.models import Q
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import translation

from researchapp.core.enums import FindingStatus
from researchapp.models import Event, Finding, ResearchTask
from researchapp.permissions import ANALYST
from reviews.models import UserPreference

Status = ResearchTask.Status
NOTIFIED_MOVES = frozenset({*ResearchTask.AWAITING, Status.FAILED})
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


def recipients_failed(task: ResearchTask):
    """The owner, if they have an email address and did not turn the "failed" email off."""
    owner, preference = task.owner, _preference(task.owner)
    wants = preference is None or preference.email_when_failed
    return [owner] if owner.is_active and owner.email and wants else []


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

    1. Load the move; nothing for a task that approves its own gates, or a move it no longer made.
    2. Pick the readers: analysts for a gate, the owner for a failure (each as they chose).
    3. Write each email in its reader's language and send them over one connection.
    """
    event = Event.objects.select_related("task__owner").filter(pk=event_id).first()
    if event is None or event.task.auto_approve:
        return 0
    task, moved_to = event.task, (event.data or {}).get("to")
    if moved_to == Status.FAILED:
        readers, template = recipients_failed(task), "email/task_failed.txt"
    elif moved_to in GATE_PAGES:
        readers, template = recipients_waiting(), "email/task_waiting.txt"
    else:
        return 0
    context = {
        "task": task,
        "gate": moved_to,
        "url": settings.SITE_URL + reverse(GATE_PAGES.get(moved_to, "task_detail"), args=[task.pk]),
        "preferences_url": settings.SITE_URL + reverse("preferences"),
        "reason": event.message,
        **_items_waiting(task, moved_to),
    }
    emails = []
    for reader in readers:
        with translation.override(_language(reader)):
            # the template's first paragraph is the subject
            subject, _blank, body = render_to_string(template, {**context, "reader": reader}).partition(
                "\n\n"
            )
            emails.append(EmailMessage(" ".join(subject.split()), body, to=[reader.email]))
    if not emails:
        return 0
    return mailers.default.send_messages(emails)


def _items_waiting(task: ResearchTask, moved_to: str) -> dict:
    if moved_to != Status.AWAITING_EVIDENCE_REVIEW:
        return {}
    pending = Finding.objects.filter(task=task).needing_review()
    return {
        "conflicts": pending.filter(status=FindingStatus.CONFLICT).count(),
        "gaps": pending.filter(status=FindingStatus.INSUFFICIENT).count(),
    }
