from __future__ import annotations

from typing import Any

from django.conf import settings
from django.contrib.auth.models import User
from django.db import models

from researchapp.core.messages import Message, english, is_message
from researchapp.message_text import message_text


class EventManager(models.Manager):
    def create(self, **fields: Any) -> Event:
        """An event whose ``message`` may be a stored message (``core.messages``): its English is the
        ``message`` column, as before, and the message itself is kept in ``data["said"]`` to be shown
        in each reader's language."""
        said = fields.get("message")
        if is_message(said):
            fields["message"] = english(said)
            fields["data"] = {**(fields.get("data") or {}), "said": said}
        return super().create(**fields)


class Event(models.Model):
    """The audit log, the progress feed and the record of what each stage did."""

    class Kind(models.TextChoices):
        TRANSITION = "transition"
        PROGRESS = "progress"
        WARNING = "warning"
        ERROR = "error"
        DECISION = "decision"
        EXPORT = "export"  # someone downloaded the approved report

    task = models.ForeignKey("researchapp.ResearchTask", on_delete=models.CASCADE, related_name="events")
    stage = models.CharField(max_length=32, blank=True)
    kind = models.CharField(max_length=16, choices=Kind.choices)
    message = models.TextField()
    data = models.JSONField(default=dict, blank=True)
    actor = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL)
    at = models.DateTimeField(auto_now_add=True, db_index=True)

    objects = EventManager()

    class Meta:
        ordering = ["id"]
        indexes = [models.Index(fields=["task", "id"]), models.Index(fields=["task", "kind"])]

    def __str__(self) -> str:
        return f"[{self.stage}/{self.kind}] {self.message}"

    @property
    def text(self) -> str:
        """The message in the active language (a row stored before messages were kept: its English)."""
        return message_text((self.data or {}).get("said"), self.message)

    @classmethod
    def decision(
        cls, *, task_id: int, stage: str, actor: User | None, message: str | Message, data: dict[str, Any]
    ) -> Event:
        """The one writer of a person's decision in the audit log (a status move it makes is logged
        by its status machine); the review app's ``ReviewDecision`` links the events it wrote."""
        return cls.objects.create(
            task_id=task_id, stage=stage, kind=cls.Kind.DECISION, actor=actor, message=message, data=data
        )


class LLMCall(models.Model):
    task = models.ForeignKey("researchapp.ResearchTask", on_delete=models.CASCADE, related_name="llm_calls")
    stage = models.CharField(max_length=32)
    model = models.CharField(max_length=200)
    tokens_in = models.PositiveIntegerField(default=0)
    tokens_out = models.PositiveIntegerField(default=0)
    latency_ms = models.PositiveIntegerField(default=0)
    ok = models.BooleanField(default=True)
    error = models.TextField(blank=True)
    at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["id"]

    def __str__(self) -> str:
        return f"{self.stage} call to {self.model}: {self.tokens_in}+{self.tokens_out} tokens"
