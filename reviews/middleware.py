"""Apply the time zone a person chose, from its cookie (``LocaleMiddleware`` applies their language).

The cookies are written from the stored preferences at login and whenever they change (see
``reviews.preferences``), so no request reads the database or the session for them.
"""

from __future__ import annotations

import zoneinfo

from django.utils import timezone

from reviews.preferences import TIME_ZONE_COOKIE, time_zones


class PreferencesMiddleware:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        chosen = request.COOKIES.get(TIME_ZONE_COOKIE, "")
        if chosen in time_zones():
            timezone.activate(zoneinfo.ZoneInfo(chosen))
        try:
            return self.get_response(request)
        finally:
            timezone.deactivate()
