"""Small template helpers for the desk's pages."""

from __future__ import annotations

from django import template

register = template.Library()


@register.filter
def web_url(url: str) -> str:
    """The URL if it is http(s), else "": stored URLs come from outside and must not become
    ``javascript:`` links."""
    url = (url or "").strip()
    return url if url.lower().startswith(("http://", "https://")) else ""
