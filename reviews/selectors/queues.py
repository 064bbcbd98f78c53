"""Reads for the review queues: one queue per kind of item, with filters, claims and counts.

The four queues are the plans and the reports that wait for an analyst (one item per task) and the
conflicts and ``[证据不足]`` items of the tasks at evidence review (one item per finding). A page of a
queue costs three queries whatever the number of rows: the counts of every queue, the number of
matching items, and one page of them with their claims joined in as subqueries. The counts are cached
(``queue_counts_for``) and forgotten whenever a task moves or an item is decided (``reviews.signals``).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from datetime import datetime, timedelta

from django.core.cache import cache
from django.core.paginator import Page
from django.db.models import Count, IntegerField, OuterRef, Q, QuerySet, Subquery
from django.http import HttpRequest
from django.urls import reverse
from django.utils import timezone
from django.utils.text import Truncator
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from researchapp.core.enums import INSUFFICIENT_MARK, FindingStatus
from researchapp.models import Finding, Plan, ReportDraft, ResearchTask
from researchapp.selectors import counted_page
from reviews.models import Claim, ReviewDecision

Status = ResearchTask.Status
ObjectType = ReviewDecision.ObjectType
QUEUE_LENGTH = 25  # items per page


@dataclass(frozen=True)
class QueueKind:
    name: str  # in URLs: ?queue=<name>
    label: str
    object_type: str  # what a claim on one of its items names
    gate: str  # the task status its items wait at
    finding_status: str = ""  # for the queues of findings


QUEUES = {
    kind.name: kind
    for kind in (
        QueueKind("plans", gettext_lazy("Plans"), ObjectType.PLAN, Status.AWAITING_PLAN_REVIEW),
        QueueKind(
            "conflicts",
            gettext_lazy("Conflicts"),
            ObjectType.FINDING,
            Status.AWAITING_EVIDENCE_REVIEW,
            FindingStatus.CONFLICT,
        ),
        QueueKind(
            "gaps",
            INSUFFICIENT_MARK,
            ObjectType.FINDING,
            Status.AWAITING_EVIDENCE_REVIEW,
            FindingStatus.INSUFFICIENT,
        ),
        QueueKind("reports", gettext_lazy("Reports"), ObjectType.REPORT, Status.AWAITING_REPORT_REVIEW),
    )
}
AGES = {"1h": timedelta(hours=1), "1d": timedelta(days=1), "7d": timedelta(days=7)}


@dataclass(frozen=True)
class QueueFilters:
    queue: str = "plans"
    task: str = ""  # a task number ("12" or "#12"), or words of its question, as typed
    task_id: int | None = None  # the number, when ``task`` is one
    owner: str = ""  # the owner's username
    age: str = ""  # "" or a key of AGES: waiting at least that long
    claim: str = ""  # "", "unclaimed", "mine" or "others"
    newest_first: bool = False
    page: str = "1"

    @property
    def kind(self) -> QueueKind:
        return QUEUES[self.queue]


@dataclass(frozen=True)
class QueueCounts:
    plans: int = 0
    conflicts: int = 0
    gaps: int = 0
    reports: int = 0

    @property
    def total(self) -> int:
        return self.plans + self.conflicts + self.gaps + self.reports

    def of(self, queue: str) -> int:
        return getattr(self, queue)


def queue_counts() -> QueueCounts:
    """How many items wait in each queue, in one query (tasks at a gate, joined to their findings)."""
    review = Q(
        status=Status.AWAITING_EVIDENCE_REVIEW,
        findings__resolution="",
    )
    counts = ResearchTask.objects.filter(status__in=ResearchTask.AWAITING).aggregate(
        plans=Count("pk", filter=Q(status=Status.AWAITING_PLAN_REVIEW), distinct=True),
        reports=Count("pk", filter=Q(status=Status.AWAITING_REPORT_REVIEW), distinct=True),
        conflicts=Count("findings", filter=review & Q(findings__status=FindingStatus.CONFLICT)),
        gaps=Count("findings", filter=review & Q(findings__status=FindingStatus.INSUFFICIENT)),
    )
    return QueueCounts(**counts)


COUNTS_KEY = "desk:queue-counts"
COUNTS_SECONDS = 15  # a safety net: every move of a task and every decision forgets them at once


def queue_counts_for(request: HttpRequest) -> QueueCounts:
    """The counts every analyst page shows in its navigation: from the shared cache, or counted and
    cached (they cost a join of tasks and findings, more than the rest of a small page)."""
    if not hasattr(request, "_desk_queue_counts"):
        counts = cache.get(COUNTS_KEY)
        if counts is None:
            counts = queue_counts()
            cache.set(COUNTS_KEY, counts, COUNTS_SECONDS)
        request._desk_queue_counts = counts
    return request._desk_queue_counts


def forget_queue_counts() -> None:
    cache.delete(COUNTS_KEY)


def _with_claim(rows: QuerySet, claims: QuerySet) -> QuerySet:
    """Annotate each row with its live claim: who holds it (id, name) and until when."""
    live = claims.filter(expires_at__gt=timezone.now())
    return rows.annotate(
        claimant_id=Subquery(live.values("analyst_id")[:1], output_field=IntegerField()),
        claimant=Subquery(live.values("analyst__username")[:1]),
        claim_expires=Subquery(live.values("expires_at")[:1]),
    )


def _latest_version(model) -> Subquery:
    return Subquery(
        model.objects.filter(task=OuterRef("pk")).order_by("-version").values("version")[:1],
        output_field=IntegerField(),
    )


@dataclass(frozen=True)
class QueueRow:
    """One item as a queue lists it, its words ready (a page lists 25: the template stays simple)."""

    key: str  # what its claim and release buttons send: "plan:<task>", "report:<task>", "finding:<id>"
    task_id: int
    finding_id: int | None
    title: str  # "Task 12: <question>" or "Item 34: <statement>"
    detail: str  # "plan v2", "draft v1", or the finding's "task 12 · <question>"
    owner: str
    waiting_since: datetime
    url: str  # its gate page
    claim_label: str  # the claim and release buttons' accessible names: "Claim item 34"
    release_label: str
    claimant_id: int | None = None
    claimant: str = ""
    claim_expires: datetime | None = None


GATE_PAGES = {
    ObjectType.PLAN: "plan_review",
    ObjectType.FINDING: "evidence_review",
    ObjectType.REPORT: "report_view",
}


def _row(kind: QueueKind, item: Finding | ResearchTask) -> QueueRow:
    task = item.task if isinstance(item, Finding) else item
    url = reverse(GATE_PAGES[kind.object_type], args=[task.pk])
    shared = {
        "task_id": task.pk,
        "owner": task.owner.get_username(),
        "waiting_since": task.updated_at,
        "claimant_id": item.claimant_id,
        "claimant": item.claimant or "",
        "claim_expires": item.claim_expires,
    }
    if isinstance(item, Finding):
        n = {"n": item.pk}
        return QueueRow(
            **shared,
            key=f"finding:{item.pk}",
            finding_id=item.pk,
            title=_("Item %(n)s") % n + ": " + Truncator(item.statement).chars(140),
            detail=_("task %(n)s") % {"n": task.pk} + " · " + Truncator(task.question).chars(80),
            url=f"{url}#finding-{item.pk}",
            claim_label=_("Claim item %(n)s") % n,
            release_label=_("Release item %(n)s") % n,
        )
    n, v = {"n": task.pk}, {"v": item.version or "?"}
    return QueueRow(
        **shared,
        key=f"{kind.object_type}:{task.pk}",
        finding_id=None,
        title=_("Task %(n)s") % n + ": " + Truncator(task.question).chars(120),
        detail=(_("plan v%(v)s") if kind.object_type == ObjectType.PLAN else _("draft v%(v)s")) % v,
        url=url,
        claim_label=_("Claim task %(n)s") % n,
        release_label=_("Release task %(n)s") % n,
    )


def _items(kind: QueueKind) -> QuerySet:
    """Every item of one queue, each annotated with its live claim."""
    if kind.object_type == ObjectType.FINDING:
        findings = Finding.objects.needing_review().filter(status=kind.finding_status, task__status=kind.gate)
        findings = findings.select_related("task__owner").only(
            "statement", "task__question", "task__updated_at", "task__owner__username"
        )
        return _with_claim(findings, Claim.objects.filter(finding=OuterRef("pk")))
    tasks = ResearchTask.objects.filter(status=kind.gate).select_related("owner")
    tasks = tasks.only("question", "status", "updated_at", "owner__username")
    tasks = tasks.annotate(
        version=_latest_version(Plan if kind.object_type == ObjectType.PLAN else ReportDraft)
    )
    claims = Claim.objects.filter(task=OuterRef("pk"), object_type=kind.object_type, finding__isnull=True)
    return _with_claim(tasks, claims)


@dataclass(frozen=True)
class QueuePage:
    kind: QueueKind
    page: Page  # for the pager and the count; its items are Findings or ResearchTasks

    @functools.cached_property
    def rows(self) -> list[QueueRow]:
        """The page's rows as the list shows them: built only when the list is rendered, not when it
        comes from the cache (``shown`` is its key)."""
        return [_row(self.kind, item) for item in self.page]

    def shown(self) -> list[tuple]:
        """Every value the rows are made of (what ``_row`` reads), to key the cached list on."""
        values = []
        for item in self.page:
            if isinstance(item, Finding):  # a finding's own fields beyond these are not read (only())
                task, own = item.task, (item.pk, item.statement)
            else:
                task, own = item, (item.pk, item.version)
            values.append(
                own
                + (task.pk,)
                + (task.question, task.owner.get_username(), task.updated_at)
                + (item.claimant_id, item.claimant, item.claim_expires)
            )
        return values


def queue_page(user, filters: QueueFilters) -> QueuePage:
    """One page of a queue, filtered and sorted by how long each item has waited."""
    kind = filters.kind
    items = _items(kind)
    prefix = "task__" if kind.object_type == ObjectType.FINDING else ""
    if filters.task_id is not None:
        items = items.filter(**{f"{prefix}pk": filters.task_id})
    elif words := filters.task.strip().lstrip("#"):
        items = items.filter(**{f"{prefix}question__icontains": words})
    if filters.owner.strip():
        items = items.filter(**{f"{prefix}owner__username__iexact": filters.owner.strip()})
    if filters.age in AGES:
        items = items.filter(**{f"{prefix}updated_at__lte": timezone.now() - AGES[filters.age]})
    if filters.claim == "unclaimed":
        items = items.filter(claimant_id__isnull=True)
    elif filters.claim == "mine":
        items = items.filter(claimant_id=user.pk)
    elif filters.claim == "others":
        items = items.filter(claimant_id__isnull=False).exclude(claimant_id=user.pk)
    waited = f"{prefix}updated_at"
    order = [waited, f"{prefix}id"] + (["id"] if prefix else [])
    if filters.newest_first:
        order = [f"-{field}" for field in order]
    page = counted_page(items.order_by(*order), QUEUE_LENGTH, filters.page)
    return QueuePage(kind=kind, page=page)
