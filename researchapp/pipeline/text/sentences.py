"""Sentences and paragraphs as spans into the text they were found in."""

from __future__ import annotations

import re
from collections.abc import Collection, Mapping, Sequence
from functools import lru_cache

from researchapp.pipeline.text.tokens import Span, is_cjk, tokenize

_ABBREVIATIONS = frozenset(
    """
    mr mrs ms dr prof st jr sr vs e.g i.e inc ltd co corp no nos fig figs al approx ca cf dept
    est jan feb mar apr jun jul aug sep sept oct nov dec mt gen col lt sgt capt rev gov sen rep
    u.s u.k u.n op vol pp ed eds
    """.split()
)
_HARD_ENDERS = "。！？"
_SOFT_ENDERS = ".!?"
_CLOSERS = "\"'”’)]}」』）》】"


def _strip_span(text: str, start: int, end: int) -> Span | None:
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    return (start, end) if start < end else None


def _next_visible(text: str, index: int, end: int) -> int:
    while index < end and text[index].isspace():
        index += 1
    return index


LIST_MARKER = re.compile(r"(?:[-*•·#>|]|\d{1,3}[.)])\s")
# Hard-wrapped prose runs to 60-80 characters a line; a shorter line that stops without a full
# stop before a capitalised line is a heading or a title ("How the light works today").
_WRAPPED_LINE_CHARS = 60


def is_heading_line(line: str) -> bool:
    """A Markdown heading: "# Title", "## Section"."""
    return line.lstrip(" \t").startswith("#")


def _newline_is_break(text: str, index: int, end: int) -> bool:
    """A newline ends a line of meaning unless it wraps a long line in mid-sentence.

    Blank lines, list items, headings and lines ending a sentence break; a long line that
    stops mid-sentence ("... owners in\nNorway report ...") is one paragraph hard-wrapped.
    """
    after = _next_visible(text, index, end)
    if after >= end or text.count("\n", index, after) > 1:
        return True
    before = index - 1
    while before >= 0 and text[before] in " \t\r":
        before -= 1
    if before < 0 or text[before] in ".!?:;。！？：；" or text[before] in _CLOSERS:
        return True
    line_start = text.rfind("\n", 0, index) + 1
    if LIST_MARKER.match(text, after) or is_heading_line(text[line_start:index]):
        return True
    if (text[before].islower() or text[before] == ",") and text[after].islower():
        return False
    return index - line_start < _WRAPPED_LINE_CHARS


def _period_ends_sentence(text: str, index: int, end: int) -> bool:
    after = _next_visible(text, index + 1, end)
    if after < end and (text[after].islower() or text[after] in ",;:"):
        return False
    word_start = index
    while word_start > 0 and (text[word_start - 1].isalpha() or text[word_start - 1] == "."):
        word_start -= 1
    word = text[word_start:index]
    if word.lower() in _ABBREVIATIONS or "." in word:
        return False
    # "J. K. Rowling": a lone capital is an initial, not the end of a sentence.
    return not (len(word) == 1 and word.isupper())


def split_sentences(text: str, start: int = 0, end: int | None = None) -> list[Span]:
    """Sentence spans of ``text[start:end]`` (offsets into ``text``), whitespace stripped."""
    return list(_sentence_spans(text, start, len(text) if end is None else end))


@lru_cache(maxsize=1 << 14)
def _sentence_spans(text: str, start: int, end: int) -> tuple[Span, ...]:
    """The stages split the same quotes and pages into sentences many times: each once."""
    spans: list[Span] = []
    sentence_start = start
    index = start
    while index < end:
        char = text[index]
        boundary: int | None = None
        if char in _HARD_ENDERS or char in _SOFT_ENDERS:
            after = index + 1
            while after < end and (text[after] in _SOFT_ENDERS or text[after] in _HARD_ENDERS):
                after += 1
            while after < end and text[after] in _CLOSERS:
                after += 1
            ends_here = after >= end or text[after].isspace() or is_cjk(text[after])
            if char in _HARD_ENDERS:
                boundary = after
            elif ends_here and (char != "." or _period_ends_sentence(text, index, end)):
                boundary = after
        elif char == "\n" and _newline_is_break(text, index, end):
            boundary = index
        if boundary is None:
            index += 1
            continue
        span = _strip_span(text, sentence_start, boundary)
        if span:
            spans.append(span)
        sentence_start = boundary
        index = max(boundary, index + 1)
    span = _strip_span(text, sentence_start, end)
    if span:
        spans.append(span)
    return tuple(spans)


