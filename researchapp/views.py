"""Web views: parse the request, authorise, call one service or selector, render.

Review decisions go through ``reviews.services``, which calls the research service and records
who decided. After an HTMX POST the page's fragment is rendered again from fresh data, so what
the analyst sees is what is stored; without HTMX the view redirects (post/redirect/get).
"""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied, ValidationError
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.template.loader import render_to_string
from django.views.decorators.http import require_GET, require_http_methods, require_POST
from django.views.decorators.vary import vary_on_headers
from django_htmx.http import HttpResponseStopPolling
from django_htmx.middleware import HtmxDetails

from researchapp import selectors
from researchapp.exports.markdown import render_markdown
from researchapp.exports.pdf import render_pdf
from researchapp.forms import (
    FindingDecisionForm,
    PlanEditForm,
    PlanRejectForm,
    PlanRow,
    ReportDecisionForm,
    SubmitForm,
    first_error,
)
from researchapp.models import IllegalTransition, ResearchTask, StaleTransition
from researchapp.permissions import can_submit, is_analyst
from researchapp.rendering import report_html
from researchapp.services import tasks as task_services
from reviews import services as review_services


class HtmxHttpRequest(HttpRequest):
    htmx: HtmxDetails


def _say(error: ValidationError) -> str:
    return " ".join(error.messages)


def _require_analyst(request: HttpRequest) -> None:
    if not is_analyst(request.user):
        raise PermissionDenied("Only analysts can decide reviews.")


# --- tasks ----------------------------------------------------------------------------------------


@login_required
@require_GET
def task_list(request: HttpRequest) -> HttpResponse:
    demo = selectors.demo_question()
    return _task_list_page(request, SubmitForm(initial={"question": demo} if demo else None))


def _task_list_page(request: HttpRequest, form: SubmitForm, status: int = 200) -> HttpResponse:
    context = {
        "form": form,
        "tasks": selectors.task_list_for(request.user, request.GET.get("page")),
        "can_submit": can_submit(request.user),
        "demo_question": selectors.demo_question(),
    }
    return render(request, "task_list.html", context, status=status)


@login_required
@require_POST
def task_submit(request: HttpRequest) -> HttpResponse:
    if not can_submit(request.user):
        raise PermissionDenied("Only researchers and analysts can submit questions.")
    form = SubmitForm(request.POST)
    if form.is_valid():
        try:
            task = task_services.task_submit(
                owner=request.user, question=form.cleaned_data["question"], depth=form.cleaned_data["depth"]
            )
        except ValidationError as error:
            form.add_error("question", error)
        else:
            messages.success(request, f"Task {task.pk} submitted; the planner is drafting sub-questions.")
            return redirect("task_detail", task.pk)
    return _task_list_page(request, form, status=400)


@login_required
@require_GET
def task_detail(request: HttpRequest, task_id: int) -> HttpResponse:
    detail = selectors.task_detail(task_id, request.user)
    return render(request, "task_detail.html", {"detail": detail, "task": detail.task})


@login_required
@require_GET
def task_progress(request: HttpRequest, task_id: int) -> HttpResponse:
    """The polled fragment; 286 tells htmx to stop polling once the task is not running."""
    detail = selectors.task_detail(task_id, request.user)
    html = render_to_string(
        "task_detail.html#progress", {"detail": detail, "task": detail.task}, request=request
    )
    if detail.running:
        return HttpResponse(html)
    return HttpResponseStopPolling(html)


@login_required
@require_POST
def task_cancel(request: HttpRequest, task_id: int) -> HttpResponse:
    task = selectors.visible_task(task_id, request.user)
    try:
        task_services.task_cancel(task=task, actor=request.user)
    except (IllegalTransition, StaleTransition):
        task.refresh_from_db(fields=["status"])
        messages.error(request, f"The task is {task.get_status_display()} and can no longer be cancelled.")
    else:
        messages.success(request, "The task is cancelled.")
    return redirect("task_detail", task.pk)


