"""Reads for views.

Every selector returns what one page needs in a number of queries that does not grow with the
number of rows: counts are subqueries, related rows are joined or prefetched, and the large
snapshot text of a source is deferred wherever only its title and URL are shown.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from django.conf import settings
from django.core.paginator import Page, Paginator
from django.db.models import Count, IntegerField, Max, OuterRef, QuerySet, Subquery, Window
from django.db.models.functions import Coalesce
from django.http import Http404
from django.shortcuts import get_object_or_404
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from researchapp.demo import DEMO_QUESTION
from researchapp.message_text import message_text
from researchapp.models import (
    Corpus,
    Event,
    Evidence,
    Finding,
    Plan,
    ReportDraft,
    ResearchTask,
    Source,
    SubQuestion,
)
from researchapp.models.job import DATABASE_BUSY

CONTEXT_CHARS = 600
FEED_LENGTH = 50
TASK_LIST_LENGTH = 25  # rows per page: rendering, not SQL, is what a long page costs (25 cards at 390 px)


def count_of(queryset: QuerySet) -> Coalesce:
    """A correlated COUNT over ``queryset`` (filtered on ``task=OuterRef("pk")``) as an annotation.

    Subqueries instead of ``Count`` over joins: several counts over different relations would
    multiply each other's rows.
    """
    counted = queryset.order_by().values("task").annotate(n=Count("pk")).values("n")
    return Coalesce(Subquery(counted, output_field=IntegerField()), 0)


def with_counts(tasks: QuerySet) -> QuerySet:
    task = OuterRef("pk")
    return tasks.annotate(
        n_sources=count_of(Source.objects.filter(task=task)),
        n_independent=count_of(Source.objects.filter(task=task, is_primary=True)),
        n_findings=count_of(Finding.objects.filter(task=task)),
        n_needing_review=count_of(Finding.objects.filter(task=task).needing_review()),
        n_warnings=count_of(Event.objects.filter(task=task, kind=Event.Kind.WARNING)),
        plan_version=Subquery(
            Plan.objects.filter(task=task).order_by("-version").values("version")[:1],
            output_field=IntegerField(),
        ),
        draft_version=Subquery(
            ReportDraft.objects.filter(task=task).order_by("-version").values("version")[:1],
            output_field=IntegerField(),
        ),
    )


# --- tasks ----------------------------------------------------------------------------------------


def visible_task(task_id: int, user) -> ResearchTask:
    """The task if ``user`` may see it; 404 otherwise, so nobody learns which ids exist. It comes with
    how many events it has and its last one's id (``web.fragment_key``: every write a page shows
    writes an event)."""
    task = OuterRef("pk")
    events = Event.objects.filter(task=task).order_by().values("task")
    tasks = ResearchTask.objects.visible_to(user).select_related("owner")
    tasks = tasks.annotate(
        n_events=count_of(Event.objects.filter(task=task)),
        last_event_id=Subquery(events.annotate(last=Max("id")).values("last"), output_field=IntegerField()),
    )
    return get_object_or_404(tasks, pk=task_id)


def task_list_for(user, page: str | int | None = 1) -> Page:
    """Analysts see every task, researchers their own; newest first, with the two counts the list
    shows (sources, items to review), a page at a time."""
    task = OuterRef("pk")
    tasks = (
        ResearchTask.objects.visible_to(user)
        .select_related("owner")
        .annotate(
            n_sources=count_of(Source.objects.filter(task=task)),
            n_needing_review=count_of(Finding.objects.filter(task=task).needing_review()),
        )
    )
    return counted_page(tasks, TASK_LIST_LENGTH, page)  # its rows read: the view keys its cache on them


def counted_page(rows: QuerySet, per_page: int, number: str | int | None) -> Page:
    """``Paginator(rows, per_page).get_page(number)`` in one query instead of two: each row of the page
    carries the count of all rows (a window function, counted before LIMIT). A page past the last, which
    reads no row, is left to ``get_page``: counted, and the last page read. The page's rows are a list."""
    paginator = Paginator(rows, per_page)
    try:
        wanted = max(1, int(number or 1))
    except (TypeError, ValueError):
        wanted = 1
    start = (wanted - 1) * per_page
    read = list(rows.annotate(rows_in_all=Window(Count("pk")))[start : start + per_page])
    if not read:
        page = paginator.get_page(number)
        page.object_list = list(page.object_list)
        return page
    paginator.count = read[0].rows_in_all
    page = paginator.page(wanted)
    page.object_list = read
    return page


WORKER_COMMAND = "celery -A researchapp worker --loglevel=INFO"


