"""Each person's preferences: language, time zone and which emails they get.

The language and time zone are read on every page, so they are kept in the session (loaded from the
database once per session, written again when the person changes them): a page costs no query more.
"""

from __future__ import annotations

import zoneinfo
from dataclasses import dataclass
from functools import cache

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import transaction
from django.http import HttpRequest
from django.utils.translation import gettext as _

from reviews.models import UserPreference

SESSION_KEY = "desk_preferences"


@cache
def time_zones() -> list[str]:
    """Every IANA time zone name this Python knows, sorted (the preferences page offers them)."""
    return sorted(zoneinfo.available_timezones())


def language_codes() -> list[str]:
    return [code for code, _name in settings.LANGUAGES]


def preference_of(user) -> UserPreference:
    """The stored preferences, or the defaults (unsaved) for someone who never chose."""
    return UserPreference.objects.filter(user=user).first() or UserPreference(user=user)


@dataclass(frozen=True)
class Chosen:
    """The two preferences every page applies ("" = not chosen: the browser's language, the site's zone)."""

    language: str = ""
    time_zone: str = ""


def chosen_for(request: HttpRequest) -> Chosen:
    """The signed-in person's language and time zone, from the session (loaded there once)."""
    if not request.user.is_authenticated:
        return Chosen()
    stored = request.session.get(SESSION_KEY)
    if stored is None:
        preference = preference_of(request.user)
        stored = remember(request, preference)
    return Chosen(**stored)


def remember(request: HttpRequest, preference: UserPreference) -> dict:
    stored = {"language": preference.language, "time_zone": preference.time_zone}
    request.session[SESSION_KEY] = stored
    return stored


def preferences_save(
    *,
    user,
    language: str,
    time_zone: str,
    email: str,
    email_when_waiting: bool,
    email_when_failed: bool,
) -> UserPreference:
    """Store what ``user`` chose on the preferences page (their email address lives on the user)."""
    if language and language not in language_codes():
        raise ValidationError(_("Unknown language %(code)r.") % {"code": language})
    if time_zone and time_zone not in time_zones():
        raise ValidationError(_("Unknown time zone %(name)r.") % {"name": time_zone})
    with transaction.atomic():
        preference, _created = UserPreference.objects.update_or_create(
            user=user,
            defaults={
                "language": language,
                "time_zone": time_zone,
                "email_when_waiting": email_when_waiting,
                "email_when_failed": email_when_failed,
            },
        )
        if user.email != email:
            user.email = email
            user.save(update_fields=["email"])
    return preference


def language_save(*, user, language: str) -> None:
    """The navigation's language switcher, for a signed-in person: remembered with their preferences."""
    if language not in language_codes():
        raise ValidationError(_("Unknown language %(code)r.") % {"code": language})
    UserPreference.objects.update_or_create(user=user, defaults={"language": language})