@login_required
@require_POST
def task_resume(request: HttpRequest, task_id: int) -> HttpResponse:
    task = selectors.visible_task(task_id, request.user)
    try:
        task_services.task_resume(task=task, actor=request.user)
    except ValidationError as error:
        messages.error(request, _say(error))
    except (IllegalTransition, StaleTransition):
        messages.error(request, "Someone else resumed or cancelled the task first.")
    else:
        messages.success(request, f"Resumed: the task is {task.get_status_display()} again.")
    return redirect("task_detail", task.pk)


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
    review = selectors.plan_for_review(selectors.visible_task(task_id, request.user))
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
    review = selectors.plan_for_review(task)
    if review.plan is None:
        messages.error(request, "There is no plan to review yet.")
        return None
    if request.POST.get("action") == "reject":
        reject = PlanRejectForm(request.POST)
        if not reject.is_valid():
            messages.error(request, first_error(reject))
            return None
        try:
            review_services.decide_plan(
                plan=review.plan,
                reviewer=request.user,
                decision="reject",
                version_seen=reject.cleaned_data["plan_version"],
                note=reject.cleaned_data["feedback"],
            )
        except ValidationError as error:
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
        review_services.decide_plan(
            plan=review.plan,
            reviewer=request.user,
            decision="approve" if form.action == "approve" else "edit",
            version_seen=_int(request.POST.get("plan_version")),
            edits=edits if changed else None,
        )
    except ValidationError as error:
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
    review = selectors.findings_for_review(selectors.visible_task(task_id, request.user))
    context = {"review": review, "task": review.task, "can_decide": is_analyst(request.user) and review.open}
    template = "evidence_review.html#findings" if request.htmx else "evidence_review.html"
    return render(request, template, context)


def _decide_finding(request: HttpRequest, task: ResearchTask) -> None:
    form = FindingDecisionForm(request.POST)
    if not form.is_valid():
        messages.error(request, first_error(form))
        return
    finding = selectors.finding_in_task(task, form.cleaned_data["finding"])
    decision = form.cleaned_data["decision"]
    try:
        review_services.decide_finding(
            finding=finding,
            reviewer=request.user,
            decision=decision,
            version_seen=form.cleaned_data["version"],
            note=form.cleaned_data["note"],
        )
    except ValidationError as error:  # StaleDecision included: someone else decided first
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
    report = selectors.report_for(selectors.visible_task(task_id, request.user))
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
    draft = selectors.report_for(task).draft
    if not form.is_valid() or draft is None:
        messages.error(request, first_error(form) if draft else "There is no report draft yet.")
        return
    decision = form.cleaned_data["decision"]
    try:
        review_services.decide_report(
            draft=draft,
            reviewer=request.user,
            decision=decision,
            version_seen=form.cleaned_data["draft_version"],
            note=form.cleaned_data["comments"],
        )
    except ValidationError as error:
        messages.error(request, _say(error))
    else:
        messages.success(
            request,
            f"Report v{draft.version} approved."
            if decision == "approve"
            else f"Report v{draft.version} sent back; the writer is revising it.",
        )


@login_required
@vary_on_headers("HX-Request")
@require_GET
def evidence_context(request: HtmxHttpRequest, evidence_id: int) -> HttpResponse:
    context = selectors.evidence_context(evidence_id, request.user)
    template = "evidence_context.html#context" if request.htmx else "evidence_context.html"
    return render(request, template, {"ctx": context, "task": context.evidence.task})


# --- exports --------------------------------------------------------------------------------------


def _not_approved(task: ResearchTask) -> HttpResponse:
    return HttpResponse(
        f"Task {task.pk} has no approved report yet ({task.get_status_display()}); "
        "only an approved report can be exported.",
        status=409,
        content_type="text/plain; charset=utf-8",
    )


def _attachment(body: str | bytes, content_type: str, filename: str) -> HttpResponse:
    response = HttpResponse(body, content_type=content_type)
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    return response


@login_required
@require_GET
def export_markdown(request: HttpRequest, task_id: int) -> HttpResponse:
    task = selectors.visible_task(task_id, request.user)
    draft = selectors.approved_report(task)
    if draft is None:
        return _not_approved(task)
    return _attachment(render_markdown(draft), "text/markdown; charset=utf-8", f"research-{task.pk}.md")


@login_required
@require_GET
def export_pdf(request: HttpRequest, task_id: int) -> HttpResponse:
    task = selectors.visible_task(task_id, request.user)
    draft = selectors.approved_report(task)
    if draft is None:
        return _not_approved(task)
    return _attachment(render_pdf(draft), "application/pdf", f"research-{task.pk}.pdf")
