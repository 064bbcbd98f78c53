"""Hypotheses at the evidence gate: the list with each side's quotes, and an analyst's verdict on one.

The evidence review page includes ``partials/hypotheses.html`` with the context of
``reviews.selectors.hypotheses_context``; the partial's forms post here, and an htmx POST gets the
partial back, rendered from fresh data. The same URL without htmx is a page of its own (and a POST
without htmx redirects back to it).
"""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied, ValidationError
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods
from django.views.decorators.vary import vary_on_headers

from researchapp import selectors
from researchapp.forms import first_error
from researchapp.models import ResearchTask, StaleState
from researchapp.permissions import is_analyst
from reviews import selectors as review_selectors
from reviews import services
from reviews.hypothesis_forms import HypothesisDecisionForm


@login_required
@vary_on_headers("HX-Request")
@require_http_methods(["GET", "POST"])
def hypotheses_review(request: HttpRequest, task_id: int) -> HttpResponse:
    task = selectors.visible_task(task_id, request.user)
    if request.method == "POST":
        if not is_analyst(request.user):
            raise PermissionDenied("Only analysts can decide reviews.")
        _decide(request, task)
        if not request.htmx:
            return redirect(request.path)
    task = selectors.visible_task(task_id, request.user)
    context = {"task": task, "own_messages": True, **review_selectors.hypotheses_context(task, request.user)}
    template = "partials/hypotheses.html" if request.htmx else "hypotheses_review.html"
    return render(request, template, context)


def _decide(request: HttpRequest, task: ResearchTask) -> None:
    form = HypothesisDecisionForm(request.POST)
    if not form.is_valid():
        messages.error(request, first_error(form))
        return
    data = form.cleaned_data
    hypothesis = review_selectors.hypothesis_in_task(task, data["hypothesis"])
    try:
        services.hypothesis_decide(
            hypothesis=hypothesis,
            actor=request.user,
            decision=data["decision"],
            version_seen=data["version"],
            note=data["note"],
        )
    except ValidationError as error:
        messages.error(request, " ".join(error.messages))
        return
    except StaleState as error:
        messages.error(request, str(error))
        return
    messages.success(
        request,
        _("Recorded for hypothesis %(id)s: %(decision)s.")
        % {"id": hypothesis.pk, "decision": data["decision"].replace("_", " ")},
    )
