"""The review side's pages: the three gates (plan, evidence, report), the queue and the audit trail.

Views parse the request, authorise, call one service or selector and render. After an HTMX POST
the page's fragment is rendered again from fresh data, so what the analyst sees is what is
stored; without HTMX the view redirects (post/redirect/get).
"""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied, ValidationError
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_GET, require_http_methods
from django.views.decorators.vary import vary_on_headers
from django_htmx.middleware import HtmxDetails

from researchapp import selectors
from researchapp.exports.html import report_html
from researchapp.forms import first_error
from researchapp.models import ResearchTask, StaleState
from researchapp.permissions import is_analyst
from reviews import selectors as review_selectors
from reviews import services
from reviews.forms import FindingDecisionForm, PlanEditForm, PlanRejectForm, PlanRow, ReportDecisionForm
from reviews.selectors import audit_trail, review_queue_for


class HtmxHttpRequest(HttpRequest):
    htmx: HtmxDetails


def _say(error: ValidationError | StaleState) -> str:
    return " ".join(error.messages) if isinstance(error, ValidationError) else str(error)


def _require_analyst(request: HttpRequest) -> None:
    if not is_analyst(request.user):
        raise PermissionDenied("Only analysts can decide reviews.")


# --- plan review ----------------------------------------------------------------------------------


@login_required
@vary_on_headers("HX-Request")
@require_http_methods(["GET", "POST"])
def plan_review(request: HtmxHttpRequest, task_id: int) -> HttpResponse:
    task = selectors.visible_task(task_id, request.user)
    posted = None
    if request.method == "POST":
        _require_analyst(request)
        posted = _decide_plan(request, task)
        if not request.htmx and posted is None:
            return redirect("plan_review", task.pk)
    review = review_selectors.plan_for_review(selectors.visible_task(task_id, request.user))
    rows = posted.rows if posted else [PlanRow.of(sq) for sq in review.subquestions]
    context = {
        "review": review,
        "task": review.task,
        "rows": rows,
        "new_row": PlanRow(None, posted.new_text, posted.new_queries) if posted else PlanRow(None, "", ""),
        "reject_form": PlanRejectForm(initial={"plan_version": review.plan.version if review.plan else 1}),
        "can_decide": is_analyst(request.user) and review.editable,
    }
    template = "plan_review.html#editor" if request.htmx else "plan_review.html"
    return render(request, template, context)


def _decide_plan(request: HttpRequest, task: ResearchTask) -> PlanEditForm | None:
    """Apply the pressed button. Returns the posted form when it failed, so the edits are kept."""
    review = review_selectors.plan_for_review(task)
    if review.plan is None:
        messages.error(request, "There is no plan to review yet.")
        return None
    if request.POST.get("action") == "reject":
        reject = PlanRejectForm(request.POST)
        if not reject.is_valid():
            messages.error(request, first_error(reject))
            return None
        try:
            services.decide_plan(
                plan=review.plan,
                reviewer=request.user,
                decision="reject",
                version_seen=reject.cleaned_data["plan_version"],
                note=reject.cleaned_data["feedback"],
            )
        except (ValidationError, StaleState) as error:
            messages.error(request, _say(error))
        else:
            messages.success(request, f"Plan v{review.plan.version} rejected; the planner is revising it.")
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
            messages.info(request, "Nothing changed.")
            return None
        services.decide_plan(
            plan=review.plan,
            reviewer=request.user,
            decision="approve" if form.action == "approve" else "edit",
            version_seen=_int(request.POST.get("plan_version")),
            edits=edits if changed else None,
        )
    except (ValidationError, StaleState) as error:
        messages.error(request, _say(error))
        return form
    if form.action == "approve":
        messages.success(request, f"Plan v{review.plan.version} approved; collection has started.")
    else:
        messages.success(request, "Plan saved.")
    return None


def _int(raw: str | None) -> int:
    return int(raw) if raw and raw.isdigit() else 0


# --- evidence review ------------------------------------------------------------------------------


@login_required
@vary_on_headers("HX-Request")
@require_http_methods(["GET", "POST"])
def evidence_review(request: HtmxHttpRequest, task_id: int) -> HttpResponse:
    task = selectors.visible_task(task_id, request.user)
    if request.method == "POST":
        _require_analyst(request)
        _decide_finding(request, task)
        if not request.htmx:
            return redirect("evidence_review", task.pk)
    review = review_selectors.findings_for_review(selectors.visible_task(task_id, request.user))
    context = {"review": review, "task": review.task, "can_decide": is_analyst(request.user) and review.open}
    template = "evidence_review.html#findings" if request.htmx else "evidence_review.html"
    return render(request, template, context)


def _decide_finding(request: HttpRequest, task: ResearchTask) -> None:
    form = FindingDecisionForm(request.POST)
    if not form.is_valid():
        messages.error(request, first_error(form))
        return
    finding = review_selectors.finding_in_task(task, form.cleaned_data["finding"])
    decision = form.cleaned_data["decision"]
    try:
        services.decide_finding(
            finding=finding,
            reviewer=request.user,
            decision=decision,
            version_seen=form.cleaned_data["version"],
            note=form.cleaned_data["note"],
        )
    except (ValidationError, StaleState) as error:  # StaleState: someone else decided first
        messages.error(request, _say(error))
    else:
        messages.success(request, f"Recorded for item {finding.pk}: {decision.replace('_', ' ')}.")


# --- report ---------------------------------------------------------------------------------------


@login_required
@vary_on_headers("HX-Request")
@require_http_methods(["GET", "POST"])
def report_view(request: HtmxHttpRequest, task_id: int) -> HttpResponse:
    task = selectors.visible_task(task_id, request.user)
    if request.method == "POST":
        _require_analyst(request)
        _decide_report(request, task)
        if not request.htmx:
            return redirect("report_view", task.pk)
    report = review_selectors.report_for(selectors.visible_task(task_id, request.user))
    context = {
        "report": report,
        "task": report.task,
        "body": report_html(report.draft.markdown, report.evidence_ids) if report.draft else "",
        "form": ReportDecisionForm(initial={"draft_version": report.draft.version if report.draft else 1}),
        "can_decide": is_analyst(request.user) and report.reviewable,
    }
    template = "report.html#decision" if request.htmx else "report.html"
    return render(request, template, context)


def _decide_report(request: HttpRequest, task: ResearchTask) -> None:
    form = ReportDecisionForm(request.POST)
    draft = review_selectors.report_for(task).draft
    if not form.is_valid() or draft is None:
        messages.error(request, first_error(form) if draft else "There is no report draft yet.")
        return
    decision = form.cleaned_data["decision"]
    try:
        services.decide_report(
            draft=draft,
            reviewer=request.user,
            decision=decision,
            version_seen=form.cleaned_data["draft_version"],
            note=form.cleaned_data["comments"],
        )
    except (ValidationError, StaleState) as error:
        messages.error(request, _say(error))
    else:
        messages.success(
            request,
            f"Report v{draft.version} approved."
            if decision == "approve"
            else f"Report v{draft.version} sent back; the writer is revising it.",
        )


# --- queue and audit ------------------------------------------------------------------------------


@login_required
@require_GET
def review_queue(request: HttpRequest) -> HttpResponse:
    if not is_analyst(request.user):
        raise PermissionDenied("The review queue is for analysts.")
    return render(request, "review_queue.html", {"queue": review_queue_for(request.user)})


@login_required
@require_GET
def task_audit(request: HttpRequest, task_id: int) -> HttpResponse:
    task = selectors.visible_task(task_id, request.user)
    return render(request, "audit.html", {"task": task, "entries": audit_trail(task)})
