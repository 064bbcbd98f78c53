"""Template filters: a status stored as a string in its choice's words, ``{{ gate|status_label }}``,
``{{ task.updated_at|waited }}``, and the messages workers stored, in the reader's language:
``{{ plan.revision_notes|message_lines }}``, ``{{ coverage.said|message_text:coverage.message }}``."""

from __future__ import annotations

from django import template

from researchapp import labels
from researchapp.core.messages import (
    CONFIDENCE_WORDS,
    ENGINE_WORDS,
    INTENT_WORDS,
    PROFILE_WORDS,
    RESOLUTION_WORDS,
    STAGE_WORDS,
)
from researchapp.message_text import message_lines, message_text, word_text

register = template.Library()
register.filter("status_label", labels.status_label)
register.filter("waited", labels.waited)
register.filter("message_text", message_text)
register.filter("message_lines", message_lines)
# Codes of the ledger in the reader's words: ``{{ event.stage|stage_word }}``.
register.filter("stage_word", lambda code: word_text(code, STAGE_WORDS))
register.filter("intent_word", lambda code: word_text(code, INTENT_WORDS))
register.filter("engine_word", lambda code: word_text(code, ENGINE_WORDS))
register.filter("confidence_word", lambda code: word_text(code, CONFIDENCE_WORDS))
register.filter("profile_word", lambda code: word_text(code, PROFILE_WORDS))
register.filter("resolution_word", lambda code: word_text(code, RESOLUTION_WORDS))
