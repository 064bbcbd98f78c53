"""Cutting a source into passages: a paragraph, or a few sentences of a long one, never across a
heading; each passage carries the headings above it. Offsets are into the source's text, exact.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from functools import lru_cache

from researchapp.pipeline.text.sentences import (
    LIST_MARKER,
    is_heading_line,
    split_paragraphs,
    split_sentences,
)
from researchapp.pipeline.text.tokens import Span

MAX_PASSAGE_CHARS = 600
MIN_PASSAGE_CHARS = 100
PACK_CHARS = 400
MAX_HEADING_CHARS = 80
MAX_HEADING_WORDS = 12
MAX_HEADING_RUN = 3


def _pack_sentences(text: str, sentences: Sequence[Span], limit: int) -> list[Span]:
    """Windows of whole sentences of about equal size, none longer than ``limit`` if avoidable."""
    total = sentences[-1][1] - sentences[0][0]
    target = total / math.ceil(total / limit)
    windows: list[Span] = []
    start, end = sentences[0]
    for sentence_start, sentence_end in sentences[1:]:
        if sentence_end - start > limit or (end - start >= target and sentence_end - start > target):
            windows.append((start, end))
            start = sentence_start
        end = sentence_end
    windows.append((start, end))
    return [piece for window in windows for piece in _cut_overlong(text, window, limit)]


def _cut_overlong(text: str, span: Span, limit: int) -> list[Span]:
    """A "sentence" of thousands of characters (a table, a list without stops) cut at spaces."""
    start, end = span
    pieces: list[Span] = []
    while end - start > 2 * limit:
        cut = text.rfind(" ", start + limit // 2, start + limit)
        cut = cut if cut > start else start + limit
        pieces.append((start, cut))
        start = cut
        while start < end and text[start].isspace():
            start += 1
    pieces.append((start, end))
    return pieces


def _merge_fragments(pieces: list[Span], limit: int, minimum: int) -> list[Span]:
    """Headings and one-line fragments join a neighbour, so a passage reads on its own.

    A fragment joins the piece after it (a heading belongs to what it heads); the last one
    joins the piece before it. Nothing grows past ``limit``.
    """
    merged: list[Span] = []
    pending: Span | None = None
    for start, end in pieces:
        if pending is not None:
            if end - pending[0] <= limit:
                start = pending[0]
            else:
                merged.append(pending)
            pending = None
        if end - start < minimum:
            pending = (start, end)
        else:
            merged.append((start, end))
    if pending is not None:
        if merged and pending[1] - merged[-1][0] <= limit:
            merged[-1] = (merged[-1][0], pending[1])
        else:
            merged.append(pending)
    return merged


def _is_heading(text: str, span: Span) -> bool:
    """A Markdown heading, or a short single line that stops without a full stop."""
    piece = text[span[0] : span[1]]
    if "\n" in piece:
        return False
    if is_heading_line(piece):
        return True
    if len(piece) > MAX_HEADING_CHARS or piece[-1] in ".!?。！？;；:：,，" or LIST_MARKER.match(piece):
        return False
    return len(piece.split()) <= MAX_HEADING_WORDS


def _continues(text: str, paragraph: Span) -> bool:
    """A paragraph that opens with an operator continues the line before it: "PRAGMA
    schema.journal_mode" over "= DELETE | TRUNCATE | ..." is one statement of syntax, not a heading
    and its section."""
    return text[paragraph[0] : paragraph[0] + 1] in _CONTINUATION


_CONTINUATION = frozenset("=|)]},")


def _sections(text: str) -> list[tuple[list[Span], list[Span]]]:
    """(heading spans, paragraph spans) per section of ``text``.

    A run of up to ``MAX_HEADING_RUN`` heading lines directly followed by a paragraph heads a new
    section; a longer run, or one that ends the text, is content (a list of short lines).
    """
    paragraphs = split_paragraphs(text)
    sections: list[tuple[list[Span], list[Span]]] = [([], [])]
    index = 0
    while index < len(paragraphs):
        end = index
        while end < len(paragraphs) and _is_heading(text, paragraphs[end]):
            end += 1
        heads = index < end < len(paragraphs) and end - index <= MAX_HEADING_RUN
        if heads and not _continues(text, paragraphs[end]):
            sections.append((paragraphs[index:end], []))
        else:
            end = max(end, index + 1)
            sections[-1][1].extend(paragraphs[index:end])
        index = end
    return [section for section in sections if section[1]]


def passages_with_headings(text: str, *, max_chars: int = MAX_PASSAGE_CHARS) -> list[tuple[Span, list[Span]]]:
    """Passage spans of ``text``, each with the spans of the headings above it.

    1. Split into sections: the headings above a run of paragraphs, and those paragraphs.
    2. Cut paragraphs longer than ``max_chars`` into windows of whole sentences.
    3. Within a section, merge fragments shorter than ``MIN_PASSAGE_CHARS`` into a neighbour
       and pack short neighbours together, when that fits.
    Headings stay out of the spans (a quote starts at its paragraph) but their words are
    indexed with each passage of their section, as a page's title is.
    """
    passages: list[tuple[Span, list[Span]]] = []
    for headings, paragraphs in _sections(text):
        pieces: list[Span] = []
        for start, end in paragraphs:
            if end - start <= max_chars:
                pieces.append((start, end))
                continue
            sentences = split_sentences(text, start, end)
            pieces.extend(_pack_sentences(text, sentences, max_chars))
        merged = _pack(_merge_fragments(pieces, max_chars, MIN_PASSAGE_CHARS), PACK_CHARS)
        passages += [(span, headings) for span in merged]
    return passages


def split_passages(text: str, *, max_chars: int = MAX_PASSAGE_CHARS) -> list[Span]:
    """Passage spans of ``text`` (see ``passages_with_headings``)."""
    return [span for span, _ in passages_with_headings(text, max_chars=max_chars)]


def _pack(pieces: list[Span], limit: int) -> list[Span]:
    """Neighbouring short paragraphs share a passage while together they stay under ``limit``:
    pages of one-line paragraphs otherwise give quotes too short to carry a point."""
    packed: list[Span] = []
    for start, end in pieces:
        if packed and end - packed[-1][0] <= limit:
            packed[-1] = (packed[-1][0], end)
        else:
            packed.append((start, end))
    return packed


@lru_cache(maxsize=256)
def _headed(text: str) -> tuple[tuple[Span, tuple[Span, ...]], ...]:
    return tuple((span, tuple(headings)) for span, headings in passages_with_headings(text))


def heading_of(title: str, text: str, start: int) -> str:
    """The page's title and the headings above the passage of ``text`` that holds ``start``: what
    a quote is under ("PRAGMA schema.journal_mode" above "= DELETE | TRUNCATE | ...")."""
    for (span_start, span_end), headings in _headed(text):
        if span_start <= start < span_end:
            return " ".join([title, *(text[s:e] for s, e in headings)]).strip()
    return title
