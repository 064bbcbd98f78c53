"""Figures in text: numbers, years, money and percentages, and what each one measures of what.

``extract_quantities`` finds the figures with exact spans. ``read_figures`` adds, for each
figure that states a value (not "900 euros more than", "up to 20%", "between 800 and 1,500"),
its *subject*, the named thing it is attached to in its own sentence ("Kestrel S1"), and its
*attribute*, the measured noun near it ("round-trip efficiency"): two figures disagree only
when both are about the same thing and measure the same attribute of it.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from researchapp.pipeline.text.aspects import ATTRIBUTES
from researchapp.pipeline.text.sentences import split_sentences
from researchapp.pipeline.text.tokens import (
    CJK_RANGES,
    STOPWORDS,
    Span,
    Token,
    is_cjk,
    tokenize,
    tokenize_spans,
)


@dataclass(frozen=True)
class Quantity:
    kind: str  # "percent" | "year" | "money" | "number"
    value: float
    unit: str  # "%", a currency code, a counted noun ("hour", "人"), or ""
    start: int
    end: int
    context: frozenset[str]


_SCALES = {
    "thousand": 1e3, "k": 1e3, "million": 1e6, "m": 1e6, "mn": 1e6, "billion": 1e9, "bn": 1e9,
    "b": 1e9, "trillion": 1e12, "tn": 1e12, "万": 1e4, "亿": 1e8, "千": 1e3, "百万": 1e6,
}  # fmt: skip
_CURRENCY_PREFIX = {"us$": "USD", "$": "USD", "usd": "USD", "€": "EUR", "eur": "EUR", "£": "GBP",
                    "gbp": "GBP", "¥": "CNY", "rmb": "CNY", "cny": "CNY", "￥": "CNY"}  # fmt: skip
_CURRENCY_SUFFIX = {"dollars": "USD", "dollar": "USD", "usd": "USD", "euros": "EUR", "euro": "EUR",
                    "eur": "EUR", "pounds": "GBP", "gbp": "GBP", "yuan": "CNY", "rmb": "CNY",
                    "元": "CNY", "美元": "USD", "欧元": "EUR", "英镑": "GBP", "人民币": "CNY"}  # fmt: skip

_QUANTITY = re.compile(
    r"(?P<cur>US\$|\$|€|£|¥|￥|(?:USD|EUR|GBP|RMB|CNY)\s?)?"
    r"(?<![A-Za-z0-9_.,\-])(?P<num>\d{1,3}(?:,\d{3})+(?!\d)|\d+)(?P<frac>\.\d+)?"
    r"(?P<scale>\s?(?:thousand|million|billion|trillion)\b|(?:mn|bn|tn|[kmb])(?![A-Za-z])|百万|万|亿|千)?"
    r"(?P<pct>\s?(?:%|％|percent\b|per\s?cent\b))?"
    r"(?P<cursuf>\s?(?:dollars?\b|USD\b|euros?\b|EUR\b|pounds\b|GBP\b|yuan\b|RMB\b|美元|欧元|英镑|人民币|元))?"
    r"(?P<nian>年)?",
    re.IGNORECASE,
)
_UNIT_WORD = re.compile(r"\s?([A-Za-z]{2,}|[" + CJK_RANGES + r"])")
_WORD_BEFORE = re.compile(r"([A-Za-z]+)[\s,]*$")
_YEAR_LEADS = frozenset(
    """in since by from until till to of during between before after and or around circa early
    late mid year january february march april may june july august september october november
    december jan feb mar apr jun jul aug sep sept oct nov dec""".split()
)
_PLURAL_NOUNS = frozenset("people men women children staff personnel cattle".split())
_CONTEXT_WINDOW = 8


def _number_value(match: re.Match[str]) -> float:
    value = float(match.group("num").replace(",", "") + (match.group("frac") or ""))
    scale = (match.group("scale") or "").strip().lower()
    return value * _SCALES.get(scale, 1.0)


def _classify(match: re.Match[str], text: str) -> tuple[str, str, int]:
    """Kind, unit and end of a number match."""
    end = match.end()
    prefix = (match.group("cur") or "").strip().lower()
    suffix = (match.group("cursuf") or "").strip().lower()
    if match.group("pct"):
        return "percent", "%", end
    if prefix or suffix:
        return "money", _CURRENCY_PREFIX.get(prefix) or _CURRENCY_SUFFIX.get(suffix, ""), end
    raw = match.group("num")
    unit_match = _UNIT_WORD.match(text, end)
    is_year_shape = len(raw) == 4 and not match.group("frac") and not match.group("scale")
    if is_year_shape and 1500 <= int(raw) <= 2100:
        before = _WORD_BEFORE.search(text[max(0, match.start("num") - 40) : match.start("num")])
        word_before = before.group(1).lower() if before else ""
        next_word = unit_match.group(1).lower() if unit_match else ""
        counts_things = next_word.endswith("s") or next_word in _PLURAL_NOUNS
        # "2000 people" counts people; "in 2000", "the 2024 survey" and "2000年" name a year.
        if match.group("nian") or word_before in _YEAR_LEADS or not counts_things:
            return "year", "", end
    unit = ""
    if unit_match:
        word = unit_match.group(1)
        tokens = tokenize(word)
        if tokens:
            unit = tokens[0] if not is_cjk(word) else word
    return "number", unit, end


def _window(tokens: Sequence[Token]) -> list[str]:
    """Up to ``_CONTEXT_WINDOW`` words; a Chinese word within one already taken ("汽车" in
    "电动汽车", which search-mode segmentation gives both) comes with it and counts for nothing."""
    taken: list[str] = []
    spans: list[tuple[int, int]] = []
    weight = 0
    for token in tokens:
        inside = any(
            start <= token.start and token.end <= end or token.start <= start and end <= token.end
            for start, end in spans
        )
        weight += 0 if inside else 1
        if weight > _CONTEXT_WINDOW:
            break
        taken.append(token.text)
        spans.append((token.start, token.end))
    return taken


def _context(tokens: Sequence[Token], sentence: Span, start: int, end: int) -> frozenset[str]:
    inside = [t for t in tokens if t.start >= sentence[0] and t.end <= sentence[1] and not t.text.isdigit()]
    before = [t for t in inside if t.end <= start]
    after = [t for t in inside if t.start >= end]
    return frozenset(_window(before[::-1]) + _window(after))


def extract_quantities(text: str) -> list[Quantity]:
    """Numbers, years, money amounts and percentages, with the content words around them.

    The context window stops at the sentence edge: the neighbouring sentence is usually about
    something else, and mixing it in makes unrelated figures look like the same subject.
    """
    tokens = tokenize_spans(text)
    sentences = split_sentences(text) or [(0, len(text))]
    quantities: list[Quantity] = []
    for match in _QUANTITY.finditer(text):
        kind, unit, end = _classify(match, text)
        start = match.start("cur") if match.group("cur") else match.start("num")
        value = _number_value(match)
        sentence = next((s for s in sentences if s[0] <= start < s[1]), (0, len(text)))
        quantities.append(Quantity(kind, value, unit, start, end, _context(tokens, sentence, start, end)))
    return quantities


def figure_value(quote: str, number: int) -> float | None:
    """The value of the ``number``-th figure of ``quote`` (1-based), or None if it has fewer: how a
    calculation reads its inputs, and how the checker re-reads them."""
    found = extract_quantities(quote)
    return found[number - 1].value if 0 < number <= len(found) else None


def format_quantity(text: str, quantity: Quantity) -> str:
    return text[quantity.start : quantity.end].strip()


# --- what a figure is about -------------------------------------------------------------------

_MONTHS = (
    "january february march april may june july august september october november december "
    "jan feb mar apr jun jul aug sep sept oct nov dec"
).split()
NOT_NAMES = frozenset(_MONTHS + "monday tuesday wednesday thursday friday saturday sunday".split())
# Words capitalised only because they open a sentence.
_STARTERS = frozenset(
    """according however although after before during while since despite overall meanwhile
    today recently currently moreover furthermore additionally also some many most only nearly
    almost around roughly approximately last next first one two three another each every both
    data figures statistics researchers experts analysts reports report studies study survey""".split()
)
_ORDINAL_UNITS = frozenset(("st", "nd", "rd", "th"))
_NAME_RUN = re.compile(r"(?<![\w'’.-])[A-Z][\w'’.-]*(?:[ \t]+[A-Z][\w'’.-]*)*")
# A name after one of these places or dates a figure ("in Germany"); it is not what it measures.
_SETTING_WORDS = frozenset("in at from across throughout during since until on within".split())
_DATE_PART = re.compile(r"(?:\b(?:" + "|".join(_MONTHS) + r")\.?\s*$)", re.IGNORECASE)
_RANGE_EDGE = re.compile(r"\d\s?[–—-]\s?$")
_NAMED_NUMBER = re.compile(r"\b[A-Z][A-Za-z]*\.? $")  # "Hot 100", "Windows 11": part of a name
# A bound, a change or a difference is not a value: "up to 20%", "rose by 5%", "900 euros more".
_RELATIVE_BEFORE = re.compile(
    r"(?:\b(?:up to|as (?:much|many|little|few) as|at (?:least|most)|more than|less than|fewer than|"
    r"over|under|above|below|exceeding|between|"
    r"(?:rose|fell|grew|increased|decreased|dropped|declined|climbed|jumped|gained|lost|cut|reduced|"
    r"raised|lowered|shrank|up|down) by|"
    r"(?:increase|rise|drop|decrease|decline|fall|reduction|gain|growth|jump|cut|difference|gap|"
    r"premium|discount|saving|savings) of|"
    r"between\s+\S+(?:\s+\S+)?\s+and|from\s+\S+(?:\s+\S+)?\s+to)"
    r"|超过|不到|至少|最多|增加了?|减少了?|增长了?|下降了?|高出|低于|多出)\s*$",
    re.IGNORECASE,
)
_RELATIVE_AFTER = re.compile(
    r"\s*(?:(?:more|less|fewer|higher|lower|cheaper|dearer|costlier|greater|smaller|larger|bigger|"
    r"faster|slower|longer|shorter|above|below|over|under|increase|rise|drop|decrease|decline|fall|"
    r"gain|growth|jump|cut|reduction|difference|gap|premium|discount|times)\b|to\s+\S*\d|"
    r"以上|以下|左右|之多)",
    re.IGNORECASE,
)
_CLAUSE_BREAK = re.compile(r";|:|\s[–—]\s|,?\s+(?:but|while|whereas|although|though|which|who|where)\s")
ATTRIBUTE_REACH = 7


@dataclass(frozen=True)
class Figure:
    """A figure that states a value, what it is about and what it measures."""

    quantity: Quantity
    subject: frozenset[str]  # folded words of the name it is attached to; empty when unknown
    subject_text: str  # that name as written: "Kestrel S1"
    attribute: str  # "efficiency", "price", ...; "" when no known measured noun is near
    attribute_text: str  # as written: "round-trip efficiency"
    years: frozenset[float]  # other years its sentence mentions: "in 2024, 42% of ..."


def is_relative(text: str, quantity: Quantity) -> bool:
    """A bound, change or difference ("up to 20%", "900 euros more than"), not a value."""
    before = text[max(0, quantity.start - 40) : quantity.start]
    return bool(_RELATIVE_BEFORE.search(before) or _RELATIVE_AFTER.match(text, quantity.end))


def is_comparable(text: str, quantity: Quantity) -> bool:
    """Figures worth comparing: not ordinals ("13th"), day numbers ("15 May") or range ends."""
    if quantity.kind == "number" and (quantity.unit in _ORDINAL_UNITS or quantity.unit in NOT_NAMES):
        return False
    before = text[max(0, quantity.start - 12) : quantity.start]
    after = text[quantity.end : quantity.end + 4]
    if quantity.kind == "number" and (_DATE_PART.search(before) or _NAMED_NUMBER.search(before)):
        return False
    return not (_RANGE_EDGE.search(before) or re.match(r"\s?[–—-]\s?\d", after))


@dataclass(frozen=True)
class _Name:
    start: int
    end: int
    words: frozenset[str]
    text: str


def _name_runs(text: str, span: Span, lowered: frozenset[str]) -> list[_Name]:
    """Capitalised runs in ``text[span]``: "Kestrel S1", "Greywater Point".

    A sentence's first word is a name only if the text never writes it in lower case
    ("Installers expect ..." is not about someone called Installers).
    """
    names = []
    for match in _NAME_RUN.finditer(text, span[0], span[1]):
        kept: list[re.Match[str]] = []
        opens_sentence = not re.search(r"\w", text[span[0] : match.start()])
        for index, word in enumerate(re.finditer(r"\S+", match.group())):
            folded = _fold_name(word.group())
            if folded in STOPWORDS or folded in NOT_NAMES or folded in _STARTERS:
                continue
            if index == 0 and opens_sentence and folded in lowered:
                continue
            kept.append(word)
        if kept:
            start, end = match.start() + kept[0].start(), match.start() + kept[-1].end()
            words = frozenset(_fold_name(word.group()) for word in kept)
            names.append(_Name(start, end, words, text[start:end].rstrip(".")))
    return names


def _fold_name(word: str) -> str:
    return word.rstrip(".").removesuffix("'s").removesuffix("’s").lower()


def _after_setting_word(text: str, name: _Name) -> bool:
    words = re.findall(r"[A-Za-z]+", text[max(0, name.start - 20) : name.start])
    while words and words[-1].lower() in ("the", "a", "an"):
        words.pop()
    return bool(words) and words[-1].lower() in _SETTING_WORDS


def _subject(
    text: str, sentence: Span, quantity: Quantity, lowered: frozenset[str], title: str
) -> _Name | None:
    """The name nearest before the figure in its sentence (not one that only places it), else
    the first after it, else the last name of the text before the sentence, else the title's."""
    names = _name_runs(text, sentence, lowered)
    before = [n for n in names if n.end <= quantity.start]
    subjects = [n for n in before if not _after_setting_word(text, n)] or before
    if subjects:
        return subjects[-1]
    after = [n for n in names if n.start >= quantity.end]
    if after:
        return after[0]
    earlier = _name_runs(text, (0, sentence[0]), lowered)
    if earlier:
        return earlier[-1]
    in_title = _name_runs(title, (0, len(title)), lowered)
    return in_title[0] if in_title else None


