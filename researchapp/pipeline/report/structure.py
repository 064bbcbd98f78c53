"""The marks of the report's own structure, recognised in text that did not come from the report.

A report writes some things itself: citation markers (``[E12]``), the gap mark (``[证据不足]``), its
headings and labels ("To verify", "待核实") and its notes on what the sources do not state. The same
characters in a source's sentence (or a model's) are text: a claim that held them would pass for the
report's own structure, e.g. a sentence beginning "[证据不足]" read as a gap in the Answer. So the
checker refuses a claim holding one, and the extractive writer never picks such a sentence.
"""

from __future__ import annotations

import re

from researchapp.pipeline.report import MARKER_LIKE
from researchapp.pipeline.report.labels import LABELS, Labels
from researchapp.pipeline.text.sentences import split_sentences
from researchapp.pipeline.text.tokens import Span

_OPEN, _CLOSE = r"[\[【［〔(（<《]", r"[\]】］〕)）>》]"
_GAP_WORDS = (
    r"证据不足|證據不足|insufficient\s+evidence|not\s+enough\s+evidence|evidence\s+insufficient|"
    r"to\s+verify|待核实|待核實"
)
# The gap mark in any bracket and spacing a reader would take for it: "[证据不足]", "【 证据不足 】".
GAP_MARK_LIKE = re.compile(rf"{_OPEN}\s*(?:{_GAP_WORDS})\s*{_CLOSE}", re.IGNORECASE)


def _headings(labels: Labels) -> tuple[str, ...]:
    return (
        labels.answer,
        labels.key_findings,
        labels.comparison,
        labels.disputed,
        labels.to_verify,
        labels.hypotheses,
        labels.computed,
        labels.method,
        labels.references,
        labels.appendix,
        labels.appendix_short,
        labels.contents,
    )


_HEADING_WORDS = sorted({heading for labels in LABELS.values() for heading in _headings(labels)}, key=len)
# A line that opens as one of the report's headings would ("## Answer", "To verify:", "回答："), in
# any language the report is written in, or as any Markdown heading.
HEADING_LIKE = re.compile(
    r"^\s*(?:#{1,6}(?:\s|$)|(?:"
    + "|".join(re.escape(word) for word in reversed(_HEADING_WORDS))
    + r")\s*(?:[:：]|$))",
    re.IGNORECASE,
)

# The desk's own words about what sources do not state (its section notes, in every language, and
# what the analysers write into a point to verify), compared case-blind with spaces collapsed.
DESK_VERDICTS = tuple(
    dict.fromkeys(
        " ".join(phrase.lower().split())
        for labels in LABELS.values()
        for phrase in (*labels.notes.keys(), *labels.notes.values(), labels.no_close_passage)
    )
) + (
    "not supported by its cited passages",
    "its passages do not state it",
    "the support check found",
    "the support check's answer was rejected",
    "the model's analysis was rejected",
)


def structure_in(text: str) -> str:
    """The first mark of the report's structure ``text`` holds, as it appears there; "" if none."""
    for pattern in (MARKER_LIKE, GAP_MARK_LIKE, HEADING_LIKE):
        if found := pattern.search(text):
            return found.group(0).strip()
    plain = " ".join(text.lower().split())
    return next((phrase for phrase in DESK_VERDICTS if phrase in plain), "")


def structure_spans(text: str) -> list[Span]:
    """The sentences of ``text`` that hold a mark of the report's structure."""
    return [(start, end) for start, end in split_sentences(text) if structure_in(text[start:end])]
