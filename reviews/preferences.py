"""Each person's preferences: language, time zone and which emails they get.

Pages apply the language and time zone from two cookies, so that no request (a health check
included) reads the database or the session for them: ``django_language``, which Django's
``LocaleMiddleware`` reads, and ``desk_time_zone``, which ``reviews.middleware`` reads. The cookies
are written from the stored preferences when someone logs in (in any browser: ``DeskLoginView``) and
whenever they change them (the preferences page, the navigation's language switch).
"""

from __future__ import annotations

import zoneinfo
from functools import cache

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import transaction
from django.http import HttpRequest, HttpResponse
from django.utils.translation import gettext as _

from reviews.models import UserPreference

TIME_ZONE_COOKIE = "desk_time_zone"
COOKIE_AGE = 365 * 24 * 3600


@cache
def time_zones() -> frozenset[str]:
    """Every IANA time zone name this Python knows."""
    return frozenset(zoneinfo.available_timezones())


def language_codes() -> list[str]:
    return [code for code, _name in settings.LANGUAGES]


def preference_of(user) -> UserPreference:
    """The stored preferences, or the defaults (unsaved) for someone who never chose."""
    return UserPreference.objects.filter(user=user).first() or UserPreference(user=user)


def write_cookies(request: HttpRequest, response: HttpResponse, *, language: str, time_zone: str) -> None:
    """Write the cookies the pages read; an empty choice removes its cookie (then the browser's
    language, or the site's time zone, applies)."""
    options = {"max_age": COOKIE_AGE, "samesite": "Lax", "secure": request.is_secure()}
    for name, value in ((settings.LANGUAGE_COOKIE_NAME, language), (TIME_ZONE_COOKIE, time_zone)):
        if value:
            response.set_cookie(name, value, **options)
        else:
            response.delete_cookie(name, samesite="Lax")


def preferences_save(
    *,
    user,
    language: str,
    time_zone: str,
    email: str,
    email_when_waiting: bool,
    email_when_failed: bool,
    email_when_report_decided: bool,
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
                "email_when_report_decided": email_when_report_decided,
            },
        )
        if user.email != email:
            user.email = email
            user.save(update_fields=["email"])
    return preference


def language_save(*, user, language: str) -> UserPreference:
    """The navigation's language switch, for a signed-in person: remembered with their preferences."""
    if language not in language_codes():
        raise ValidationError(_("Unknown language %(code)r.") % {"code": language})
    preference, _created = UserPreference.objects.update_or_create(user=user, defaults={"language": language})
    return preference
