"""Hypotheses at the evidence gate: the list with each side's quotes, and an analyst's verdict on one.

The evidence review page includes ``partials/hypotheses.html`` with the context of
``reviews.selectors.hypotheses.hypotheses_context``; the partial's forms post here, and an htmx POST
gets the partial back, rendered from fresh data. The same URL without htmx is a page of its own (and
a POST without htmx redirects back to it).
"""

from __future__ import annotations

from django.contrib import messages
from django.http import HttpRequest
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from researchapp import web
from researchapp.forms import first_error
from researchapp.models import ResearchTask
from reviews import services
from reviews.hypothesis_forms import HypothesisDecisionForm
from reviews.selectors import hypotheses

VERDICT_WORDS = {
    "accept": gettext_lazy("accepted"),
    "reject": gettext_lazy("rejected"),
    "keep_open": gettext_lazy("kept open"),
}


def _hypotheses_context(request: HttpRequest, task: ResearchTask, outcome: web.GateOutcome) -> dict:
    return {"own_messages": True, **hypotheses.hypotheses_context(task, request.user)}


def _decide(request: HttpRequest, task: ResearchTask) -> web.GateOutcome:
    form = HypothesisDecisionForm(request.POST)
    if not form.is_valid():
        messages.error(request, first_error(form))
        return web.GateOutcome()
    data = form.cleaned_data
    hypothesis = hypotheses.hypothesis_in_task(task, data["hypothesis"])
    web.apply_decision(
        request,
        lambda: services.hypothesis_decide(
            hypothesis=hypothesis,
            actor=request.user,
            decision=data["decision"],
            version_seen=data["version"],
            note=data["note"],
        ),  # fmt: skip
        success=_("Recorded for hypothesis %(id)s: %(decision)s.")
        % {"id": hypothesis.pk, "decision": VERDICT_WORDS.get(data["decision"], data["decision"])},
    )
    return web.GateOutcome()


hypotheses_review = web.gate_view(
    decide=_decide,
    context_for=_hypotheses_context,
    page="hypotheses_review.html",
    fragment="partials/hypotheses.html",
)
