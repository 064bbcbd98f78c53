"""Roles are groups: ``researcher`` submits and sees their own tasks, ``analyst`` sees and reviews all."""

from __future__ import annotations

RESEARCHER = "researcher"
ANALYST = "analyst"


def is_analyst(user) -> bool:
    if not user.is_authenticated:
        return False
    if user.is_superuser:
        return True
    cached = getattr(user, "_is_analyst", None)
    if cached is None:
        cached = user.groups.filter(name=ANALYST).exists()
        user._is_analyst = cached
    return cached


def can_submit(user) -> bool:
    if not user.is_authenticated:
        return False
    if is_analyst(user):
        return True
    cached = getattr(user, "_is_researcher", None)
    if cached is None:
        cached = user.groups.filter(name=RESEARCHER).exists()
        user._is_researcher = cached
    return cached


def can_view_task(user, task) -> bool:
    return user.is_authenticated and (task.owner_id == user.pk or is_analyst(user))
