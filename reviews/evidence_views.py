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
from django.utils.functional import SimpleLazyObject
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.http import require_GET
from django.views.decorators.vary import vary_on_headers

from researchapp import selectors, web
from researchapp.forms import first_error
from researchapp.models import ResearchTask, StaleState
from researchapp.permissions import is_analyst
from researchapp.services.manual_evidence import span_of
from reviews import services
from reviews.evidence_forms import ManualEvidenceForm, OpenUrlForm
from reviews.forms import FindingDecisionForm
from reviews.selectors import findings, hypotheses

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


def _evidence_context(request: HttpRequest, task: ResearchTask, outcome: web.GateOutcome) -> dict:
    """The items and hypotheses are read only when the page renders them: not when its fragments come
    from the cache (``fragment_key``)."""
    can_decide = is_analyst(request.user)
    return {
        "review": SimpleLazyObject(lambda: findings.findings_for_review(task, with_sources=can_decide)),
        "can_decide": can_decide and task.status == ResearchTask.Status.AWAITING_EVIDENCE_REVIEW,
        "posted": outcome.again or {},
        **hypotheses.hypotheses_context(task, request.user),
    }


def _decide(request: HttpRequest, task: ResearchTask) -> web.GateOutcome:
    action = request.POST.get("action", "")
    if action == "add_evidence":
        return _add_evidence(request, task)
    if action == "open_url":
        return _open_url(request, task)
    return _decide_finding(request, task)


def _refused(request: HttpRequest, text: str, again: dict, field: str) -> web.GateOutcome:
    """A refused form comes back as sent, its error beside ``field`` of the item's form (where the
    analyst is looking, and where focus goes); an error that names no item shows above the items."""
    if not again.get("finding"):
        messages.error(request, text)
        return web.GateOutcome(again=again or None)
    return web.GateOutcome(again={**again, "error": text, "field": field})


def _decide_finding(request: HttpRequest, task: ResearchTask) -> web.GateOutcome:
    form = FindingDecisionForm(request.POST)
    typed = {
        "finding": web.whole_number(request.POST.get("finding"), minimum=1),
        "note": request.POST.get("note", ""),
    }
    if not form.is_valid():
        return _refused(request, first_error(form), typed, "note")
    finding = findings.finding_in_task(task, form.cleaned_data["finding"])
    decision, data = form.cleaned_data["decision"], form.cleaned_data
    try:
        services.finding_decide(
            finding=finding,
            actor=request.user,
            decision=decision,
            version_seen=data["version"],
            note=data["note"],
            evidence_id=data["evidence"] or 0,
        )
    except (ValidationError, StaleState) as error:
        return _refused(request, web.error_text(error), {**typed, "finding": finding.pk}, "note")
    messages.success(
        request,
        _("Recorded for item %(n)s: %(what)s.")
        % {"n": finding.pk, "what": DECISION_WORDS.get(decision, decision)},
    )
    return web.GateOutcome()


def _add_evidence(request: HttpRequest, task: ResearchTask) -> web.GateOutcome:
    """A span of a stored source becomes the item's evidence; refused, the form comes back as sent."""
    form = ManualEvidenceForm(request.POST)
    if not form.is_valid():
        return _refused(request, first_error(form), form.posted(), "passage")
    data = form.cleaned_data
    finding = findings.finding_in_task(task, data["finding"])
    source = findings.source_in_task(task, data["source"])
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
        return _refused(request, web.error_text(error), form.posted(), "passage")
    messages.success(
        request,
        _("Item %(n)s is supported now: E%(e)s added by hand (characters %(a)s–%(b)s of “%(source)s”).")
        % {"n": finding.pk, "e": evidence.pk, "a": evidence.start, "b": evidence.end, "source": source},
    )
    return web.GateOutcome()


def _open_url(request: HttpRequest, task: ResearchTask) -> web.GateOutcome:
    """The fetcher opens the page (inline, short deadline); it is then a stored source to select from."""
    form = OpenUrlForm(request.POST)
    if not form.is_valid():
        return _refused(request, first_error(form), form.posted(), "url")
    data = form.cleaned_data
    finding = findings.finding_in_task(task, data["finding"])
    try:
        source = services.source_open_by_hand(
            finding=finding, actor=request.user, url=data["url"], version_seen=data["version"]
        )
    except (ValidationError, StaleState) as error:
        return _refused(request, web.error_text(error), form.posted(), "url")
    messages.success(
        request,
        _("Opened %(url)s: stored as a source (%(n)s characters). Open it to select a passage.")
        % {"url": data["url"], "n": len(source.text)},
    )
    # The page is shown again with the source open in the item's form, not redirected away.
    return web.GateOutcome(again={"finding": finding.pk, "source": source.pk})


evidence_review = web.gate_view(
    decide=_decide,
    context_for=_evidence_context,
    page="evidence_review.html",
    fragment="evidence_review.html#findings",
)


@login_required
@vary_on_headers("HX-Request")
@require_GET
@web.answers_bad_parameters
def evidence_source(request: web.HtmxHttpRequest, task_id: int) -> HttpResponse:
    """A stored source's text, line by line with offsets, to select a passage of it for an item
    (``?source=<id>&finding=<id>``; without a finding, to read); in the side panel for htmx, a page of
    its own otherwise."""
    task = selectors.visible_task(task_id, request.user)
    source = findings.source_in_task(task, web.number_param(request.GET, "source"))
    context = {
        "task": task,
        "source": source,
        "finding_id": web.number_param(request.GET, "finding", default=0),
        "lines": findings.snapshot_lines(source),
    }
    template = "evidence_source.html#source" if request.htmx else "evidence_source.html"
    return render(request, template, context)
