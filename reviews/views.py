"""The review side's pages: the plan and report gates (the evidence gate is ``evidence_views``, the
hypotheses ``hypothesis_views``; the queue and audit are ``desk_views``).

Each gate page is ``researchapp.web.gate_view`` with its two steps: what a POST decides, and what the
page shows. After an HTMX POST the page's fragment is rendered again from fresh data, so what the
analyst sees is what is stored; without HTMX the view redirects (post/redirect/get).
"""

from __future__ import annotations

from typing import cast

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import ValidationError
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils.functional import SimpleLazyObject
from django.utils.translation import gettext as _
from django.utils.translation import ngettext
from django.views.decorators.http import require_GET

from researchapp import selectors, web
from researchapp.forms import first_error
from researchapp.models import Plan, ReportDraft, ResearchTask, StaleState
from researchapp.permissions import is_analyst
from researchapp.services import plan_gate
from researchapp.services.plan_gate import MAX_SUBQUESTIONS
from reviews import services
from reviews.forms import PlanEditForm, PlanRejectForm, PlanRow, ReportDecisionForm
from reviews.selectors import plans, reports

# --- plan review ----------------------------------------------------------------------------------


@login_required
@require_GET
@web.answers_bad_parameters
def plan_queries(request: HttpRequest, task_id: int) -> HttpResponse:
    """The queries field of one row, made again for the row's text as typed (htmx, on change).

    Queries the analyst edited by hand are kept and the field says so; the save regenerates by
    the same rule (``PlanRow.edit``), so what is shown here is what will be stored.
    """
    task = selectors.visible_task(task_id, request.user)
    index = web.number_param(request.GET, "row", minimum=0, maximum=MAX_SUBQUESTIONS)
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


def _plan_context(request: HttpRequest, task: ResearchTask, outcome: web.GateOutcome) -> dict:
    """What the editor shows is read only when it renders: not when it comes from the cache
    (``fragment_key``)."""
    review = cast(plans.PlanReview, SimpleLazyObject(lambda: plans.plan_for_review(task)))
    posted: PlanEditForm | None = outcome.again
    rows = posted.rows if posted else SimpleLazyObject(lambda: [PlanRow.of(sq) for sq in review.subquestions])
    moved_to, pressed = outcome.focus or (None, "")
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
        "versions": SimpleLazyObject(lambda: plans.plan_versions(review)),
        "rows": rows,
        "new_row": PlanRow(None, posted.new_text, posted.new_queries) if posted else PlanRow(None, "", ""),
        "reject_form": SimpleLazyObject(
            lambda: PlanRejectForm(initial={"plan_version": review.plan.version if review.plan else 1})
        ),
        "can_decide": SimpleLazyObject(lambda: is_analyst(request.user) and review.editable),
    }


def _decide_plan(request: HttpRequest, task: ResearchTask) -> web.GateOutcome:
    """Apply the pressed button: reject with feedback, or edit (save, add, remove, move) and approve."""
    review = plans.plan_for_review(task)
    if review.plan is None:
        messages.error(request, _("There is no plan to review yet."))
        return web.GateOutcome()
    if request.POST.get("action") == "reject":
        _reject_plan(request, review.plan)
        return web.GateOutcome()
    return _edit_plan(request, review)


def _edit_plan(request: HttpRequest, review: plans.PlanReview) -> web.GateOutcome:
    """Store the edited rows (or approve them). A refused edit comes back as posted, so nothing typed is
    lost; a moved row comes back as the focus of the fragment."""
    form = PlanEditForm(request.POST)
    if not form.is_valid():
        messages.error(request, " ".join(form.errors))
        return web.GateOutcome(again=form)
    stored = [PlanRow.of(sq).edit() for sq in review.subquestions]
    try:
        edits = form.apply()
        changed = edits != stored
        if form.action != "approve" and not changed:
            messages.info(request, _("Nothing changed."))
            return web.GateOutcome()
        services.plan_decide(
            plan=review.plan,
            actor=request.user,
            decision="approve" if form.action == "approve" else "edit",
            version_seen=form.plan_version,
            edits=edits if changed else None,
        )
    except (ValidationError, StaleState) as error:
        messages.error(request, web.error_text(error))
        return web.GateOutcome(again=form)
    if form.action == "approve":
        messages.success(
            request, _("Plan v%(v)s approved; collection has started.") % {"v": review.plan.version}
        )
    elif form.moved_to is not None:
        messages.success(request, _("Sub-question moved to position %(n)s.") % {"n": form.moved_to + 1})
        return web.GateOutcome(focus=(form.moved_to, form.action))  # the editor puts focus back on this row
    else:
        messages.success(request, _("Plan saved."))
    return web.GateOutcome()