def _clause(text: str, sentence: Span, quantity: Quantity) -> Span:
    start, end = sentence
    for match in _CLAUSE_BREAK.finditer(text, sentence[0], sentence[1]):
        if match.end() <= quantity.start:
            start = match.end()
        elif match.start() >= quantity.end:
            end = match.start()
            break
    return start, end


def _attribute(
    text: str, tokens: Sequence[Token], clause: Span, quantity: Quantity, taken: Sequence[Span]
) -> tuple[str, str]:
    """The known measured noun nearest the figure in its clause, and its words as written."""
    words = [
        t
        for t in tokens
        if clause[0] <= t.start and t.end <= clause[1] and not t.text.isdigit()
        and not any(s <= t.start < e for s, e in taken)
    ]  # fmt: skip
    before = [t for t in words if t.end <= quantity.start][::-1][:ATTRIBUTE_REACH]
    after = [t for t in words if t.start >= quantity.end][:ATTRIBUTE_REACH]
    best: tuple[int, int, Token] | None = None
    for side, candidates in ((0, before), (1, after)):
        for distance, token in enumerate(candidates):
            if token.text in ATTRIBUTES and (best is None or (distance, side) < best[:2]):
                best = (distance, side, token)
                break
    if best is None:
        return "", ""
    token = best[2]
    return ATTRIBUTES[token.text], _attribute_words(text, tokens, token)


