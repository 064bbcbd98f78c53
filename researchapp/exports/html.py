"""Report Markdown → safe HTML, for the report page (citations linked) and the PDF.

The Markdown comes from a language model that read untrusted pages, so it is sanitized with nh3
first; citation links are added afterwards, to text only, so nothing in the Markdown can smuggle
attributes (htmx ones included) onto them.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection

import markdown
import nh3
from django.urls import reverse
from django.utils.html import format_html
from django.utils.safestring import SafeString, mark_safe

CITATION = re.compile(r"\[(E\d+(?:\s*[,;，]\s*E\d+)*)\]")
EVIDENCE_ID = re.compile(r"E(\d+)")
TAG = re.compile(r"(<[^>]*>)")
NO_LINKS_INSIDE = {"a", "code", "pre"}


def markdown_html(text: str) -> str:
    """Markdown rendered and sanitized: the one path from report text to HTML."""
    html = markdown.markdown(text, extensions=["extra", "sane_lists"], output_format="html")
    return nh3.clean(html, link_rel="noopener noreferrer nofollow")


def _citation_link(evidence_id: int, known: Collection[int]) -> str:
    url = reverse("evidence_context", args=[evidence_id])
    if evidence_id not in known:
        return format_html(
            '<span class="cite cite-unknown" title="Not in this report’s ledger">E{}</span>', evidence_id
        )
    return format_html(
        '<a class="cite" href="{}" hx-get="{}" hx-target="#side-panel" hx-swap="innerHTML" '
        'data-testid="citation" data-evidence="{}">E{}</a>',
        url,
        url,
        evidence_id,
        evidence_id,
    )


def link_citations(html: str, link: Callable[[int], str]) -> str:
    """Replace ``[E1, E2]`` in text nodes (not inside links or code) with ``[<a>E1</a>, <a>E2</a>]``."""
    parts = TAG.split(html)
    open_tags: list[str] = []
    for i, part in enumerate(parts):
        if part.startswith("<"):
            name = part.strip("</>").split()[0].lower() if part.strip("</>") else ""
            if name in NO_LINKS_INSIDE:
                if part.startswith("</"):
                    if name in open_tags:
                        open_tags.remove(name)
                elif not part.endswith("/>"):
                    open_tags.append(name)
            continue
        if open_tags or "[E" not in part:
            continue
        parts[i] = CITATION.sub(
            lambda m: "[" + EVIDENCE_ID.sub(lambda n: link(int(n.group(1))), m.group(1)) + "]", part
        )
    return "".join(parts)


def report_html(text: str, known_evidence: Collection[int]) -> SafeString:
    known = frozenset(known_evidence)
    return mark_safe(
        link_citations(markdown_html(text), lambda i: _citation_link(i, known))
    )  # sanitized by nh3 above
