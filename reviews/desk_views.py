"""The desk around the gates: the review queues and claims, the audit trail, each person's preferences.

Views parse the request, authorise, call one service or read, and render (post/redirect/get for forms).
"""

from __future__ import annotations

import csv

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.contrib.auth.views import LoginView
from django.core.exceptions import ValidationError
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils import timezone
from django.utils.functional import SimpleLazyObject
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from researchapp import selectors
from researchapp.forms import LoginForm, first_error
from researchapp.labels import waited
from researchapp.models import Finding, ResearchTask, StaleState
from researchapp.web import error_text, fragment_key, require_analyst, rows_key
from reviews import claims, preferences
from reviews.claims import Item
from reviews.desk_forms import AuditFilterForm, ClaimForm, LanguageForm, PreferencesForm, QueueFilterForm
from reviews.models import ReviewDecision
from reviews.selectors import audit
from reviews.selectors.queues import QUEUES, queue_counts_for, queue_page


def _safe_next(request: HttpRequest, url: str, fallback: str) -> str:
    allowed = url_has_allowed_host_and_scheme(url, {request.get_host()}, require_https=request.is_secure())
    return url if url and allowed else fallback


# --- queues and claims ------------------------------------------------------------------------------


@login_required
@require_GET
def review_queue(request: HttpRequest) -> HttpResponse:
    require_analyst(request, _("The review queue is for analysts."))
    counts = queue_counts_for(request)
    busiest = next((name for name in QUEUES if counts.of(name)), "plans")
    form = QueueFilterForm(request.GET)
    filters = form.filters(default_queue=busiest, page=request.GET.get("page"))
    context = {
        "counts": counts,
        "queues": [(kind, counts.of(name)) for name, kind in QUEUES.items()],
        "filters": filters,
        "selects": [
            (form["age"], filters.age),
            (form["claim"], filters.claim),
            (form["sort"], "newest" if filters.newest_first else "oldest"),
        ],
        "queue": queue_page(request.user, filters),
        "here": request.get_full_path(),
        "claim_minutes": claims.claim_minutes(),
    }
    queue = context["queue"]
    shown = queue.shown()
    ages = [waited(row[5]) for row in shown]  # "waiting 5 minutes" moves on by itself
    page = queue.page
    shown = (shown, ages, filters, page.number, page.paginator.count, context["here"], request.user.pk)
    context["rows_key"] = rows_key("queue", *shown)
    return render(request, "review_queue.html", context)


@login_required
@require_POST
def claim(request: HttpRequest) -> HttpResponse:
    """Claim or release one item, then go back to where the analyst was (the queue by default)."""
    require_analyst(request, _("Only analysts can claim review items."))
    form = ClaimForm(request.POST)
    if not form.is_valid():
        messages.error(request, first_error(form))
        return redirect("review_queue")
    data = form.cleaned_data
    if data["object_type"] == ReviewDecision.ObjectType.FINDING:
        visible = ResearchTask.objects.visible_to(request.user)
        finding = get_object_or_404(
            Finding.objects.select_related("task"), pk=data["object_id"], task__in=visible
        )
        item = Item.of_finding(finding)
    else:
        item = Item(
            task=selectors.visible_task(data["object_id"], request.user), object_type=data["object_type"]
        )
    try:
        if data["action"] == "claim":
            held = claims.claim_take(actor=request.user, item=item)
            messages.success(request, _("Claimed until %(until)s.") % {"until": claims.held_until(held)})
        elif claims.claim_release(actor=request.user, item=item):
            messages.success(request, _("Released; anyone can take it now."))
        else:
            messages.info(request, _("You held no claim on that item."))
    except (ValidationError, StaleState) as error:
        messages.error(request, error_text(error))
    return redirect(_safe_next(request, data["next"], fallback=reverse("review_queue")))


# --- audit ------------------------------------------------------------------------------------------


@login_required
@require_GET
def task_audit(request: HttpRequest, task_id: int) -> HttpResponse:
    task = selectors.visible_task(task_id, request.user)
    context = {
        "task": task,
        "lines": SimpleLazyObject(lambda: audit.task_audit(task)),  # read if rendered
        # The audit is its events and the decisions recorded with them: it changes with them alone.
        "fragment_key": fragment_key(request, task, at_rest_only=False),
    }
    return render(request, "audit.html", context)


