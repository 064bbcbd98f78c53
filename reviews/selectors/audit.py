"""The audit trail: one line per act, per task and across tasks.

A decision is one line (who, when, what, what it changed, the note), although it wrote several rows:
its ``ReviewDecision`` and the events the research services wrote for it (the plan's and the task's
moves, a plan edit with its diff), which the decision links and which are therefore not shown again.
Submissions, report downloads, the system's moves of the task and its errors are lines of their own.
Every read here is a fixed number of queries.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from django.db.models import Prefetch, Q, QuerySet
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from researchapp.labels import status_label
from researchapp.models import Event, ResearchTask
from reviews.models import ReviewDecision

AUDIT_LENGTH = 500  # lines of one task
DESK_AUDIT_LENGTH = 200  # lines across tasks on the page
CSV_LENGTH = 10_000  # lines across tasks in the download
Status = ResearchTask.Status


@dataclass(frozen=True)
class AuditLine:
    at: datetime
    task_id: int
    who: str
    kind: str  # "submission", "decision", "status", "error" or "export"
    what: str
    change: str = ""
    note: str = ""
    diff: tuple[str, ...] = ()


# (object type, decision) → what the line says; %(n)s is the plan's or draft's version, or the item's id
DECISION_WORDS = {
    ("plan", "edit"): gettext_lazy("Edited plan v%(n)s"),
    ("plan", "approve"): gettext_lazy("Approved plan v%(n)s"),
    ("plan", "reject"): gettext_lazy("Rejected plan v%(n)s"),
    ("report", "approve"): gettext_lazy("Approved report v%(n)s"),
    ("report", "send_back"): gettext_lazy("Sent report v%(n)s back to the writer"),
    ("finding", "pick_supports"): gettext_lazy("Item %(n)s: picked side A (the sources that say so)"),
    ("finding", "pick_contradicts"): gettext_lazy("Item %(n)s: picked side B (the sources that disagree)"),
    ("finding", "disputed"): gettext_lazy("Item %(n)s: kept as disputed"),
    ("finding", "gap"): gettext_lazy("Item %(n)s: kept as a gap"),
    ("finding", "drop"): gettext_lazy("Item %(n)s: dropped"),
    ("finding", "more_research"): gettext_lazy("Item %(n)s: asked for more research"),
    ("finding", "add_evidence"): gettext_lazy("Item %(n)s: evidence added by hand"),
    ("hypothesis", "accept"): gettext_lazy("Hypothesis %(n)s: accepted"),
    ("hypothesis", "reject"): gettext_lazy("Hypothesis %(n)s: rejected"),
    ("hypothesis", "keep_open"): gettext_lazy("Hypothesis %(n)s: kept open"),
}
ITEM_TYPES = ("finding", "hypothesis")  # numbered by their id; plans and reports by their version


def _who(user, default: str) -> str:
    return user.get_username() if user is not None else default


def _move(event: Event) -> str:
    """ "Plan review → Collecting" for an event that moved the task; "" otherwise."""
    data = event.data or {}
    if event.kind != Event.Kind.TRANSITION or data.get("object") != "researchtask":
        return ""
    return f"{status_label(data.get('from', ''))} → {status_label(data.get('to', ''))}"


def _decision_line(decision: ReviewDecision) -> AuditLine:
    n = decision.object_id if decision.object_type in ITEM_TYPES else decision.version_seen
    words = DECISION_WORDS.get((decision.object_type, decision.decision))
    what = words % {"n": n} if words else f"{decision.decision} {decision.object_type} {decision.object_id}"
    events = list(decision.events.all())
    return AuditLine(
        at=decision.at,
        task_id=decision.task_id,
        who=_who(decision.reviewer, "—"),
        kind="decision",
        what=what,
        change="; ".join(move for move in map(_move, events) if move),
        note=decision.note,
        diff=tuple(line for event in events for line in (event.data or {}).get("diff", [])),
    )


def _event_line(event: Event) -> AuditLine:
    data, who = event.data or {}, _who(event.actor, _("system"))
    line = {"at": event.at, "task_id": event.task_id, "who": who}
    if event.kind == Event.Kind.PROGRESS:
        return AuditLine(**line, kind="submission", what=_("Submitted the question"), note=event.text)
    if event.kind == Event.Kind.EXPORT:
        what = _("Downloaded report v%(n)s (%(format)s)") % {
            "n": data.get("version", "?"),
            "format": {"markdown": "Markdown", "pdf": "PDF", "json": "JSON"}.get(
                data.get("format"), data.get("format", "")
            ),
        }
        return AuditLine(**line, kind="export", what=what)
    move = _move(event)
    if move:
        failed = data.get("to") == Status.FAILED
        return AuditLine(**line, kind="error" if failed else "status", what=move, note=event.text)
    return AuditLine(**line, kind="error" if event.kind == Event.Kind.ERROR else "status", what=event.text)


def _decisions() -> QuerySet:
    echoes = Prefetch("events", queryset=Event.objects.only("id", "kind", "data"))
    return ReviewDecision.objects.select_related("reviewer").prefetch_related(echoes)


def _events_not_of_a_decision() -> QuerySet:
    """The audit's events: moves, errors, decisions no ReviewDecision links, submissions and downloads."""
    kinds = Q(kind__in=[Event.Kind.TRANSITION, Event.Kind.DECISION, Event.Kind.ERROR, Event.Kind.EXPORT])
    submitted = Q(kind=Event.Kind.PROGRESS, stage=Status.SUBMITTED)
    return Event.objects.filter(kinds | submitted, review_decisions__isnull=True).select_related("actor")


def _merged(decisions, events, limit: int) -> list[AuditLine]:
    lines = [_decision_line(d) for d in decisions] + [_event_line(e) for e in events]
    return sorted(lines, key=lambda line: line.at)[-limit:]


def task_audit(task: ResearchTask, limit: int = AUDIT_LENGTH) -> list[AuditLine]:
    """Everything that happened to ``task`` that someone may have to account for, oldest first."""
    decisions = _decisions().filter(task=task).order_by("-at", "-id")[:limit]
    events = _events_not_of_a_decision().filter(task=task).order_by("-id")[:limit]
    return _merged(decisions, events, limit)


def desk_audit(
    *, who: str = "", task_id: int | None = None, limit: int = DESK_AUDIT_LENGTH
) -> list[AuditLine]:
    """What people did across every task (decisions, submissions, downloads, cancels), newest first."""
    decisions = _decisions()
    events = _events_not_of_a_decision().filter(actor__isnull=False)
    if who:
        decisions = decisions.filter(reviewer__username__iexact=who)
        events = events.filter(actor__username__iexact=who)
    if task_id is not None:
        decisions, events = decisions.filter(task_id=task_id), events.filter(task_id=task_id)
    lines = _merged(decisions.order_by("-at", "-id")[:limit], events.order_by("-id")[:limit], limit)
    return list(reversed(lines))
