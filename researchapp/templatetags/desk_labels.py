"""Template filters for the words of the ledger's states: ``{{ task.status|status_label }}``,
``{{ task.updated_at|waited }}``, and the messages workers stored, in the reader's language:
``{{ plan.revision_notes|message_lines }}``, ``{{ event.data.said|message_text:event.message }}``."""

from __future__ import annotations

from django import template

from researchapp import labels
from researchapp.message_text import message_lines, message_text

register = template.Library()
register.filter("status_label", labels.status_label)
register.filter("waited", labels.waited)
register.filter("message_text", message_text)
register.filter("message_lines", message_lines)
