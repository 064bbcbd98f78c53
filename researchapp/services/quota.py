"""Per-person submission limits: tasks in flight, tasks and model tokens in any 24 hours.

Each is a setting (``RESEARCH_QUOTA_*``, 0 for none) that an administrator can change for one person
(``SubmissionQuota`` in the admin). ``quota_check`` runs inside the submission's transaction with the
person's row locked, so a burst of simultaneous submissions is counted one at a time.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.db.models import F, Sum
from django.utils import timezone
from django.utils.timesince import timeuntil
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from researchapp.models import LLMCall, ResearchTask, SubmissionQuota

DAY = timedelta(hours=24)
# Tasks that no longer run or wait for anyone: they spend nothing more.
SETTLED = (ResearchTask.Status.APPROVED, ResearchTask.Status.CANCELLED, ResearchTask.Status.FAILED)


class QuotaReached(ValidationError):
    """A submission over one of the person's limits; the message says which and when it frees up."""


@dataclass(frozen=True)
class Limits:
    tasks_in_flight: int
    tasks_per_day: int
    tokens_per_day: int


def limits_for(user) -> Limits:
    """The site's limits, with any the administrator set for this person in their place."""
    conf = settings.RESEARCH
    own = SubmissionQuota.objects.filter(user=user).first()

    def pick(mine: int | None, site: int) -> int:
        return site if mine is None else mine

    return Limits(
        tasks_in_flight=pick(own and own.tasks_in_flight, conf["QUOTA_TASKS_IN_FLIGHT"]),
        tasks_per_day=pick(own and own.tasks_per_day, conf["QUOTA_TASKS_PER_DAY"]),
        tokens_per_day=pick(own and own.tokens_per_day, conf["QUOTA_TOKENS_PER_DAY"]),
    )


def quota_check(owner) -> None:
    """Raise ``QuotaReached`` if one more task would take ``owner`` past a limit. Call it inside the
    transaction that creates the task: it locks the owner's row until that transaction ends."""
    get_user_model().objects.select_for_update().filter(pk=owner.pk).first()
    limits, now = limits_for(owner), timezone.now()
    for check, limit in (
        (_in_flight, limits.tasks_in_flight),
        (_per_day, limits.tasks_per_day),
        (_tokens, limits.tokens_per_day),
    ):
        if limit and (problem := check(owner, limit, now)):
            raise QuotaReached(problem, code="quota")


def _in_flight(owner, limit: int, now: datetime) -> str:
    running = ResearchTask.objects.filter(owner=owner).exclude(status__in=SETTLED).count()
    if running < limit:
        return ""
    return ngettext(
        "You have %(count)d task in progress, your limit. Submit again when it has finished or after you "
        "cancel it.",
        "You have %(count)d tasks in progress, your limit. Submit again when one has finished or after you "
        "cancel one.",
        running,
    ) % {"count": running}


def _per_day(owner, limit: int, now: datetime) -> str:
    recent = list(
        ResearchTask.objects.filter(owner=owner, created_at__gt=now - DAY)
        .order_by("created_at")
        .values_list("created_at", flat=True)
    )
    if len(recent) < limit:
        return ""
    frees = recent[len(recent) - limit] + DAY  # when the oldest task that counts leaves the window
    return _(
        "You have submitted %(count)d tasks in the last 24 hours, your limit. Try again in %(wait)s."
    ) % {
        "count": len(recent),
        "wait": timeuntil(frees, now),
    }


def _tokens(owner, limit: int, now: datetime) -> str:
    spent, frees = _tokens_in_window(owner, now, limit)
    if frees is None:
        return ""
    return _(
        "Your tasks used %(spent)s model tokens in the last 24 hours; your limit is %(limit)s. "
        "Try again in %(wait)s."
    ) % {"spent": f"{spent:,}", "limit": f"{limit:,}", "wait": timeuntil(frees, now)}


def _tokens_in_window(owner, now: datetime, limit: int) -> tuple[int, datetime | None]:
    """Tokens the owner's tasks spent in the last 24 hours, and, if that reaches ``limit``, when
    enough of it will have aged out of the window to leave room again."""
    calls = LLMCall.objects.filter(task__owner=owner, at__gt=now - DAY)
    spent = calls.aggregate(total=Sum(F("tokens_in") + F("tokens_out")))["total"] or 0
    if spent < limit:
        return spent, None
    remaining = spent
    for at, used in (
        calls.order_by("at").annotate(used=F("tokens_in") + F("tokens_out")).values_list("at", "used")
    ):
        remaining -= used
        if remaining < limit:
            return spent, at + DAY
    return spent, now + DAY
