"""One pattern for every model with a status, and one for every row a person decides.

``StatusMachine.transition`` writes the new status, and whatever explains it, in one UPDATE that
must touch exactly one row (the row still has the status this object was loaded with), and records
an ``Event`` in the same transaction. A lost race raises ``StaleState``; a move the table does not
allow raises ``IllegalTransition``.

``Decidable.decide`` is the same compare-and-set for a person's decision at a gate: the UPDATE is on
the version of the row the person saw, so of two analysts deciding one item exactly one wins and
the other gets ``StaleDecision``, whose message (one wording for every kind of item, translated)
names who acted first.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from django.contrib.auth.models import User
from django.db import models, transaction
from django.db.models import F
from django.utils.translation import gettext as _

from researchapp.core.messages import Message
from researchapp.models.event import Event


class IllegalTransition(Exception):
    """The status machine has no such move."""


def acted_first(who: str = "") -> str:
    """The one wording of "someone acted first", for every kind of item, in the active language."""
    return _("%(who)s changed or decided this item first; reload to see it as it is now.") % {
        "who": who or _("Someone")
    }


class StaleState(Exception):
    """Someone acted first: what the caller saw is no longer what is stored.

    Raised when a compare-and-set touches no row: another worker moved the task, another analyst
    decided the item, the plan or draft on screen was replaced. The message says what happened:
    ``acted_first`` unless the raiser knows more (the task left the gate, another analyst holds
    the item).
    """

    def __init__(self, message: str = "") -> None:
        super().__init__(message or acted_first())


class StaleDecision(StaleState):
    """A person's decision on an item that someone else changed or decided since they loaded it.

    ``who`` is the username of whoever decided the item last, if the row records one; the message
    is the family's one wording, naming them.
    """

    def __init__(self, who: str = "") -> None:
        self.who = who
        super().__init__(acted_first(who))


def _compare_and_set(row: models.Model, match: Mapping[str, Any], fields: Mapping[str, Any]) -> bool:
    """Write ``fields`` to ``row`` only if the stored row still matches ``match``: one UPDATE."""
    return type(row)._default_manager.filter(pk=row.pk, **match).update(**fields) == 1


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

    def legal_source(self, to: str) -> str:
        """The status this object was loaded with, if the table allows the move to ``to`` from it."""
        source = self.status
        if to not in self.TRANSITIONS[source]:
            raise IllegalTransition(f"{self.describe()}: {source} → {to} is not a legal move")
        return source

    def transition(
        self,
        to: str,
        *,
        actor: User | None = None,
        stage: str = "",
        message: str | Message = "",
        data: dict[str, Any] | None = None,
        **fields: Any,
    ) -> None:
        """Move to ``to`` if the move is legal and nobody moved this row first; log an event.

        ``fields`` are written in the same UPDATE (e.g. ``failure_reason``), so the new status
        and what explains it are never seen apart.
        """
        source = self.legal_source(to)
        fields = {"status": to, **self.transition_fields(to), **fields}
        with transaction.atomic():
            if not _compare_and_set(self, {"status": source}, fields):
                raise StaleState()
            self.record_move(source, to, actor=actor, stage=stage, message=message, data=data)
        for name, value in fields.items():
            setattr(self, name, value)

    def record_move(
        self,
        source: str,
        to: str,
        *,
        actor: User | None,
        stage: str = "",
        message: str | Message = "",
        data: dict[str, Any] | None = None,
    ) -> Event:
        """The audit event of one move of this object, on its task."""
        return Event.objects.create(
            task_id=self.event_task_id(),
            stage=stage or to,
            kind=Event.Kind.TRANSITION,
            message=message or f"{self.describe()}: {source} → {to}",
            data={"object": self._meta.model_name, "id": self.pk, "from": source, "to": to, **(data or {})},
            actor=actor,
        )

    def transition_fields(self, to: str) -> dict[str, Any]:
        """Fields every move to ``to`` writes as well (timestamps)."""
        return {}


class Decidable(models.Model):
    """Abstract base of the rows people decide at a gate: findings, hypotheses, plans, report drafts.

    Each has a ``version``. Where the version counts the row's decisions (``COUNTS_DECISIONS``: a
    finding, a hypothesis), every decision moves it on. Where it names the row among its task's
    versions (a plan, a report draft), it never changes. A row that is no longer ``UNDECIDED`` (a
    decided finding, an approved plan) takes no more decisions.
    """

    # The field naming who decided the row last: the analyst who comes second is told who it was.
    DECIDED_BY: ClassVar[str] = "decided_by"
    COUNTS_DECISIONS: ClassVar[bool] = True
    # What the row's fields are while it still takes decisions (empty: it always does).
    UNDECIDED: ClassVar[Mapping[str, Any]] = {}

    class Meta:
        abstract = True

    def takes_decisions(self) -> bool:
        """Whether this row, as loaded, can still be decided."""
        return all(getattr(self, name) == value for name, value in self.UNDECIDED.items())

    def refuse_unless_seen(self, version_seen: int) -> None:
        """``StaleDecision`` unless this row, as loaded, is the version the person decided on."""
        if self.version != version_seen or not self.takes_decisions():
            raise self.stale()

    def decide(
        self, version_seen: int, *, to: str = "", still: Mapping[str, Any] | None = None, **fields: Any
    ) -> str:
        """Write a person's decision if the row is still the version they saw; the status it left.

        1. Refuse a row that, as loaded, is not that version (``StaleDecision``), and a move to
           ``to`` that its status machine does not allow (``IllegalTransition``; ``to`` is for rows
           that are status machines too).
        2. One UPDATE on (pk, version seen, ``UNDECIDED``, status as loaded, ``still``) writes
           ``fields``, the new status and, where the version counts decisions, the next version. It
           touches one row, or someone acted first: ``StaleDecision`` names them.

        Events are the caller's: a status move is logged with ``record_move``, any other decision
        through ``Event.decision``.
        """
        self.refuse_unless_seen(version_seen)
        match = {"version": version_seen, **self.UNDECIDED, **(still or {})}
        source = ""
        if to:
            source = match["status"] = self.legal_source(to)
            fields = {"status": to, **self.transition_fields(to), **fields}
        if self.COUNTS_DECISIONS:
            fields["version"] = F("version") + 1
        if not _compare_and_set(self, match, fields):
            raise self.stale()
        self.refresh_from_db(fields=list(fields))
        return source

    def stale(self) -> StaleDecision:
        """The refusal of a decision on this row: who decided it last, as stored now."""
        current = type(self)._default_manager.select_related(self.DECIDED_BY).filter(pk=self.pk).first()
        decided_by = getattr(current, self.DECIDED_BY, None) if current else None
        return StaleDecision(decided_by.get_username() if decided_by else "")

    def decide_move(
        self,
        to: str,
        version_seen: int,
        *,
        actor: User | None,
        stage: str,
        message: str | Message,
        **fields: Any,
    ) -> None:
        """``decide`` for a row that is a status machine too (a plan, a report draft): the move, and
        its event on the task, in one transaction."""
        with transaction.atomic():
            source = self.decide(version_seen, to=to, **fields)
            self.record_move(source, to, actor=actor, stage=stage, message=message)