def _reject_plan(request: HttpRequest, plan: Plan) -> None:
    reject = PlanRejectForm(request.POST)
    if not reject.is_valid():
        messages.error(request, first_error(reject))
        return
    data = reject.cleaned_data
    web.apply_decision(
        request,
        lambda: services.plan_decide(
            plan=plan,
            actor=request.user,
            decision="reject",
            version_seen=data["plan_version"],
            note=data["feedback"],
        ),  # fmt: skip
        success=_("Plan v%(v)s rejected; the planner is revising it.") % {"v": plan.version},
    )


plan_review = web.gate_view(
    decide=_decide_plan,
    context_for=_plan_context,
    page="plan_review.html",
    fragment="plan_review.html#editor",
)


# The evidence gate's page is ``reviews.evidence_views``.


# --- report ---------------------------------------------------------------------------------------


def _report_context(request: HttpRequest, task: ResearchTask, outcome: web.GateOutcome) -> dict:
    review = reports.report_for(task)
    can_decide = is_analyst(request.user) and review.reviewable
    return {
        "review": review,
        "report": SimpleLazyObject(lambda: review.report),  # read if rendered (``fragment_key``)
        "form": ReportDecisionForm(initial={"draft_version": review.draft.version if review.draft else 1}),
        "can_decide": can_decide,
        "posted": outcome.again or {},
    }


def _refuse_uncited(request: HttpRequest, draft: ReportDraft, decision: str) -> web.GateOutcome | None:
    """A draft that cites nothing states nothing a reader can check: approving it takes the analyst's
    explicit word (``approve_uncited``), never one click; refused, the error shows beside the button."""
    if decision != "approve" or draft.cited_evidence_ids or request.POST.get("approve_uncited"):
        return None
    error = _(
        "This draft cites no source. Tick “Approve it although it cites no source” to approve it anyway."
    )
    return web.GateOutcome(again={"error": error, "field": "approve"})


def _decide_report(request: HttpRequest, task: ResearchTask) -> web.GateOutcome:
    """Approve, or request changes with comments on the report and on its sentences."""
    form = ReportDecisionForm(request.POST)
    review = reports.report_for(task)
    draft = review.draft
    if not form.is_valid() or draft is None:
        messages.error(request, first_error(form) if draft else _("There is no report draft yet."))
        return web.GateOutcome()
    decision, data = form.cleaned_data["decision"], form.cleaned_data
    refused = _refuse_uncited(request, draft, decision)
    if refused:
        return refused
    try:
        anchored = form.sentence_comments(review.sentences) if decision == "send_back" else []
    except ValidationError as error:
        messages.error(request, web.error_text(error))
        return web.GateOutcome()
    web.apply_decision(
        request,
        lambda: services.report_decide(
            draft=draft,
            actor=request.user,
            decision=decision,
            version_seen=data["draft_version"],
            note=data["comments"],
            sentence_comments=anchored,
        ),  # fmt: skip
        success=_report_decided(decision, draft.version, len(anchored)),
    )
    return web.GateOutcome()


def _report_decided(decision: str, version: int, comments: int) -> str:
    if decision == "approve":
        return _("Report v%(v)s approved.") % {"v": version}
    if not comments:
        return _("Report v%(v)s sent back; the writer is revising it.") % {"v": version}
    return ngettext(
        "Report v%(v)s sent back; the writer is revising it (%(n)s comment on sentences).",
        "Report v%(v)s sent back; the writer is revising it (%(n)s comments on sentences).",
        comments,
    ) % {"v": version, "n": comments}


report_view = web.gate_view(
    decide=_decide_report, context_for=_report_context, page="report.html", fragment="report.html#decision"
)
