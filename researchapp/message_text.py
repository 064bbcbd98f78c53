"""Stored messages (``core.messages``) in the reader's language: gettext at the moment they are read."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from django.utils.translation import gettext

from researchapp.core.messages import is_message, render


def message_text(stored: Any, fallback: str = "") -> str:
    """A stored message in the active language; ``fallback`` (the English a row stored before it had a
    message) when there is none."""
    return render(stored, gettext) if is_message(stored) else fallback


def message_lines(stored: Iterable[Any]) -> list[str]:
    """A stored list of messages, each in the active language."""
    return [message_text(item) for item in stored or () if is_message(item)]


def word_text(code: Any, table: dict[str, str]) -> str:
    """A code of the ledger (a stage, an intent, an engine) in the reader's words; the code as it is
    when the table has no word for it."""
    word = table.get(str(code or ""))
    return gettext(word) if word else str(code or "")