@login_required
@require_GET
def task_audit_csv(request: HttpRequest, task_id: int) -> HttpResponse:
    task = selectors.visible_task(task_id, request.user)
    return _csv(audit.task_audit(task), f"audit-task-{task.pk}.csv")


@login_required
@require_GET
def desk_audit(request: HttpRequest) -> HttpResponse:
    """What people did across tasks; a filter that names no task is refused (400) with the filter kept."""
    require_analyst(request, _("The audit across tasks is for analysts."))
    form = AuditFilterForm(request.GET)
    lines = audit.desk_audit(**form.filters()) if form.is_valid() else []
    context = {"task": None, "lines": lines, "form": form}
    return render(request, "audit.html", context, status=200 if form.is_valid() else 400)


@login_required
@require_GET
def desk_audit_csv(request: HttpRequest) -> HttpResponse:
    require_analyst(request, _("The audit across tasks is for analysts."))
    form = AuditFilterForm(request.GET)
    if not form.is_valid():
        return HttpResponse(first_error(form), status=400, content_type="text/plain; charset=utf-8")
    return _csv(audit.desk_audit(**form.filters(), limit=audit.CSV_LENGTH), "audit.csv")


def _cell(text: str) -> str:
    """A spreadsheet runs a cell that starts with = + - @ as a formula: such text is kept as text."""
    return f"'{text}" if text[:1] in ("=", "+", "-", "@", "\t", "\r") else text


def _csv(lines: list[audit.AuditLine], filename: str) -> HttpResponse:
    response = HttpResponse(content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    writer = csv.writer(response)
    writer.writerow([_("When"), _("Task"), _("Who"), _("Kind"), _("What"), _("Change"), _("Note"), _("Diff")])
    for line in lines:
        cells = [line.who, line.kind, line.what, line.change, line.note, "\n".join(line.diff)]
        writer.writerow([timezone.localtime(line.at).isoformat(), line.task_id, *map(_cell, cells)])
    return response


# --- preferences ------------------------------------------------------------------------------------


class DeskLoginView(LoginView):
    """Django's login, which then writes the person's language and time zone into their cookies."""

    template_name = "login.html"
    authentication_form = LoginForm  # says plainly why a demo account cannot log in here

    def form_valid(self, form) -> HttpResponse:
        response = super().form_valid(form)
        chosen = preferences.preference_of(form.get_user())
        if chosen.language or chosen.time_zone:
            preferences.write_cookies(
                self.request, response, language=chosen.language, time_zone=chosen.time_zone
            )
        return response


@login_required
@require_http_methods(["GET", "POST"])
def preferences_page(request: HttpRequest) -> HttpResponse:
    stored = preferences.preference_of(request.user)
    if request.method == "POST":
        form = PreferencesForm(request.POST)
        if form.is_valid():
            try:
                stored = preferences.preferences_save(user=request.user, **form.cleaned_data)
            except ValidationError as error:
                messages.error(request, error_text(error))
            else:
                messages.success(request, _("Preferences saved."))
                response = redirect("preferences")
                preferences.write_cookies(
                    request, response, language=stored.language, time_zone=stored.time_zone
                )
                return response
    else:
        form = PreferencesForm(
            initial={
                "email": request.user.email,
                "language": stored.language,
                "time_zone": stored.time_zone,
                "email_when_waiting": stored.email_when_waiting,
                "email_when_failed": stored.email_when_failed,
                "email_when_report_decided": stored.email_when_report_decided,
            }
        )
        if not stored.time_zone:  # static/js/desk.js offers the browser's zone first, under this label
            form.fields["time_zone"].widget.attrs["data-browser-zone-label"] = _("This browser’s time zone")
    return render(request, "preferences.html", {"form": form})


@require_POST
def language_switch(request: HttpRequest) -> HttpResponse:
    """The navigation's language switcher: a cookie for everyone, and the preference of whoever is in."""
    form = LanguageForm(request.POST)
    back = _safe_next(request, form.data.get("next", ""), fallback="/")
    if not form.is_valid():
        return redirect(back)
    language = form.cleaned_data["language"]
    time_zone = request.COOKIES.get(preferences.TIME_ZONE_COOKIE, "")
    if request.user.is_authenticated:
        time_zone = preferences.language_save(user=request.user, language=language).time_zone
    response = redirect(back)
    preferences.write_cookies(request, response, language=language, time_zone=time_zone)
    return response
