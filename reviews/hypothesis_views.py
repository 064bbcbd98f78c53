"""Hypotheses at the evidence gate: the list with each side's quotes, and an analyst's verdict on one.

The evidence review page includes ``partials/hypotheses.html`` with the context of
``reviews.selectors.hypotheses.hypotheses_context``; the partial's forms post here, and an htmx POST
gets the partial back, rendered from fresh data. The same URL without htmx is a page of its own (and
a POST without htmx redirects back to it).
"""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.http import require_http_methods
from django.views.decorators.vary import vary_on_headers

from researchapp.forms import first_error
from researchapp.models import ResearchTask
from researchapp.web import GateOutcome, HtmxHttpRequest, apply_decision, gate_page
from reviews import services
from reviews.hypothesis_forms import HypothesisDecisionForm
from reviews.selectors import hypotheses

VERDICT_WORDS = {
    "accept": gettext_lazy("accepted"),
    "reject": gettext_lazy("rejected"),
    "keep_open": gettext_lazy("kept open"),
}


@login_required
@vary_on_headers("HX-Request")
@require_http_methods(["GET", "POST"])
def hypotheses_review(request: HtmxHttpRequest, task_id: int) -> HttpResponse:
    return gate_page(
        request,
        task_id,
        decide=_decide,
        context_for=_hypotheses_context,
        page="hypotheses_review.html",
        fragment="partials/hypotheses.html",
    )


def _hypotheses_context(request: HttpRequest, task: ResearchTask, outcome: GateOutcome) -> dict:
    return {"own_messages": True, **hypotheses.hypotheses_context(task, request.user)}


def _decide(request: HttpRequest, task: ResearchTask) -> GateOutcome:
    form = HypothesisDecisionForm(request.POST)
    if not form.is_valid():
        messages.error(request, first_error(form))
        return GateOutcome()
    data = form.cleaned_data
    hypothesis = hypotheses.hypothesis_in_task(task, data["hypothesis"])
    apply_decision(
        request,
        lambda: services.decide_hypothesis(
            hypothesis=hypothesis,
            reviewer=request.user,
            decision=data["decision"],
            version_seen=data["version"],
            note=data["note"],
        ),  # fmt: skip
        success=_("Recorded for hypothesis %(id)s: %(decision)s.")
        % {"id": hypothesis.pk, "decision": VERDICT_WORDS.get(data["decision"], data["decision"])},
    )
    return GateOutcome()
