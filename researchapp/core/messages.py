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

from collections.abc import Callable, Mapping
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
    """A message whose words follow ``count``; ``count`` is a parameter too."""
    return {"msgid": singular, "plural": plural, "count": count, "params": {"count": count, **params}}


def is_message(value: object) -> bool:
    return isinstance(value, Mapping) and isinstance(value.get("msgid"), str)


def english(stored: Mapping[str, Any]) -> str:
    """A message in English, as written in the code (logs, the command line, the stored fallback)."""
    return render(stored, lambda msgid: msgid)


def render(stored: Mapping[str, Any], gettext: Callable[[str], str]) -> str:
    """A message's words through ``gettext``; its English when its translation does not take its
    parameters (a wording that changed since the row was stored)."""
    params = {name: render(value, gettext) if is_message(value) else value
              for name, value in (stored.get("params") or {}).items()}  # fmt: skip
    if "plural" in stored:
        # Each form is a msgid of its own (``makemessages`` sees two ``gettext_noop``s): English picks
        # by the count, and Chinese, the other language, has one form for every count.
        one, many, count = stored["msgid"], stored["plural"], int(stored.get("count") or 0)
        fallback = one if count == 1 else many
        words = gettext(fallback)
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


# A stage or a gate named inside a message ("Failed while %(stage)s"), in the reader's words.
STAGE_WORDS = {
    "submitted": gettext_noop("submission"),
    "planning": gettext_noop("planning"),
    "collecting": gettext_noop("collecting"),
    "analysing": gettext_noop("analysing"),
    "writing": gettext_noop("writing"),
    "awaiting_plan_review": gettext_noop("plan review"),
    "awaiting_evidence_review": gettext_noop("evidence review"),
    "awaiting_report_review": gettext_noop("report review"),
    "approved": gettext_noop("approval"),
    "failed": gettext_noop("failure"),
    "cancelled": gettext_noop("cancellation"),
    "export": gettext_noop("export"),
}


def stage_word(stage: str) -> Message | str:
    """``stage`` as a message to nest in another (its code as it is when it has no word)."""
    word = STAGE_WORDS.get(str(stage))
    return message(word) if word else str(stage)


# A reviewer's decision named inside a message ("…: kept as disputed"), in the reader's words.
DECISION_WORDS = {
    "pick_supports": gettext_noop("side A picked"),
    "pick_contradicts": gettext_noop("side B picked"),
    "disputed": gettext_noop("kept as disputed"),
    "gap": gettext_noop("kept as a gap"),
    "drop": gettext_noop("dropped"),
    "flag": gettext_noop("flagged to verify"),
    "more_research": gettext_noop("more research asked"),
    "accept": gettext_noop("accepted"),
    "reject": gettext_noop("rejected"),
    "reopen": gettext_noop("reopened"),
    "keep_open": gettext_noop("kept open"),
}


def decision_word(decision: str) -> Message | str:
    word = DECISION_WORDS.get(decision)
    return message(word) if word else decision.replace("_", " ")


def with_note(base: Message, note: str) -> Message:
    """``base`` followed by the person's own note, when they wrote one ("… — because …")."""
    if not note.strip():
        return base
    return message(gettext_noop("%(what)s — %(note)s"), what=base, note=note.strip())


# A plan's intent and a finding's confidence named inside a message or on a page.
INTENT_WORDS = {
    "descriptive": gettext_noop("descriptive"),
    "comparative": gettext_noop("comparative"),
    "recommendation": gettext_noop("recommendation"),
}


def intent_word(intent: str) -> Message | str:
    word = INTENT_WORDS.get(str(intent))
    return message(word) if word else str(intent)


# Who drafted, and where it searched, named inside a message or on a page.
ENGINE_WORDS = {
    "extractive": gettext_noop("extractive"),
    "openai": gettext_noop("OpenAI-compatible"),
    "local": gettext_noop("local corpus"),
    "tavily": gettext_noop("Tavily"),
}


def engine_word(engine: str) -> Message | str:
    word = ENGINE_WORDS.get(str(engine))
    return message(word) if word else str(engine)


CONFIDENCE_WORDS = {
    "high": gettext_noop("high"),
    "medium": gettext_noop("medium"),
    "low": gettext_noop("low"),
}
PROFILE_WORDS = {"embedded": gettext_noop("embedded"), "production": gettext_noop("production")}
RESOLUTION_WORDS = {
    "picked": gettext_noop("Picked"),
    "disputed": gettext_noop("Disputed"),
    "gap": gettext_noop("Gap"),
    "dropped": gettext_noop("Dropped"),
    "more_research": gettext_noop("More research"),
}
