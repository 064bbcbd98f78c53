"""Roles are groups: ``researcher`` submits and sees their own tasks, ``analyst`` sees and reviews all."""

from __future__ import annotations

RESEARCHER = "researcher"
ANALYST = "analyst"


def remember_groups(user, groups: dict[str, bool]) -> None:
    """What the user's query already said of their groups (``DeskBackend.get_user``)."""
    _known_groups(user).update(groups)


def _known_groups(user) -> dict[str, bool]:
    # getattr and setattr, not ``user.__dict__``: ``request.user`` is a lazy wrapper, which passes them
    # on to the user itself.
    known = getattr(user, "_desk_groups", None)
    if known is None:
        known = {}
        user._desk_groups = known
    return known


def in_group(user, group: str) -> bool:
    """Whether ``user`` belongs to ``group``; asked once per user object (a page asks often)."""
    known = _known_groups(user)
    if group not in known:
        known[group] = user.groups.filter(name=group).exists()
    return known[group]


def is_analyst(user) -> bool:
    if not user.is_authenticated:
        return False
    return user.is_superuser or in_group(user, ANALYST)


def can_submit(user) -> bool:
    return is_analyst(user) or (user.is_authenticated and in_group(user, RESEARCHER))


def can_view_task(user, task) -> bool:
    return user.is_authenticated and (task.owner_id == user.pk or is_analyst(user))
