"""Apply a signed-in person's language and time zone to each request (after ``LocaleMiddleware``)."""

from __future__ import annotations

import zoneinfo

from django.utils import timezone, translation

from reviews.preferences import chosen_for


class PreferencesMiddleware:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        chosen = chosen_for(request)
        if chosen.language:
            translation.activate(chosen.language)
            request.LANGUAGE_CODE = translation.get_language()
        if chosen.time_zone:
            timezone.activate(zoneinfo.ZoneInfo(chosen.time_zone))
        try:
            return self.get_response(request)
        finally:
            timezone.deactivate()