def _attribute_words(text: str, tokens: Sequence[Token], token: Token) -> str:
    """The noun and the modifiers compounded with it: "round-trip efficiency", "market share"."""
    start, index = token.start, tokens.index(token)
    for position in range(index - 1, max(-1, index - 3), -1):
        previous = tokens[position]
        gap = text[previous.end : start]
        hyphenated = position > 0 and text[tokens[position - 1].end : previous.start] == "-"
        joined = gap == "-" or (gap == " " and (previous.text in ATTRIBUTES or hyphenated))
        if not joined or not text[previous.start : previous.end].islower():
            break
        start = previous.start
    return text[start : token.end]


def read_figures(text: str, title: str = "") -> list[Figure]:
    """Every figure of ``text`` that states a value, with its subject, attribute and years."""
    quantities = extract_quantities(text)
    if not quantities:
        return []
    tokens = tokenize_spans(text)
    lowered = frozenset(re.findall(r"\b[a-z][\w'’.-]*", text))
    sentences = split_sentences(text) or [(0, len(text))]
    taken = [(q.start, q.end) for q in quantities]
    figures = []
    for quantity in quantities:
        if not is_comparable(text, quantity) or (quantity.kind != "year" and is_relative(text, quantity)):
            continue
        sentence = next((s for s in sentences if s[0] <= quantity.start < s[1]), (0, len(text)))
        subject = _subject(text, sentence, quantity, lowered, title)
        attribute, attribute_text = ("", "")
        if quantity.kind != "year":  # a year dates an event: analysis compares the events
            attribute, attribute_text = _attribute(
                text, tokens, _clause(text, sentence, quantity), quantity, taken
            )
        years = frozenset(
            other.value
            for other in quantities
            if other.kind == "year" and other is not quantity and sentence[0] <= other.start < sentence[1]
        )
        figures.append(
            Figure(
                quantity,
                subject.words if subject else frozenset(),
                subject.text if subject else "",
                attribute,
                attribute_text,
                years,
            )
        )
    return figures


def same_subject(a: Figure, b: Figure) -> bool | None:
    """True/False when both subjects are known ("Kestrel" is "Kestrel S1"), None when not."""
    if not a.subject or not b.subject:
        return None
    return a.subject <= b.subject or b.subject <= a.subject


def same_attribute(a: Figure, b: Figure) -> bool | None:
    if not a.attribute and not b.attribute:
        return None
    return a.attribute == b.attribute
