"""The review side's pages: the plan and report gates and what every gate page does (the evidence gate
is ``evidence_views``; the queue and audit are ``desk_views``).

Views parse the request, authorise, call one service or selector and render. After an HTMX POST
the page's fragment is rendered again from fresh data, so what the analyst sees is what is
stored; without HTMX the view redirects (post/redirect/get).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied, ValidationError
from django.http import HttpRequest, HttpResponse, HttpResponseBadRequest
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_http_methods
from django.views.decorators.vary import vary_on_headers
from django_htmx.middleware import HtmxDetails

from researchapp import selectors
from researchapp.forms import first_error
from researchapp.models import ResearchTask, StaleState
from researchapp.permissions import is_analyst
from researchapp.services import plan_gate
from reviews import selectors as review_selectors
from reviews import services
from reviews.forms import PlanEditForm, PlanRejectForm, PlanRow, ReportDecisionForm


class HtmxHttpRequest(HttpRequest):
    htmx: HtmxDetails


def _say(error: ValidationError | StaleState) -> str:
    return " ".join(error.messages) if isinstance(error, ValidationError) else str(error)


def _apply(request: HttpRequest, decide: Callable[[], object], *, success: str) -> bool:
    """Run one decision; say what happened, or why it did not (``StaleState``: someone was first)."""
    try:
        decide()
    except (ValidationError, StaleState) as error:
        messages.error(request, _say(error))
        return False
    messages.success(request, success)
    return True


def _require_analyst(request: HttpRequest) -> None:
    if not is_analyst(request.user):
        raise PermissionDenied("Only analysts can decide reviews.")


def _gate_page(
    request: HtmxHttpRequest,
    task_id: int,
    *,
    decide: Callable[[HttpRequest, ResearchTask], Any],
    context_for: Callable[[HttpRequest, ResearchTask, Any], dict],
    template: str,
) -> HttpResponse:
    """What every gate page does: show the gate; on an analyst's POST, ``decide`` first.

    After a POST the page is rendered again from fresh data (the fragment ``page.html#name`` for
    htmx), so what the analyst sees is what is stored; without htmx the browser is redirected
    (post/redirect/get) unless ``decide`` returned a form to show again with the analyst's input.
    """
    task = selectors.visible_task(task_id, request.user)
    posted = None
    if request.method == "POST":
        _require_analyst(request)
        posted = decide(request, task)
        if not request.htmx and posted is None:
            return redirect(request.path)
    task = selectors.visible_task(task_id, request.user)
    page = template.partition("#")[0]
    context = {"task": task, **context_for(request, task, posted)}
    return render(request, template if request.htmx else page, context)


# --- plan review ----------------------------------------------------------------------------------


@login_required
@vary_on_headers("HX-Request")
@require_http_methods(["GET", "POST"])
def plan_review(request: HtmxHttpRequest, task_id: int) -> HttpResponse:
    return _gate_page(
        request, task_id, decide=_decide_plan, context_for=_plan_context, template="plan_review.html#editor"
    )


@login_required
@require_GET
def plan_queries(request: HttpRequest, task_id: int) -> HttpResponse:
    """The queries field of one row, made again for the row's text as typed (htmx, on change).

    Queries the analyst edited by hand are kept and the field says so; the save regenerates by
    the same rule (``PlanRow.edit``), so what is shown here is what will be stored.
    """
    task = selectors.visible_task(task_id, request.user)
    index = request.GET.get("row", "")
    if not index.isdigit():
        return HttpResponseBadRequest("Say which row (row=<number>).")
    field = f"sq-{index}-"
    row = PlanRow(
        None,
        request.GET.get(f"{field}text", ""),
        request.GET.get(f"{field}queries", ""),
        original_text=request.GET.get(f"{field}original-text", ""),
        auto_queries=request.GET.get(f"{field}auto-queries", ""),
    )
    by_hand = row.queries_by_hand and bool(row.queries.strip())
    if not by_hand:
        row.queries = row.auto_queries = "\n".join(plan_gate.queries_for(task, row.text))
    return render(
        request,
        "plan_review.html#queries",
        {"i": index, "row": row, "regenerated": not by_hand, "by_hand": by_hand},
    )


def _plan_context(request: HttpRequest, task: ResearchTask, posted: PlanEditForm | None) -> dict:
    review = review_selectors.plan_for_review(task)
    moved_to, pressed = getattr(request, "plan_row_moved", (None, ""))
    rows = posted.rows if posted else [PlanRow.of(sq) for sq in review.subquestions]
    # Focus stays on the moved row: on the button pressed, or the other one at either end.
    if moved_to is not None and len(rows) > 1:
        if moved_to == 0:
            pressed = "down"
        elif moved_to == len(rows) - 1:
            pressed = "up"
    return {
        "review": review,
        "focus_up": moved_to if pressed == "up" else None,
        "focus_down": moved_to if pressed == "down" else None,
        "versions": review_selectors.plan_versions(review),
        "rows": rows,
        "new_row": PlanRow(None, posted.new_text, posted.new_queries) if posted else PlanRow(None, "", ""),
        "reject_form": PlanRejectForm(initial={"plan_version": review.plan.version if review.plan else 1}),
        "can_decide": is_analyst(request.user) and review.editable,
    }


def _decide_plan(request: HttpRequest, task: ResearchTask) -> PlanEditForm | None:
    """Apply the pressed button. Returns the posted form when it failed, so the edits are kept."""
    review = review_selectors.plan_for_review(task)
    if review.plan is None:
        messages.error(request, _("There is no plan to review yet."))
        return None
    if request.POST.get("action") == "reject":
        reject = PlanRejectForm(request.POST)
        if not reject.is_valid():
            messages.error(request, first_error(reject))
            return None
        data = reject.cleaned_data
        _apply(
            request,
            lambda: services.plan_decide(
                plan=review.plan,
                actor=request.user,
                decision="reject",
                version_seen=data["plan_version"],
                note=data["feedback"],
            ),  # fmt: skip
            success=_("Plan v%(v)s rejected; the planner is revising it.") % {"v": review.plan.version},
        )
        return None
    form = PlanEditForm(request.POST)
    if not form.is_valid():
        messages.error(request, " ".join(form.errors))
        return form
    stored = [PlanRow.of(sq).edit() for sq in review.subquestions]
    try:
        edits = form.apply()
        changed = edits != stored
        if form.action != "approve" and not changed:
            messages.info(request, _("Nothing changed."))
            return None
        services.plan_decide(
            plan=review.plan,
            actor=request.user,
            decision="approve" if form.action == "approve" else "edit",
            version_seen=_int(request.POST.get("plan_version")),
            edits=edits if changed else None,
        )
    except (ValidationError, StaleState) as error:
        messages.error(request, _say(error))
        return form
    if form.action == "approve":
        messages.success(
            request, _("Plan v%(v)s approved; collection has started.") % {"v": review.plan.version}
        )
    elif form.moved_to is not None:
        request.plan_row_moved = (form.moved_to, form.action)  # the editor puts focus back on this row
        messages.success(request, _("Sub-question moved to position %(n)s.") % {"n": form.moved_to + 1})
    else:
        messages.success(request, _("Plan saved."))
    return None


def _int(raw: str | None) -> int:
    return int(raw) if raw and raw.isdigit() else 0


# The evidence gate's page is ``reviews.evidence_views``.


# --- report ---------------------------------------------------------------------------------------


@login_required
@vary_on_headers("HX-Request")
@require_http_methods(["GET", "POST"])
def report_view(request: HtmxHttpRequest, task_id: int) -> HttpResponse:
    return _gate_page(
        request, task_id, decide=_decide_report, context_for=_report_context, template="report.html#decision"
    )


def _report_context(request: HttpRequest, task: ResearchTask, posted: None) -> dict:
    review = review_selectors.report_for(task)
    can_decide = is_analyst(request.user) and review.reviewable
    return {
        "review": review,
        "report": review.report,
        "form": ReportDecisionForm(initial={"draft_version": review.draft.version if review.draft else 1}),
        "can_decide": can_decide,
    }


def _decide_report(request: HttpRequest, task: ResearchTask) -> None:
    """Approve, or request changes with comments on the report and on its sentences."""
    form = ReportDecisionForm(request.POST)
    review = review_selectors.report_for(task)
    draft = review.draft
    if not form.is_valid() or draft is None:
        messages.error(request, first_error(form) if draft else "There is no report draft yet.")
        return
    decision, data = form.cleaned_data["decision"], form.cleaned_data
    try:
        anchored = form.sentence_comments(review.sentences) if decision == "send_back" else []
    except ValidationError as error:
        messages.error(request, _say(error))
        return
    _apply(
        request,
        lambda: services.report_decide(
            draft=draft,
            actor=request.user,
            decision=decision,
            version_seen=data["draft_version"],
            note=data["comments"],
            sentence_comments=anchored,
        ),  # fmt: skip
        success=f"Report v{draft.version} approved."
        if decision == "approve"
        else f"Report v{draft.version} sent back; the writer is revising it"
        + (f" ({len(anchored)} comment(s) on sentences)." if anchored else "."),
    )
