"""Roles are groups: ``researcher`` submits and sees their own tasks, ``analyst`` sees and reviews all."""

from __future__ import annotations

RESEARCHER = "researcher"
ANALYST = "analyst"


def in_group(user, group: str) -> bool:
    """Whether ``user`` belongs to ``group``; asked once per user object (a page asks often)."""
    cache = user.__dict__.setdefault("_desk_groups", {})
    if group not in cache:
        cache[group] = user.groups.filter(name=group).exists()
    return cache[group]


def is_analyst(user) -> bool:
    if not user.is_authenticated:
        return False
    return user.is_superuser or in_group(user, ANALYST)


def can_submit(user) -> bool:
    return is_analyst(user) or (user.is_authenticated and in_group(user, RESEARCHER))


def can_view_task(user, task) -> bool:
    return user.is_authenticated and (task.owner_id == user.pk or is_analyst(user))
