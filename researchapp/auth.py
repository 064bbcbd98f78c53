"""Authentication: the demo accounts log in only in the embedded profile.

``demo_setup`` refuses to create them elsewhere, but a database copied from a laptop, or a profile
switched after the fact, would still hold ``analyst`` / ``demo``; this backend refuses them at login.
Throttling (django-axes) runs first, in ``AUTHENTICATION_BACKENDS``.
"""

from __future__ import annotations

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.backends import ModelBackend
from django.contrib.auth.models import Group
from django.db.models import Exists, OuterRef
from django.utils.translation import gettext_lazy

from researchapp.demo import DEMO_ACCOUNTS
from researchapp.permissions import ANALYST, RESEARCHER, remember_groups

DEMO_REFUSED = gettext_lazy(
    "The demo accounts (%(names)s) log in only in the embedded profile (`make run`). "
    "Ask an administrator for an account."
)


def is_refused_demo_account(username: str | None) -> bool:
    return settings.PROFILE != "embedded" and (username or "") in DEMO_ACCOUNTS


class DeskBackend(ModelBackend):
    def user_can_authenticate(self, user) -> bool:
        return super().user_can_authenticate(user) and not is_refused_demo_account(user.get_username())

    def get_user(self, user_id):
        """The signed-in user of a request, with their roles in the same query: every page asks
        whether they are an analyst, and would otherwise ask the database once more."""
        roles = {
            f"in_{role}": Exists(Group.objects.filter(user=OuterRef("pk"), name=role))
            for role in (ANALYST, RESEARCHER)
        }
        user = get_user_model()._default_manager.annotate(**roles).filter(pk=user_id).first()
        if user is None or not self.user_can_authenticate(user):
            return None
        remember_groups(user, {role: getattr(user, f"in_{role}") for role in (ANALYST, RESEARCHER)})
        return user
