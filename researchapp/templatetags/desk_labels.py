"""Template filters: a status stored as a string in its choice's words, ``{{ gate|status_label }}``,
``{{ task.updated_at|waited }}``."""

from __future__ import annotations

from django import template

from researchapp import labels

register = template.Library()
register.filter("status_label", labels.status_label)
register.filter("waited", labels.waited)
