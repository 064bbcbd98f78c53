"""Forms of the desk around the gates: queue filters, claims, preferences and the language switcher."""

from __future__ import annotations

from django import forms
from django.conf import settings
from django.utils.translation import gettext_lazy as _

from researchapp.web import whole_number
from reviews.models import ReviewDecision
from reviews.preferences import time_zones
from reviews.selectors.queues import QUEUES, QueueFilters


def task_number(text: str) -> int | None:
    """A task named by its number, as people type it: "12" or "#12"; None for anything else."""
    return whole_number(text.strip().removeprefix("#"), minimum=1)


class QueueFilterForm(forms.Form):
    """The queue page's filters (GET); anything malformed falls back to "no filter"."""

    queue = forms.ChoiceField(choices=[(name, kind.label) for name, kind in QUEUES.items()], required=False)
    task = forms.CharField(required=False, max_length=200, label=_("Task"))
    owner = forms.CharField(required=False, max_length=150, label=_("Owner"))
    age = forms.ChoiceField(
        required=False,
        label=_("Waiting"),
        choices=[
            ("", _("any time")),
            ("1h", _("over an hour")),
            ("1d", _("over a day")),
            ("7d", _("over a week")),
        ],
    )
    claim = forms.ChoiceField(
        required=False,
        label=_("Claim"),
        choices=[
            ("", _("any")),
            ("unclaimed", _("unclaimed")),
            ("mine", _("claimed by me")),
            ("others", _("claimed by others")),
        ],
    )
    sort = forms.ChoiceField(
        required=False,
        label=_("Sort"),
        choices=[("oldest", _("oldest first")), ("newest", _("newest first"))],
    )

    def filters(self, *, default_queue: str, page: str | None) -> QueueFilters:
        data = self.cleaned_data if self.is_valid() else {}
        task = data.get("task", "")
        return QueueFilters(
            queue=data.get("queue") or default_queue,
            task=task,
            task_id=task_number(task),
            owner=data.get("owner", ""),
            age=data.get("age", ""),
            claim=data.get("claim", ""),
            newest_first=data.get("sort") == "newest",
            page=page or "1",
        )


ITEM_TYPES = "|".join(ReviewDecision.ObjectType.values)
ITEM_KEY = rf"^({ITEM_TYPES}):[1-9][0-9]{{0,17}}$"


class AuditFilterForm(forms.Form):
    """The audit's filters (GET): whose acts, and which task ("12" or "#12")."""

    who = forms.CharField(required=False, max_length=150)
    task = forms.CharField(required=False, max_length=40)

    def clean_task(self) -> str:
        task = self.cleaned_data["task"]
        if task.strip() and task_number(task) is None:
            raise forms.ValidationError(_("Name a task by its number, such as 12 or #12."), code="task")
        return task

    def filters(self) -> dict:
        """The audit read's keywords (``desk_audit(who=..., task_id=...)``) of a valid form."""
        task = self.cleaned_data["task"]
        return {"who": self.cleaned_data["who"], "task_id": task_number(task) if task.strip() else None}


class ClaimForm(forms.Form):
    """The queue's one form: the button pressed says what to do with which item, as ``claim=finding:12``
    or ``release=plan:5`` (a plan's or a report's item is named by its task, a finding by itself)."""

    claim = forms.RegexField(ITEM_KEY, required=False)
    release = forms.RegexField(ITEM_KEY, required=False)
    next = forms.CharField(required=False, max_length=2000)

    def clean(self) -> dict:
        data = super().clean()
        pressed = [action for action in ("claim", "release") if data.get(action)]
        if len(pressed) != 1:
            raise forms.ValidationError(_("Press one button: claim or release one item."))
        object_type, _colon, number = data[pressed[0]].partition(":")
        data.update(action=pressed[0], object_type=object_type, object_id=int(number))
        return data


def zones_by_region() -> list[tuple[str, list[tuple[str, str]]]]:
    """Every time zone, grouped by its region ("Europe/Paris" under Europe), regions and zones in
    alphabetical order; the zones without a region (UTC, "Cuba") last, together."""
    regions: dict[str, list[tuple[str, str]]] = {}
    others: list[tuple[str, str]] = []
    for name in sorted(time_zones()):
        region, _slash, _place = name.partition("/")
        (regions.setdefault(region, []) if _slash else others).append((name, name))
    return [*sorted(regions.items()), (str(_("Other time zones")), others)]


class PreferencesForm(forms.Form):
    email = forms.EmailField(required=False, label=_("Email address"))
    language = forms.ChoiceField(
        required=False, label=_("Language"), choices=[("", _("As my browser asks")), *settings.LANGUAGES]
    )
    time_zone = forms.ChoiceField(
        required=False,
        label=_("Time zone"),
        choices=lambda: [("", _("The site’s (%(zone)s)") % {"zone": settings.TIME_ZONE}), *zones_by_region()],
    )
    email_when_waiting = forms.BooleanField(
        required=False, label=_("Email me when a task waits for review (analysts)")
    )
    email_when_failed = forms.BooleanField(required=False, label=_("Email me when one of my tasks fails"))
    email_when_report_decided = forms.BooleanField(
        required=False, label=_("Email me when the report of one of my tasks is approved or sent back")
    )


class LanguageForm(forms.Form):
    language = forms.ChoiceField(choices=settings.LANGUAGES)
    next = forms.CharField(required=False, max_length=2000)
