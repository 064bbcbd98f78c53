"""The evidence gate's pages: conflicts and [证据不足] items to decide, and a source to select evidence from.

The page's forms all post to ``evidence_review``: a decision on an item (``decision``), a span of a
stored source added as evidence (``action=add_evidence``), or a page for the fetcher to open
(``action=open_url``). A refused form comes back with what the analyst sent (``posted``).
"""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import ValidationError
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.http import require_GET, require_http_methods
from django.views.decorators.vary import vary_on_headers

from researchapp import selectors
from researchapp.forms import first_error
from researchapp.models import ResearchTask, StaleState
from researchapp.permissions import is_analyst
from researchapp.services.manual_evidence import span_of
from reviews import evidence_reads, services
from reviews import selectors as review_selectors
from reviews.evidence_forms import ManualEvidenceForm, OpenUrlForm
from reviews.forms import FindingDecisionForm
from reviews.views import HtmxHttpRequest, _apply, _gate_page, _say

DECISION_WORDS = {
    "pick_supports": gettext_lazy("picked side A"),
    "pick_contradicts": gettext_lazy("picked side B"),
    "disputed": gettext_lazy("kept as disputed"),
    "gap": gettext_lazy("kept as a gap"),
    "drop": gettext_lazy("dropped"),
    "flag": gettext_lazy("flagged: to verify"),
    "more_research": gettext_lazy("more research"),
    "drop_citation": gettext_lazy("citation dropped"),
}


@login_required
@vary_on_headers("HX-Request")
@require_http_methods(["GET", "POST"])
def evidence_review(request: HtmxHttpRequest, task_id: int) -> HttpResponse:
    return _gate_page(
        request,
        task_id,
        decide=_decide,
        context_for=_evidence_context,
        template="evidence_review.html#findings",
    )


def _evidence_context(request: HttpRequest, task: ResearchTask, posted: dict | None) -> dict:
    can_decide = is_analyst(request.user)
    review = evidence_reads.findings_for_review(task, with_sources=can_decide)
    return {
        "review": review,
        "can_decide": can_decide and review.open,
        "posted": posted or {},
        **review_selectors.hypotheses_context(task, request.user),
    }


def _decide(request: HttpRequest, task: ResearchTask) -> dict | None:
    action = request.POST.get("action", "")
    if action == "add_evidence":
        return _add_evidence(request, task)
    if action == "open_url":
        return _open_url(request, task)
    return _decide_finding(request, task)


def _decide_finding(request: HttpRequest, task: ResearchTask) -> dict | None:
    form = FindingDecisionForm(request.POST)
    if not form.is_valid():
        messages.error(request, first_error(form))
        return None
    finding = evidence_reads.finding_in_task(task, form.cleaned_data["finding"])
    decision, data = form.cleaned_data["decision"], form.cleaned_data
    done = _apply(
        request,
        lambda: services.finding_decide(
            finding=finding,
            actor=request.user,
            decision=decision,
            version_seen=data["version"],
            note=data["note"],
            evidence_id=data["evidence"] or 0,
        ),  # fmt: skip
        success=_("Recorded for item %(n)s: %(what)s.")
        % {"n": finding.pk, "what": DECISION_WORDS.get(decision, decision)},
    )
    return None if done else {"finding": finding.pk, "note": data["note"]}


def _add_evidence(request: HttpRequest, task: ResearchTask) -> dict | None:
    """A span of a stored source becomes the item's evidence; refused, the form comes back as sent."""
    form = ManualEvidenceForm(request.POST)
    if not form.is_valid():
        messages.error(request, first_error(form))
        return form.posted()
    data = form.cleaned_data
    finding = evidence_reads.finding_in_task(task, data["finding"])
    source = evidence_reads.source_in_task(task, data["source"])
    try:
        if data["start"] is not None and data["end"] is not None:
            start, end = data["start"], data["end"]
        else:
            start, end = span_of(source.text, data["quote"])
        evidence = services.evidence_add_by_hand(
            finding=finding,
            actor=request.user,
            source=source,
            start=start,
            end=end,
            version_seen=data["version"],
            note=data["note"],
        )
    except (ValidationError, StaleState) as error:
        messages.error(request, _say(error))
        return form.posted()
    messages.success(
        request,
        _("Item %(n)s is supported now: E%(e)s added by hand (characters %(a)s–%(b)s of “%(source)s”).")
        % {"n": finding.pk, "e": evidence.pk, "a": evidence.start, "b": evidence.end, "source": source},
    )
    return None


def _open_url(request: HttpRequest, task: ResearchTask) -> dict | None:
    """The fetcher opens the page (inline, short deadline); it is then a stored source to select from."""
    form = OpenUrlForm(request.POST)
    if not form.is_valid():
        messages.error(request, first_error(form))
        return form.posted()
    data = form.cleaned_data
    finding = evidence_reads.finding_in_task(task, data["finding"])
    try:
        source = services.source_open_by_hand(
            finding=finding, actor=request.user, url=data["url"], version_seen=data["version"]
        )
    except (ValidationError, StaleState) as error:
        messages.error(request, _say(error))
        return form.posted()
    messages.success(
        request,
        _("Opened %(url)s: stored as a source (%(n)s characters). Open it to select a passage.")
        % {"url": data["url"], "n": len(source.text)},
    )
    return {"finding": finding.pk, "source": source.pk}


@login_required
@vary_on_headers("HX-Request")
@require_GET
def evidence_source(request: HtmxHttpRequest, task_id: int) -> HttpResponse:
    """A stored source's text, line by line with offsets, to select a passage of it for an item
    (``?source=<id>&finding=<id>``); in the side panel for htmx, a page of its own otherwise."""
    task = selectors.visible_task(task_id, request.user)
    form = OpenSourceQuery(request.GET)
    source = evidence_reads.source_in_task(task, form.source)
    context = {
        "task": task,
        "source": source,
        "finding_id": form.finding,
        "lines": evidence_reads.snapshot_lines(source),
    }
    template = "evidence_source.html#source" if request.htmx else "evidence_source.html"
    return render(request, template, context)


class OpenSourceQuery:
    def __init__(self, query) -> None:
        self.source = _int(query.get("source"))
        self.finding = _int(query.get("finding"))


def _int(raw: str | None) -> int:
    return int(raw) if raw and raw.isdigit() else 0
