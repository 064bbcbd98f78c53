"""The small toolkit every view module shares, the research side's and the reviews app's: the htmx
request type, what a refused write says, the analyst check, numbers from the address or a form, and
what every gate page does.

It sits below the views and forms (``.importlinter``) and imports nothing of the reviews app, so both
apps' views use it.
"""

from __future__ import annotations

import functools
import hashlib
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from django import forms
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import BadRequest, PermissionDenied, ValidationError
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.template.loader import render_to_string
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.http import require_http_methods
from django.views.decorators.vary import vary_on_headers
from django_htmx.middleware import HtmxDetails

from researchapp import selectors
from researchapp.models import ResearchTask, StaleState
from researchapp.permissions import is_analyst


class HtmxHttpRequest(HttpRequest):
    """A request as django-htmx's middleware leaves it: ``request.htmx`` is true for htmx's requests."""

    htmx: HtmxDetails


# --- what a refused write says ----------------------------------------------------------------------


def error_text(error: ValidationError | StaleState) -> str:
    """A refused write in words: a validation error's messages, or who acted first."""
    return " ".join(error.messages) if isinstance(error, ValidationError) else str(error)


def apply_decision(request: HttpRequest, decide: Callable[[], object], *, success: str) -> bool:
    """Run one decision; say what happened, or why it did not (``StaleState``: someone was first)."""
    try:
        decide()
    except (ValidationError, StaleState) as error:
        messages.error(request, error_text(error))
        return False
    messages.success(request, success)
    return True


def require_analyst(request: HttpRequest, why: str = "") -> None:
    """A 403 that says ``why`` (by default, that deciding is for analysts) unless the user is one."""
    if not is_analyst(request.user):
        raise PermissionDenied(why or _("Only analysts can decide reviews."))


# --- numbers from the address or a form -----------------------------------------------------------

ID_MAX = 2**63 - 1  # the largest row id: a 64-bit integer in SQLite and PostgreSQL alike
# Only 0-9: ``str.isdigit`` is true for "²" (which ``int`` refuses) and for "٣" (which it reads as 3).
ASCII_DIGITS = re.compile(r"[0-9]+")


def whole_number(raw: object, *, minimum: int = 0, maximum: int = ID_MAX) -> int | None:
    """``raw`` as a whole number when it is the digits 0-9 (blanks around them allowed) and lies in
    ``[minimum, maximum]``; None otherwise. A number past ``ID_MAX`` never reaches the database,
    where SQLite cannot even compare it."""
    text = raw.strip() if isinstance(raw, str) else ""
    significant = text.lstrip("0")
    if not ASCII_DIGITS.fullmatch(text) or len(significant) > len(str(maximum)):
        return None
    number = int(significant or "0")
    return number if minimum <= number <= maximum else None


class BadParameter(BadRequest):
    """A number in the address that is not one; ``answers_bad_parameters`` answers 400 with the reason."""


def number_param(
    params: Mapping[str, str],
    name: str,
    *,
    default: int | None = None,
    minimum: int = 1,
    maximum: int = ID_MAX,
) -> int:
    """The parameter ``name`` as a whole number; ``default`` when it is absent (required without one)."""
    raw = params.get(name, "")
    if default is not None and not raw.strip():
        return default
    number = whole_number(raw, minimum=minimum, maximum=maximum)
    if number is None:
        raise BadParameter(
            _("“%(name)s” must be a whole number from %(low)s to %(high)s in the digits 0–9, not “%(raw)s”.")
            % {"name": name, "low": minimum, "high": maximum, "raw": raw[:40]}
        )
    return number


def answers_bad_parameters(view: Callable[..., HttpResponse]) -> Callable[..., HttpResponse]:
    """The error page with status 400 and the reason, for a view whose ``number_param`` refused."""

    @functools.wraps(view)
    def answered(request: HttpRequest, *args, **kwargs) -> HttpResponse:
        try:
            return view(request, *args, **kwargs)
        except BadParameter as error:
            return render(request, "400.html", {"detail": str(error)}, status=400)

    return answered


class WholeNumberField(forms.IntegerField):
    """A form's id, version or offset: the digits 0-9 within range (``whole_number``), else the form's
    own error; by default a row id (1 to ``ID_MAX``)."""

    default_error_messages = {"invalid": gettext_lazy("Enter a whole number in the digits 0–9.")}

    def __init__(self, *, min_value: int = 1, max_value: int = ID_MAX, **kwargs) -> None:
        super().__init__(min_value=min_value, max_value=max_value, **kwargs)

    def to_python(self, value: Any) -> int | None:
        """The number, its sign kept and a huge one cut to just past ``ID_MAX``: the range is the
        validators' to refuse, and their messages say what it is."""
        if value in self.empty_values:
            return None
        text = str(value).strip()
        digits = text.removeprefix("-")
        if not ASCII_DIGITS.fullmatch(digits):
            raise ValidationError(self.error_messages["invalid"], code="invalid")
        number = whole_number(digits)
        magnitude = ID_MAX + 1 if number is None else number
        return -magnitude if text.startswith("-") else magnitude


