"""Receivers: notifications and fresh queue counts on the task's moves.

Notifications are hooked on the task's moves, not on the pipeline's code: every move writes an
``Event`` (``StatusMachine.transition``), and a move of a research task to a review gate, to
``failed``, to ``approved`` or back from the report gate to ``writing`` queues one email job once the
move commits.
"""

from __future__ import annotations

from django.db import transaction
from django.db.models.signals import post_save
from django.dispatch import receiver

from researchapp.models import Event
from reviews.notifications import email_kind
from reviews.selectors.queues import forget_queue_counts
from reviews.tasks import notify_task


@receiver(post_save, sender=Event, dispatch_uid="reviews-notify-on-move")
def notify_on_move(sender, instance: Event, created: bool, **kwargs) -> None:
    data = instance.data or {}
    if created and instance.kind in (Event.Kind.TRANSITION, Event.Kind.DECISION):
        # a task moved or an item was decided: the queues' counts changed
        transaction.on_commit(forget_queue_counts, robust=True)
    if not created or instance.kind != Event.Kind.TRANSITION or data.get("object") != "researchtask":
        return
    if email_kind(data):
        # robust: a broker that is down costs the email, never the move that was just stored
        transaction.on_commit(lambda: notify_task.delay(instance.pk), robust=True)
