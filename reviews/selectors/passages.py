"""A quote shown inside its source's paragraphs, and the figures two sides of a conflict do not share.

Pure text: the evidence reads (``reviews.selectors.findings``) cut a window of the snapshot around each
quote in the database and hand it here; nothing in this module touches a model.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from researchapp.pipeline.text.quantities import Quantity, extract_quantities

PARAGRAPHS_AROUND = 1  # paragraphs shown before and after the quote's own


@dataclass(frozen=True)
class Segment:
    """A run of a paragraph: inside the quote or not, and a figure the other side does not state."""

    text: str
    quote: bool = False
    differs: bool = False
    opens: bool = False  # the first segment of a run inside the quote (the template opens <mark>)
    closes: bool = False  # the last one (the template closes it)


@dataclass(frozen=True)
class Paragraph:
    segments: tuple[Segment, ...]
    clipped_before: bool = False  # the window starts inside this paragraph: "…" before it
    clipped_after: bool = False


def figure_key(quantity: Quantity) -> tuple[str, float, str]:
    return (quantity.kind, quantity.value, quantity.unit)


def figures(quotes: Iterable[str]) -> set[tuple[str, float, str]]:
    """The figures (kind, value, unit) the quotes state."""
    return {figure_key(q) for text in quotes for q in extract_quantities(text)}


def differing_spans(quote: str, other_side: set[tuple[str, float, str]]) -> list[tuple[int, int]]:
    """Where ``quote`` states a figure that the other side's quotes do not: (start, end) in ``quote``."""
    return [(q.start, q.end) for q in extract_quantities(quote) if figure_key(q) not in other_side]


def _lines(text: str) -> list[tuple[int, int]]:
    """(start, end) of every non-blank line of ``text``."""
    spans, start = [], 0
    for line in text.split("\n"):
        end = start + len(line)
        if line.strip():
            spans.append((start, end))
        start = end + 1
    return spans


def marked_paragraphs(
    window: str,
    quote_start: int,
    quote_end: int,
    differs: Sequence[tuple[int, int]] = (),
    *,
    clipped_before: bool = False,
    clipped_after: bool = False,
) -> list[Paragraph]:
    """The paragraphs of ``window`` around the quote at ``[quote_start:quote_end]`` (offsets in the
    window), ``PARAGRAPHS_AROUND`` either side, cut into segments: in the quote or not, and in one
    of the ``differs`` spans (offsets in the quote) or not.

    ``clipped_before``/``clipped_after`` say the window was cut out of a longer snapshot: its first
    and last lines may be parts of paragraphs.
    """
    lines = _lines(window)
    if not lines:
        return []
    touching = [i for i, (a, b) in enumerate(lines) if a < quote_end and b > quote_start]
    first = max((touching[0] if touching else 0) - PARAGRAPHS_AROUND, 0)
    last = min((touching[-1] if touching else 0) + PARAGRAPHS_AROUND, len(lines) - 1)
    marked = [(quote_start + a, quote_start + b) for a, b in differs]
    paragraphs = []
    for i in range(first, last + 1):
        a, b = lines[i]
        cuts = sorted(
            {a, b, *(p for p in (quote_start, quote_end) if a < p < b)}
            | {p for span in marked for p in span if a < p < b}
        )
        segments = []
        for left, right in zip(cuts, cuts[1:], strict=False):
            in_quote = quote_start <= left and right <= quote_end
            differs_here = any(s <= left and right <= e for s, e in marked)
            segments.append(Segment(window[left:right], in_quote, differs_here))
        segments = [
            Segment(
                seg.text,
                seg.quote,
                seg.differs,
                opens=seg.quote and (k == 0 or not segments[k - 1].quote),
                closes=seg.quote and (k == len(segments) - 1 or not segments[k + 1].quote),
            )
            for k, seg in enumerate(segments)
        ]
        paragraphs.append(
            Paragraph(
                tuple(segments),
                clipped_before=clipped_before and i == 0,
                clipped_after=clipped_after and i == len(lines) - 1,
            )
        )
    return paragraphs
