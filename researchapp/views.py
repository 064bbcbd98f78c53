"""Web views of the research side: parse the request, authorise, call one service or selector, render.

The gates' pages (plan, evidence and report review) are the reviews app's.
"""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied, ValidationError
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.template.loader import render_to_string
from django.utils.functional import SimpleLazyObject
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_POST
from django.views.decorators.vary import vary_on_headers
from django_htmx.http import HttpResponseStopPolling

from researchapp import selectors
from researchapp.exports.ledger import ledger_json
from researchapp.exports.markdown import render_markdown
from researchapp.exports.pdf import PdfRenderError, render_pdf
from researchapp.forms import SubmitForm
from researchapp.models import IllegalTransition, StaleState
from researchapp.permissions import can_submit, is_analyst
from researchapp.services import audit, submission
from researchapp.services.quota import QuotaReached
from researchapp.web import HtmxHttpRequest, error_text, fragment_key, rows_key, with_nav_count

# --- tasks ----------------------------------------------------------------------------------------


@login_required
@require_GET
def task_list(request: HttpRequest) -> HttpResponse:
    demo = selectors.demo_question()
    return _task_list_page(request, SubmitForm(initial={"question": demo} if demo else None), demo=demo)


def _task_list_page(
    request: HttpRequest, form: SubmitForm, status: int = 200, demo: str | None = None
) -> HttpResponse:
    tasks = selectors.task_list_for(request.user, request.GET.get("page"))
    shown = [
        (t.pk, t.question, t.owner.get_username(), t.status, t.n_sources, t.n_needing_review, t.created_at)
        for t in tasks
    ]
    submit = can_submit(request.user)
    context = {
        "form": form,
        # The blank form (a GET) is the same for everyone who may submit: its widgets are rendered once.
        "form_key": "" if form.is_bound else f"blank:{submit}:{bool(demo)}",
        "tasks": tasks,
        "rows_key": rows_key("tasks", shown, tasks.number, tasks.paginator.count, is_analyst(request.user)),
        "can_submit": submit,
        "demo_question": selectors.demo_question() if demo is None else demo,
    }
    return render(request, "task_list.html", context, status=status)


@login_required
@require_POST
def task_submit(request: HttpRequest) -> HttpResponse:
    if not can_submit(request.user):
        raise PermissionDenied(_("Only researchers and analysts can submit questions."))
    form = SubmitForm(request.POST)
    status = 400
    if form.is_valid():
        try:
            task = submission.task_submit(
                owner=request.user, question=form.cleaned_data["question"], depth=form.cleaned_data["depth"]
            )
        except ValidationError as error:
            form.add_error("question", error)
            status = 429 if isinstance(error, QuotaReached) else 400  # a limit: "not now", not "wrong"
        else:
            messages.success(request, _("Task %(n)s submitted.") % {"n": task.pk})
            return redirect("task_detail", task.pk)
    return _task_list_page(request, form, status=status)


def _task_page_context(request: HttpRequest, task_id: int) -> dict:
    """The task (with its events' count and last id), its live claims, and its detail, lazily: at rest
    the progress fragment is cached (``fragment_key``), and a cached fragment never reads it."""
    task = selectors.visible_task(task_id, request.user)
    return {
        "task": task,
        "detail": SimpleLazyObject(lambda: selectors.task_detail(task_id, request.user)),
        "fragment_key": fragment_key(request, task),
        "claims": selectors.live_claims(task),
    }


@login_required
@require_GET
def task_detail(request: HttpRequest, task_id: int) -> HttpResponse:
    return render(request, "task_detail.html", _task_page_context(request, task_id))


@login_required
@require_GET
def task_progress(request: HttpRequest, task_id: int) -> HttpResponse:
    """The polled fragment, with the navigation's count; 286 tells htmx to stop polling once the task
    can no longer move (approved or cancelled). At a gate, or failed, a person may still move it on."""
    context = _task_page_context(request, task_id)
    html = render_to_string("task_detail.html#progress", context, request=request)
    response = HttpResponseStopPolling(html) if context["task"].is_finished else HttpResponse(html)
    return with_nav_count(request, response)


@login_required
@require_POST
def task_cancel(request: HttpRequest, task_id: int) -> HttpResponse:
    task = selectors.visible_task(task_id, request.user)
    try:
        submission.task_cancel(task=task, actor=request.user)
    except (IllegalTransition, StaleState):
        task.refresh_from_db(fields=["status"])
        messages.error(
            request,
            _("The task is %(status)s and can no longer be cancelled.")
            % {"status": task.get_status_display()},
        )
    else:
        messages.success(request, _("The task is cancelled."))
    return redirect("task_detail", task.pk)


@login_required
@require_POST
def task_resume(request: HttpRequest, task_id: int) -> HttpResponse:
    # A deliberate parallel of task_cancel: one action on the task, then back to its page.
    task = selectors.visible_task(task_id, request.user)
    try:
        submission.task_resume(task=task, actor=request.user)
    except ValidationError as error:
        messages.error(request, error_text(error))
    except (IllegalTransition, StaleState):
        messages.error(request, _("Someone else resumed or cancelled the task first."))
    else:
        messages.success(
            request, _("Resumed: the task is %(status)s again.") % {"status": task.get_status_display()}
        )
    return redirect("task_detail", task.pk)


# --- evidence in context -------------------------------------------------------------------------


@login_required
@vary_on_headers("HX-Request")
@require_GET
def evidence_context(request: HtmxHttpRequest, evidence_id: int) -> HttpResponse:
    context = selectors.evidence_context(evidence_id, request.user)
    template = "evidence_context.html#context" if request.htmx else "evidence_context.html"
    return render(request, template, {"ctx": context, "task": context.evidence.task})


# --- exports --------------------------------------------------------------------------------------


# Each format: how to render an approved draft, its content type, and the file name's suffix.
EXPORTS = {
    "markdown": (render_markdown, "text/markdown; charset=utf-8", "md"),
    "pdf": (render_pdf, "application/pdf", "pdf"),
    "json": (ledger_json, "application/json", "json"),
}


@login_required
@require_GET
def export_report(request: HttpRequest, task_id: int, export_format: str) -> HttpResponse:
    """The approved report as a download; 409 with the reason while there is none."""
    task = selectors.visible_task(task_id, request.user)
    draft = selectors.approved_report(task)
    if draft is None:
        return HttpResponse(
            _("Task %(n)s has no approved report yet (%(status)s); only an approved report can be exported.")
            % {"n": task.pk, "status": task.get_status_display()},
            status=409,
            content_type="text/plain; charset=utf-8",
        )
    render, content_type, suffix = EXPORTS[export_format]
    try:
        body = render(draft)
    except PdfRenderError as error:
        return HttpResponse(str(error), status=503, content_type="text/plain; charset=utf-8")
    response = HttpResponse(body, content_type=content_type)
    audit.report_exported(draft=draft, actor=request.user, export_format=export_format)
    response["Content-Disposition"] = f'attachment; filename="research-{task.pk}.{suffix}"'
    return response
