"""One pattern for every model with a status: a table of legal moves and a compare-and-set move.

``transition`` writes the new status, and whatever explains it, in one UPDATE that must touch
exactly one row (the row still has the status this object was loaded with), and records an
``Event`` in the same transaction. A lost race raises ``StaleState``; a move the table does not
allow raises ``IllegalTransition``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from django.db import models, transaction

from researchapp.models.event import Event


class IllegalTransition(Exception):
    """The status machine has no such move."""


class StaleState(Exception):
    """Someone acted first: what the caller saw is no longer what is stored.

    Raised when a compare-and-set touches no row: another worker moved the task, another analyst
    decided the item, the plan or draft on screen was replaced. The message says what happened.
    """


class StatusMachine(models.Model):
    """Abstract base: subclasses define ``status`` (with a ``Status`` enum) and ``TRANSITIONS``."""

    TRANSITIONS: ClassVar[Mapping[str, frozenset[str]]]

    class Meta:
        abstract = True

    def can_move_to(self, status: str) -> bool:
        return status in self.TRANSITIONS[self.status]

    def event_task_id(self) -> int:
        """The research task whose audit log records this object's moves."""
        raise NotImplementedError

    def describe(self) -> str:
        return f"{self._meta.verbose_name} {self.pk}"

    def transition(
        self,
        to: str,
        *,
        actor=None,
        stage: str = "",
        message: str = "",
        data: dict[str, Any] | None = None,
        **fields: Any,
    ) -> None:
        """Move to ``to`` if the move is legal and nobody moved this row first; log an event.

        ``fields`` are written in the same UPDATE (e.g. ``failure_reason``), so the new status
        and what explains it are never seen apart.
        """
        source = self.status
        if to not in self.TRANSITIONS[source]:
            raise IllegalTransition(f"{self.describe()}: {source} → {to} is not a legal move")
        fields = {**self.transition_fields(to), **fields}
        with transaction.atomic():
            moved = type(self).objects.filter(pk=self.pk, status=source).update(status=to, **fields)
            if moved != 1:
                raise StaleState(f"{self.describe()} is no longer {source}")
            Event.objects.create(
                task_id=self.event_task_id(),
                stage=stage or to,
                kind=Event.Kind.TRANSITION,
                message=message or f"{self.describe()}: {source} → {to}",
                data={
                    "object": self._meta.model_name,
                    "id": self.pk,
                    "from": source,
                    "to": to,
                    **(data or {}),
                },
                actor=actor,
            )
        self.status = to
        for name, value in fields.items():
            setattr(self, name, value)

    def transition_fields(self, to: str) -> dict[str, Any]:
        """Fields every move to ``to`` writes as well (timestamps)."""
        return {}
