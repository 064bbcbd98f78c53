"""Words a worker stores for a person to read later, in that person's language.

A worker does not know who will read what it writes, nor in which language, and the pipeline imports
no Django. So it stores a *message*: the English text as a gettext msgid, with its parameters,
``{"msgid": "Dropped sub-question %(number)s.", "params": {"number": 2}}``, and the page renders it
through gettext when someone reads it (``researchapp.message_text``). The msgid is its own English
fallback: a message whose translation is missing, or whose wording has changed since it was stored,
still reads, in English.

A parameter is data (a sub-question's text, a URL, a count), shown as it is, unless it is a message
itself: then it is translated too ("while %(stage)s" with the stage's own word).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

type Message = dict[str, Any]


def gettext_noop(msgid: str) -> str:
    """Marks ``msgid`` for ``makemessages`` (which collects ``gettext_noop``'s argument) and returns it:
    the words are translated where they are read, not here."""
    return msgid


def message(msgid: str, /, **params: Any) -> Message:
    """A message to store: ``msgid`` (a ``gettext_noop`` literal) and its ``%(name)s`` parameters."""
    return {"msgid": msgid, "params": params} if params else {"msgid": msgid}


def plural_message(singular: str, plural: str, count: int, /, **params: Any) -> Message:
    """A message whose words follow ``count`` (``ngettext``); ``count`` is a parameter too."""
    return {"msgid": singular, "plural": plural, "count": count, "params": {"count": count, **params}}


def is_message(value: object) -> bool:
    return isinstance(value, Mapping) and isinstance(value.get("msgid"), str)


def english(stored: Mapping[str, Any]) -> str:
    """A message in English, as written in the code (logs, the command line, the stored fallback)."""
    return render(stored, lambda msgid: msgid, lambda one, many, n: one if n == 1 else many)


def render(stored: Mapping[str, Any], gettext, ngettext) -> str:
    """A message's words through ``gettext``/``ngettext``; its English when its translation does not
    take its parameters (a wording that changed since the row was stored)."""
    params = {name: render(value, gettext, ngettext) if is_message(value) else value
              for name, value in (stored.get("params") or {}).items()}  # fmt: skip
    if "plural" in stored:
        one, many, count = stored["msgid"], stored["plural"], int(stored.get("count") or 0)
        words, fallback = ngettext(one, many, count), (one if count == 1 else many)
    else:
        words, fallback = gettext(stored["msgid"]), stored["msgid"]
    if not params:
        return words
    for text in (words, fallback):
        try:
            return text % params
        except (KeyError, ValueError, TypeError):
            continue
    return fallback