@dataclass(frozen=True)
class Waiting:
    """What a running task waits for, in plain words for its page.

    ``what``: "broker" (the job is kept in the outbox until the broker takes it), "database" (a stage
    is retried after a busy database), "retry" (after a provider's transient error), "worker"
    (queued, no worker has taken it), "running" (a worker is on it), or "stalled" (nothing is
    queued or running: resume it).
    """

    what: str
    since: datetime
    job: str = ""  # which stage job, as the page names it ("collection for Sub-question 2")
    detail: str = ""  # the broker's or the database's error, or the last heartbeat
    worker_hint: bool = False  # waited long enough to ask whether a worker is running
    command: str = WORKER_COMMAND


def waiting_for(task: ResearchTask) -> Waiting | None:
    if not task.is_running:
        return None
    jobs = list(task.jobs.open().order_by("id"))
    if not jobs:
        return Waiting("stalled", task.updated_at) if task.is_stalled else None
    unsent = [job for job in jobs if job.sent_at is None and job.send_error]
    if unsent:
        return Waiting("broker", unsent[0].created_at, unsent[0].describe(), unsent[0].send_error)
    retrying = [job for job in jobs if job.started_at is None and job.retry_reason]
    if retrying:
        job = retrying[0]
        what = "database" if job.retry_reason.startswith(DATABASE_BUSY) else "retry"
        return Waiting(what, job.sent_at or job.created_at, job.describe(), job.retry_reason)
    running = [job for job in jobs if job.started_at is not None]
    if running:
        beat = timezone.localtime(running[0].heartbeat_at).strftime("%H:%M:%S")
        heartbeat = _("last heartbeat %(time)s") % {"time": beat}
        return Waiting("running", running[0].started_at, running[0].describe(), heartbeat)
    queued = jobs[0].sent_at or jobs[0].created_at
    hint_after = timedelta(seconds=settings.RESEARCH["WORKER_WAIT_HINT_SECONDS"])
    return Waiting("worker", queued, jobs[0].describe(), worker_hint=timezone.now() - queued > hint_after)


@dataclass(frozen=True)
class TaskDetail:
    task: ResearchTask
    plan: Plan | None
    draft: ReportDraft | None
    events: list[Event]
    warnings: list[WarningGroup]
    waiting: Waiting | None = None
    collecting: list[SubQuestion] = field(default_factory=list)  # the approved plan's, with progress

    @property
    def can_resume(self) -> bool:
        return self.task.status == ResearchTask.Status.FAILED or (
            self.waiting is not None and self.waiting.what == "stalled"
        )

    @property
    def running(self) -> bool:
        return self.task.is_running

    @property
    def steps(self) -> list[Step]:
        """The pipeline as a row of steps: done, current (or failed) and still to come."""
        status = self.task.status
        if status == ResearchTask.Status.FAILED:
            status, current_state = self.task.failed_stage or ResearchTask.Status.PLANNING, "failed"
        else:
            current_state = "current"
        names = [value for value, _label in PIPELINE]
        at = names.index(status) if status in names else -1
        steps = []
        for i, (value, label) in enumerate(PIPELINE):
            if at < 0:
                state = "todo"
            elif i < at or (i == at and value == ResearchTask.Status.APPROVED):
                state = "done"
            else:
                state = current_state if i == at else "todo"
            steps.append(Step(label=label, state=state))
        return steps

    @property
    def can_cancel(self) -> bool:
        return self.task.can_move_to(ResearchTask.Status.CANCELLED)


@dataclass(frozen=True)
class Step:
    label: str  # translated when shown
    state: str  # "done", "current", "failed" or "todo"


# The row of steps on the task page, in the words of a step (lower case, unlike a status heading).
PIPELINE = [
    (ResearchTask.Status.SUBMITTED, gettext_lazy("submitted")),
    (ResearchTask.Status.PLANNING, gettext_lazy("planning")),
    (ResearchTask.Status.AWAITING_PLAN_REVIEW, gettext_lazy("plan review")),
    (ResearchTask.Status.COLLECTING, gettext_lazy("collecting")),
    (ResearchTask.Status.ANALYSING, gettext_lazy("analysing")),
    (ResearchTask.Status.AWAITING_EVIDENCE_REVIEW, gettext_lazy("evidence review")),
    (ResearchTask.Status.WRITING, gettext_lazy("writing")),
    (ResearchTask.Status.AWAITING_REPORT_REVIEW, gettext_lazy("report review")),
    (ResearchTask.Status.APPROVED, gettext_lazy("approved")),
]


