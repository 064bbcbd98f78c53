"""Login throttling: django-axes's database handler, counting per username and per address apart.

Wrong passwords for one username, from any address, pause that username's logins (``LOGIN_FAILURE_LIMIT``):
spreading guesses over many addresses gains nothing, and its (username, address) pairs are counted in
it. An address is paused only past a much higher ceiling (``LOGIN_ADDRESS_FAILURE_LIMIT``): behind a
proxy or a shared office address, one person's typos must not lock out everyone else. A successful
login clears the failures of its own username only, so logging into one's own account cannot wipe the
failures an address piled up against someone else's.
"""

from __future__ import annotations

from axes.attempts import get_cool_off_threshold
from axes.handlers.database import AxesDatabaseHandler
from axes.helpers import get_client_username
from axes.models import AccessAttempt
from django.conf import settings
from django.db.models import Sum


class DeskLoginThrottle(AxesDatabaseHandler):
    def get_failures(self, request, credentials: dict | None = None) -> int:
        """Failures as axes compares them with ``AXES_FAILURE_LIMIT``: the username's own, or the
        address's shifted down by how much higher its ceiling is (so it reaches the limit only at
        ``AXES_ADDRESS_FAILURE_LIMIT``), whichever is nearer its limit."""
        recent = AccessAttempt.objects.filter(attempt_time__gte=get_cool_off_threshold(request))

        def failures(**match) -> int:
            return recent.filter(**match).aggregate(total=Sum("failures_since_start"))["total"] or 0

        username = get_client_username(request, credentials)
        by_username = failures(username=username) if username else 0
        by_address = failures(ip_address=request.axes_ip_address) if request.axes_ip_address else 0
        headroom = settings.AXES_ADDRESS_FAILURE_LIMIT - settings.AXES_FAILURE_LIMIT
        return max(by_username, by_address - headroom)

    def reset_user_attempts(self, request, credentials: dict | None = None) -> int:
        username = get_client_username(request, credentials)
        deleted, _ = AccessAttempt.objects.filter(username=username).delete() if username else (0, None)
        return deleted
