"""Deep mode's trace in sentences: ``{% step_sentence step %}`` says what one step did (searched the web
for “…”, opened a page, calculated a figure from E4 and E7) and ``{% loop_summary steps %}`` what a
sub-question's loop did in all (searched 2 times, opened 3 pages, found E4–E9), in the reader's
language, instead of the stored tool name and JSON arguments."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from django import template
from django.utils.translation import gettext as _
from django.utils.translation import ngettext, pgettext

register = template.Library()

SEARCHES = {"web_search", "academic_search", "find_in_sources"}


def evidence_ranges(labels: Iterable[str]) -> str:
    """``["E4", "E5", "E6", "E9"]`` → ``"E4–E6, E9"``: runs of consecutive evidence ids as ranges."""
    ids = sorted({int(label[1:]) for label in labels if label[:1] == "E" and label[1:].isdigit()})
    runs: list[list[int]] = []
    for number in ids:
        if runs and number == runs[-1][-1] + 1:
            runs[-1].append(number)
        else:
            runs.append([number])
    return ", ".join(f"E{run[0]}–E{run[-1]}" if len(run) > 1 else f"E{run[0]}" for run in runs)


def _argument(step: Any, name: str) -> str:
    value = (step.arguments or {}).get(name, "")
    return str(value)[:200] if value else ""


@register.simple_tag
def step_sentence(step: Any) -> str:
    """What one step did, as a sentence (escaped by the template like any text)."""
    query, tool = _argument(step, "query"), step.tool
    if tool == "web_search":
        return _("Searched the web for “%(query)s”.") % {"query": query}
    if tool == "academic_search":
        return _("Searched scholarly works for “%(query)s”.") % {"query": query}
    if tool == "find_in_sources":
        return _("Searched the passages already stored for “%(query)s”.") % {"query": query}
    if tool == "open_page":
        return _("Opened %(url)s.") % {"url": _argument(step, "url")}
    if tool == "calculate":
        inputs = [
            str(item.get("evidence", ""))
            for item in (step.arguments or {}).get("inputs") or []
            if isinstance(item, dict)
        ]
        what = _argument(step, "description") or _("a figure")
        return _("Calculated %(what)s from %(inputs)s.") % {
            "what": what,
            "inputs": evidence_ranges(inputs) or "—",
        }
    if tool:
        return _("Asked for a tool the desk does not have (its name is under the toggle).")
    return ""


@register.simple_tag
def step_found(step: Any) -> str:
    """What a step stored: "stored 1 page, found E4–E6", or nothing."""
    pages = sum(1 for label in step.result_ids or () if str(label).startswith("S"))
    found = evidence_ranges(step.result_ids or ())
    parts = []
    if pages:
        parts.append(ngettext("stored %(n)s page", "stored %(n)s pages", pages) % {"n": pages})
    if found:
        parts.append(_("found %(ids)s") % {"ids": found})
    return _joined(parts)


def _joined(parts: list[str]) -> str:
    return pgettext("between the parts of one sentence", ", ").join(parts)


@register.simple_tag
def loop_summary(steps: Iterable[Any]) -> str:
    """A loop in one line: how many searches, pages opened and which evidence it found."""
    steps = list(steps)
    searches = sum(1 for step in steps if step.tool in SEARCHES)
    opened = sum(1 for step in steps if step.tool == "open_page" and step.status == "done")
    found = evidence_ranges(label for step in steps for label in step.result_ids or ())
    parts = [
        ngettext("searched %(n)s time", "searched %(n)s times", searches) % {"n": searches},
        ngettext("opened %(n)s page", "opened %(n)s pages", opened) % {"n": opened},
    ]
    parts.append(_("found %(ids)s") % {"ids": found} if found else _("found no evidence"))
    return _joined(parts)
