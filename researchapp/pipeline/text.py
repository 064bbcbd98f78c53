"""Text tools shared by the extractive stages: tokens, BM25, sentences, paragraphs.

Every span returned here is a ``(start, end)`` pair into the string that was passed in, so
``text[start:end]`` is always the exact, verbatim piece: quotes are cut from these spans and
the whole product promises that ``snapshot[start:end] == quote``.
"""

from __future__ import annotations

import math
import re
import unicodedata
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache

Span = tuple[int, int]

STOPWORDS = frozenset(
    """
    a about above after again against all also am an and any are as at be because been before
    being below between both but by can could did do does doing done down during each either
    etc few for from further had has have having he her here hers him his how i if in into is it
    its itself just me more most my no nor not of off on once only or other our ours out over own
    per s same she should so some such t than that the their theirs them then there these they
    this those through to too under until up us very via vs versus was we were what when where
    which while who whom whose why will with would yes you your yours
    """.split()
)

# Function characters: a CJK bigram made only of these carries no topic ("有何", "是否").
CJK_STOP_CHARS = frozenset("的了吗呢吧啊是在有和与及或也都而之其这那哪什么如何为对于把被从向到个些一年月日")

CJK_RANGES = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
_CJK_RUN = re.compile(f"[{CJK_RANGES}]+")
# Unicode letters and digits other than CJK: "Alû" must not become "al".
_WORD_OR_CJK = re.compile(f"([{CJK_RANGES}]+)|([^\\W_{CJK_RANGES}]+)")
_ASCII_WORD = re.compile(r"[a-z0-9]+")


def is_cjk(char: str) -> bool:
    return bool(_CJK_RUN.fullmatch(char))


def cjk_count(text: str) -> int:
    return sum(len(run) for run in _CJK_RUN.findall(text))


@dataclass(frozen=True)
class Token:
    text: str
    start: int
    end: int


def _fold(word: str) -> str:
    """Lower-case and strip accents, so "Alû" and "Alu" meet."""
    decomposed = unicodedata.normalize("NFKD", word.casefold())
    return "".join(ch for ch in decomposed if not unicodedata.combining(ch))


def _stem(word: str) -> str:
    """Fold English plurals only: "costs"/"cost" must match, but stemming harder hurts names."""
    if len(word) <= 3 or word.isdigit() or word[-1] != "s" or word.endswith(("ss", "us", "is")):
        return word
    if word.endswith("ies") and len(word) > 4:
        return word[:-3] + "y"
    return word[:-1]


def _cjk_tokens(run: str, offset: int) -> Iterable[Token]:
    if len(run) == 1:
        if run not in CJK_STOP_CHARS:
            yield Token(run, offset, offset + 1)
        return
    for i in range(len(run) - 1):
        pair = run[i : i + 2]
        if not (pair[0] in CJK_STOP_CHARS and pair[1] in CJK_STOP_CHARS):
            yield Token(pair, offset + i, offset + i + 2)


def tokenize_spans(text: str) -> list[Token]:
    """Content tokens with their spans: English words (stopwords dropped), CJK bigrams."""
    tokens: list[Token] = []
    for match in _WORD_OR_CJK.finditer(text):
        if match.group(1):
            tokens.extend(_cjk_tokens(match.group(1), match.start()))
            continue
        folded = _fold(match.group(2))
        if len(folded) != len(match.group(2)):
            # Accents folded away changed the length: spans then cover the whole word.
            for piece in _ASCII_WORD.findall(folded):
                if piece not in STOPWORDS:
                    tokens.append(Token(_stem(piece), match.start(), match.end()))
            continue
        for piece in _ASCII_WORD.finditer(folded):
            word = piece.group()
            if word not in STOPWORDS:
                tokens.append(Token(_stem(word), match.start() + piece.start(), match.start() + piece.end()))
    return tokens


@lru_cache(maxsize=1 << 16)
def _word_terms(word: str) -> tuple[str, ...]:
    """The terms of one non-CJK word; cached, as a corpus repeats the same words endlessly."""
    folded = word.lower() if word.isascii() else _fold(word)
    pieces = (folded,) if folded.isascii() else tuple(_ASCII_WORD.findall(folded))
    return tuple(_stem(piece) for piece in pieces if piece not in STOPWORDS)


def tokenize(text: str) -> list[str]:
    """The same terms as ``tokenize_spans``, without spans: the fast path for indexing."""
    terms: list[str] = []
    for cjk, word in _WORD_OR_CJK.findall(text):
        if cjk:
            terms.extend(token.text for token in _cjk_tokens(cjk, 0))
        else:
            terms.extend(_word_terms(word))
    return terms


def unique_terms(text: str) -> list[str]:
    """Distinct tokens in order of first appearance (deterministic, unlike a set)."""
    return list(dict.fromkeys(tokenize(text)))


# --- BM25 -------------------------------------------------------------------------------------


class BM25:
    """Okapi BM25 over token lists, with an inverted index so a query only touches its postings."""

    def __init__(self, documents: Sequence[Sequence[str]], *, k1: float = 1.5, b: float = 0.75):
        self.k1 = k1
        self.b = b
        self.size = len(documents)
        self.lengths = [len(doc) for doc in documents]
        self.average_length = (sum(self.lengths) / self.size) if self.size else 0.0
        postings: defaultdict[str, list[tuple[int, int]]] = defaultdict(list)
        for index, doc in enumerate(documents):
            for term, count in Counter(doc).items():
                postings[term].append((index, count))
        self.postings: dict[str, list[tuple[int, int]]] = dict(postings)

    def idf(self, term: str) -> float:
        # The "+1" form never goes negative, so a term in most documents still counts a little.
        df = len(self.postings.get(term, ()))
        return math.log((self.size - df + 0.5) / (df + 0.5) + 1.0)

    def scores(self, query: Sequence[str]) -> list[float]:
        """One score per document; each query token counts once per occurrence in ``query``."""
        totals = [0.0] * self.size
        if not self.size or not self.average_length:
            return totals
        for term, query_count in Counter(query).items():
            idf = self.idf(term)
            for index, count in self.postings.get(term, ()):
                norm = 1.0 - self.b + self.b * self.lengths[index] / self.average_length
                totals[index] += query_count * idf * count * (self.k1 + 1.0) / (count + self.k1 * norm)
        return totals

    def score(self, query: Sequence[str], index: int) -> float:
        return self.scores(query)[index]

    def top(self, query: Sequence[str], limit: int) -> list[tuple[int, float]]:
        """Best documents first; ties go to the earlier document; zero scores are left out."""
        ranked = sorted(
            ((index, score) for index, score in enumerate(self.scores(query)) if score > 0.0),
            key=lambda pair: (-pair[1], pair[0]),
        )
        return ranked[:limit]


# --- sentences and paragraphs -----------------------------------------------------------------

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
    end = len(text) if end is None else end
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
    return spans


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