def split_paragraphs(text: str) -> list[Span]:
    """Paragraph spans: blank lines and hard line breaks separate them, soft wraps do not."""
    spans: list[Span] = []
    paragraph_start = 0
    for match in re.finditer("\n", text):
        if _newline_is_break(text, match.start(), len(text)):
            span = _strip_span(text, paragraph_start, match.start())
            if span:
                spans.append(span)
            paragraph_start = match.end()
    span = _strip_span(text, paragraph_start, len(text))
    if span:
        spans.append(span)
    return spans


# --- the best sentence of a quote --------------------------------------------------------------

MIN_SENTENCE_TOKENS = 4


def sentence_tier(sentence: str, tokens: Sequence[str]) -> int:
    """2: a full sentence; 1: a line of words without a full stop; 0: a fragment ("Why?")."""
    if len(tokens) < MIN_SENTENCE_TOKENS:
        return 0
    return 2 if sentence.rstrip(CLOSING).endswith(FULL_STOPS) else 1


FULL_STOPS = (".", "!", "?", "。", "！", "？", "…")
CLOSING = "\"'”’)]}」』）》】"
MIN_STATEMENT_WORDS = 5


def is_statement(quote: str, span: Span) -> bool:
    """A sentence a report can state: not a heading, a list item or a fragment, and ending on a
    full stop, or else ending its passage (a post, a claim or a caption seldom has one: "Rwanda
    gets its electricity from 70% renewable energy"). The analyser proposes only these, and the
    writer states exactly these: a finding the writer would refuse must never be proposed."""
    sentence = quote[span[0] : span[1]]
    if (
        is_heading_line(sentence)
        or LIST_MARKER.match(sentence)
        or len(sentence.split()) < MIN_STATEMENT_WORDS
    ):
        return False
    return sentence.rstrip(CLOSING).endswith(FULL_STOPS) or not quote[span[1] :].strip()


def best_sentence(
    quote: str,
    terms: Sequence[str],
    *,
    avoid: Sequence[Span] = (),
    weights: Mapping[str, float] | None = None,
    prefer: Collection[str] = (),
) -> tuple[Span, int] | None:
    """The sentence of ``quote`` that best matches ``terms`` (earliest on a tie), and how many.

    ``weights`` favour rare terms: in passages that all name both options of a comparison,
    the sentence with "cost" answers the cost question, not the one naming the options again.
    A sentence with a ``prefer`` term (the vocabulary of the dimension asked) beats one without.
    Sentences overlapping ``avoid`` (figures in dispute) are never picked: a disputed number
    must not reappear as a supported fact. Headings ("# Title") are never picked, and lines
    without a full stop lose to whole sentences, as very short sentences do.
    """
    wanted = set(terms)
    best: tuple[tuple[int, int, float, int], Span, int] | None = None
    for start, end in split_sentences(quote):
        if is_heading_line(quote[start:end]) or any(s < end and start < e for s, e in avoid):
            continue
        tokens = tokenize(quote[start:end])
        matched = wanted.intersection(tokens)
        weight = sum((weights or {}).get(term, 1.0) for term in matched)
        preferred = int(any(token in prefer for token in tokens))
        rank = (sentence_tier(quote[start:end], tokens), preferred, round(weight, 9), -start)
        if best is None or rank > best[0]:
            best = (rank, (start, end), len(matched))
    return (best[1], best[2]) if best else None