def task_detail(task_id: int, user) -> TaskDetail:
    tasks = ResearchTask.objects.visible_to(user).select_related("owner")
    task = get_object_or_404(with_counts(tasks), pk=task_id)
    plan = task.plans.select_related("decided_by").order_by("-version").first()
    collecting = (
        list(plan.subquestions.order_by("order", "id").only("id", "plan_id", "order", "text", "progress"))
        if plan and plan.status == Plan.Status.APPROVED and task.status == ResearchTask.Status.COLLECTING
        else []
    )
    return TaskDetail(
        task=task,
        plan=plan,
        draft=task.drafts.select_related("approved_by").order_by("-version").first(),
        events=events_for(task),
        warnings=warning_groups(task),
        waiting=waiting_for(task),
        collecting=collecting,
    )


def live_claims(task: ResearchTask) -> list:
    """Who holds which of the task's review items (its plan, its report, its findings) and until when:
    only a task at a gate has any."""
    if not task.is_awaiting_review:
        return []
    claims = task.claims.filter(expires_at__gt=timezone.now()).select_related("analyst")
    return list(claims.order_by("finding_id", "id"))


WARNINGS_GROUPED = 500  # the latest warnings read to group; the heading counts them all
_URL = re.compile(r"https?://\S+?(?=[.,;:]?(?:\s|$))")


@dataclass(frozen=True)
class WarningGroup:
    """Warnings of one cause: the same stage, code and message once URLs are taken out."""

    stage: str
    code: str
    message: str  # the cause, with "…" where each warning had its own URL
    count: int
    urls: tuple[str, ...]  # a few of the pages it hit


def warning_groups(task: ResearchTask, *, examples: int = 3) -> list[WarningGroup]:
    """The task's warnings grouped by cause, the most frequent first (the same five failures seen
    for each sub-question are one line with a count, not five lines per sub-question)."""
    rows = (
        Event.objects.filter(task=task, kind=Event.Kind.WARNING)
        .order_by("-id")
        .values_list("stage", "data", "message")[:WARNINGS_GROUPED]
    )
    groups: dict[tuple[str, str, str], list[str]] = {}
    for stage, data, stored in rows:
        data = data or {}
        cause = _URL.sub("…", message_text(data.get("said"), stored))
        urls = groups.setdefault((stage, str(data.get("code") or ""), cause), [])
        urls.append(str(data.get("url") or ""))
    ranked = sorted(groups.items(), key=lambda item: -len(item[1]))
    return [
        WarningGroup(stage, code, cause, len(urls), tuple(dict.fromkeys(u for u in urls if u))[:examples])
        for (stage, code, cause), urls in ranked[:FEED_LENGTH]
    ]


def events_for(task: ResearchTask, after_id: int | None = None, limit: int = FEED_LENGTH) -> list[Event]:
    """The progress feed in order: the events after ``after_id``, or the last ``limit`` events."""
    events = Event.objects.filter(task=task).select_related("actor")
    if after_id is not None:
        return list(events.filter(id__gt=after_id).order_by("id")[:limit])
    return list(reversed(events.order_by("-id")[:limit]))


def approved_report(task: ResearchTask) -> ReportDraft | None:
    return (
        task.drafts.filter(status=ReportDraft.Status.APPROVED)
        .select_related("task", "approved_by")
        .order_by("-version")
        .first()
    )


# --- evidence in context --------------------------------------------------------------------------


@dataclass(frozen=True)
class EvidenceContext:
    evidence: Evidence
    source: Source
    before: str
    quote: str
    after: str
    clipped_before: bool
    clipped_after: bool
    verified: bool


def evidence_context(evidence_id: int, user, chars: int = CONTEXT_CHARS) -> EvidenceContext:
    """The quote inside its stored snapshot, with about ``chars`` characters either side."""
    visible = ResearchTask.objects.visible_to(user).values("pk")
    evidence = get_object_or_404(
        Evidence.objects.select_related("source", "task", "subquestion", "added_by"),
        pk=evidence_id,
        task__in=visible,
    )
    source = evidence.source
    text = source.text
    if evidence.end > len(text):
        raise Http404(_("The quote lies outside its source snapshot."))
    start = max(evidence.start - chars, 0)
    end = min(evidence.end + chars, len(text))
    return EvidenceContext(
        evidence=evidence,
        source=source,
        before=text[start : evidence.start],
        quote=text[evidence.start : evidence.end],
        after=text[evidence.end : end],
        clipped_before=start > 0,
        clipped_after=end < len(text),
        verified=evidence.verify(),
    )


# --- review queue ---------------------------------------------------------------------------------


def demo_question() -> str:
    """The demo question, while the corpus browser tasks search is the invented demo corpus."""
    if settings.RESEARCH["SEARCH_PROVIDER"] != "local":
        return ""
    invented = Corpus.objects.filter(name=settings.RESEARCH["DEFAULT_CORPUS"], invented=True).exists()
    return DEMO_QUESTION if invented else ""