def with_nav_count(request: HttpRequest, response: HttpResponse) -> HttpResponse:
    """An htmx answer to an analyst also brings the navigation's fresh queue count, which htmx swaps
    in by its id (out of band): the count follows decisions and moves without a page load."""
    if getattr(request, "htmx", False) and is_analyst(request.user):
        count = render_to_string("partials/nav_count.html", {"oob": True}, request=request)
        response.content = response.content + count.encode()
    return response


# --- what every gate page does ----------------------------------------------------------------------


@dataclass(frozen=True)
class GateOutcome:
    """What a gate page's ``decide`` step hands to the page rendered after it.

    ``again``: what the analyst sent, shown again instead of redirecting (a refused form with their
    input, a page just opened to select from); ``focus``: what the fragment puts focus back on (the
    plan row a Move button moved). A redirect starts a fresh page, so ``focus`` serves htmx only.
    """

    again: Any = None
    focus: Any = None


# A task in one of these is not written by any worker: only a decision changes what its pages show.
AT_REST = ResearchTask.AWAITING | ResearchTask.FINISHED


def fragment_key(request: HttpRequest, task: ResearchTask, *, at_rest_only: bool = True) -> str:
    """What a page's cached fragments of ``task`` are keyed on (``{% cachedfragment %}``), or "" (not
    cached): a GET of a task at rest, as an analyst or not. Every write a page shows writes an event
    (the audit log), in the task's transaction: its count and last id, with the status and
    ``updated_at`` of every transition, change with anything shown. Posted input shown again is never
    cached, nor is a task a worker is writing to (unless the page shows only what events say:
    ``at_rest_only=False``)."""
    if request.method != "GET" or not hasattr(task, "n_events"):
        return ""
    if at_rest_only and task.status not in AT_REST:
        return ""
    stamp = task.updated_at.timestamp() if task.updated_at else 0
    role = "analyst" if is_analyst(request.user) else "reader"
    return f"task{task.pk}:{task.status}:{stamp}:{task.n_events}:{task.last_event_id}:{role}"


def rows_key(name: str, *shown: Any) -> str:
    """What a list page's cached rows are keyed on (``{% cachedfragment %}``): a digest of every value
    the rows show, read by the page's query anyway, so a cached list is never stale (the reader's
    language and time zone are the tag's to add)."""
    return f"{name}:" + hashlib.sha256(repr(shown).encode()).hexdigest()


Decide = Callable[[HttpRequest, ResearchTask], GateOutcome]
ContextFor = Callable[[HttpRequest, ResearchTask, GateOutcome], dict]


def gate_page(
    request: HtmxHttpRequest,
    task_id: int,
    *,
    decide: Decide,
    context_for: ContextFor,
    page: str,
    fragment: str,
) -> HttpResponse:
    """Show the gate; on an analyst's POST, ``decide`` first.

    After a POST the page is rendered again from fresh data (``fragment`` for htmx), so what the
    analyst sees is what is stored; without htmx the browser is redirected (post/redirect/get) unless
    the outcome has something to show ``again``.
    """
    task = selectors.visible_task(task_id, request.user)
    outcome = GateOutcome()
    if request.method == "POST":
        require_analyst(request)
        outcome = decide(request, task)
        if not request.htmx and outcome.again is None:
            return redirect(request.path)
        task = selectors.visible_task(task_id, request.user)  # as the decision left it
    context = {
        "task": task,
        "fragment_key": fragment_key(request, task),
        **context_for(request, task, outcome),
    }
    response = render(request, fragment if request.htmx else page, context)
    return with_nav_count(request, response) if request.method == "POST" else response


def gate_view(
    *, decide: Decide, context_for: ContextFor, page: str, fragment: str
) -> Callable[..., HttpResponse]:
    """A gate page's view (``gate_page`` with these steps): for people logged in, GET or POST, and
    varying on ``HX-Request`` (htmx gets the fragment, a browser the page)."""

    @login_required
    @vary_on_headers("HX-Request")
    @require_http_methods(["GET", "POST"])
    def view(request: HtmxHttpRequest, task_id: int) -> HttpResponse:
        return gate_page(
            request, task_id, decide=decide, context_for=context_for, page=page, fragment=fragment
        )

    return view
