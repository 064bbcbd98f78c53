"""Quantities that disagree: two statements give values for one measure that cannot both hold.

A value is read as the interval it allows: "12000 people" is a point, "just fewer than 6,200" is
below 6,200, "about 2%" is near 2%, "₹740-1150" is a range, "a majority" is over 50 percent,
"fifth"/"15th" are ranks, "81 times" a ratio. Two values disagree when they are of one kind (and
currency), their intervals do not meet, the words around them say they measure the same thing,
they are not dated to different years (a time series), and neither statement's passage also
states the other's value as its own (a source that reports a change "from 35% to 42%").
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

from researchapp.pipeline.text.contradiction.align import different_subjects
from researchapp.pipeline.text.contradiction.polarity import NEGATION
from researchapp.pipeline.text.contradiction.statements import (
    Statement,
    clause_of,
    is_year,
    name_roots,
    years_in,
)
from researchapp.pipeline.text.quantities import (
    Figure,
    Quantity,
    extract_quantities,
    is_comparable,
    read_figures,
)
from researchapp.pipeline.text.tokens import Span, tokenize

_UNITS = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8,
          "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13, "fourteen": 14,
          "fifteen": 15, "sixteen": 16, "seventeen": 17, "eighteen": 18, "nineteen": 19,
          "twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70,
          "eighty": 80, "ninety": 90, "hundred": 100}  # fmt: skip
_ORDINALS = {"first": 1, "second": 2, "third": 3, "fourth": 4, "fifth": 5, "sixth": 6, "seventh": 7,
             "eighth": 8, "ninth": 9, "tenth": 10, "eleventh": 11, "twelfth": 12, "thirteenth": 13,
             "fourteenth": 14, "fifteenth": 15, "twentieth": 20}  # fmt: skip
_SCALE = {"thousand": 1e3, "million": 1e6, "billion": 1e9, "trillion": 1e12, "lakh": 1e5, "crore": 1e7}
_NUMBER_WORD = "|".join(sorted(_UNITS, key=len, reverse=True))  # "eighty" before "eight"
_WORD_NUMBER = re.compile(
    r"\b(?P<num>(?:" + _NUMBER_WORD + r")(?:(?:[\s-]|\sand\s)(?:" + _NUMBER_WORD + r"))*)\b"
    r"(?P<scale>\s(?:thousand|million|billion|trillion|lakh|crore)s?)?"
    r"(?P<pct>\s(?:percent|per\scent)\b|%)?",
    re.IGNORECASE,
)
_RANK = re.compile(
    r"\b(?:(?P<digits>\d{1,3})(?:st|nd|rd|th)|(?P<word>"
    + "|".join(sorted(_ORDINALS, key=len, reverse=True))
    + r"))\b"
    r"(?=\s+(?:\w+\s+){0,2}?(?:in|among|place|largest|biggest|highest|lowest|most|least|rank))",
    re.IGNORECASE,
)
_FIGURE_TEXT = r"\d[\d,]*(?:\.\d+)?"
_RANGE = re.compile(
    rf"\bbetween\s+(?P<low>{_FIGURE_TEXT})\s+and\s+(?P<high>{_FIGURE_TEXT})"
    rf"|(?P<from>{_FIGURE_TEXT})\s?(?:-|–|—|to)\s?(?P<to>{_FIGURE_TEXT})",
    re.IGNORECASE,
)
_MAJORITY = re.compile(r"\b(?:a|the)\s+(?P<which>majority|minority)\b", re.IGNORECASE)
_BELOW = re.compile(
    r"(?:fewer than|less than|under|below|up to|at most|no more than|just under|as few as)\s*$", re.I
)
_ABOVE = re.compile(r"(?:more than|over|above|at least|exceeding|as many as|upwards of)\s*$", re.I)
_ABOUT = re.compile(
    r"(?:about|around|roughly|approximately|nearly|almost|some|close to|an estimated|~)\s*$", re.I
)
_CHANGE = re.compile(
    r"(?:by|rose|fell|grew|increased|decreased|dropped|declined|climbed|jumped|gained|lost|cut|reduced|"
    r"from|adds?|added|adding|extra|another)(?:\s+between)?\s*$",
    re.I,
)
MIN_DENIED = 100  # "not 10" is too common to stand for one subject; "not 6000", "not ₹4500" are not
_DIFFERENCE = re.compile(
    r"\s*(?:more|less|fewer|higher|lower|cheaper|dearer|costlier|greater|smaller|larger|bigger|faster|"
    r"slower|longer|shorter)\b",
    re.IGNORECASE,
)
_OUT_OF_BEFORE = re.compile(r"\bout of\s*$", re.IGNORECASE)
_OUT_OF_AFTER = re.compile(r"\s*out of\b", re.IGNORECASE)
APPROXIMATE = 0.15  # "about 2%" meets "1.8%"
EXACT = 0.01


@dataclass(frozen=True)
class Value:
    kind: str  # "percent", "money:USD", "count", "times", "rank"
    low: float
    high: float
    span: Span
    negated: bool  # "not 6000 as reported": the statement denies this value
    unit: str = ""  # what a count counts ("people", "kwh"), "" when nothing is named


def _interval(text: str, start: int, value: float) -> tuple[float, float]:
    before = text[max(0, start - 24) : start]
    if _BELOW.search(before):
        return 0.0, value
    if _ABOVE.search(before):
        return value, math.inf
    spread = APPROXIMATE if _ABOUT.search(before) else EXACT
    return value * (1 - spread), value * (1 + spread)


def _kind(quantity) -> str:
    if quantity.kind == "percent":
        return "percent"
    if quantity.kind == "money":
        return f"money:{quantity.unit}"
    return "times" if quantity.unit == "time" else "count"


NEGATION_REACH = 6  # content words between a negation and the value it denies


def _negated(text: str, statement: Statement, start: int) -> bool:
    """ "not 6000 as reported", "No test has been procured at ₹4500"."""
    clause_start = clause_of(statement, start)[0]
    for cue in NEGATION.finditer(text, clause_start, start):
        between = [w for w in statement.words if cue.end() <= w.start < start]
        if len(between) <= NEGATION_REACH:
            return True
    return False


def values_of(statement: Statement) -> list[Value]:
    """Every value the statement gives, with the interval it allows.

    Read once per statement: judging a task's pairs asks for the same statements' values hundreds
    of times (the standard task's analysis spent most of its CPU reading them again)."""
    return list(_values_read(statement))


@lru_cache(maxsize=4096)
def _values_read(statement: Statement) -> tuple[Value, ...]:
    return tuple(_read_values(statement))


@lru_cache(maxsize=512)
def _quantities(text: str) -> tuple[Quantity, ...]:
    """The passage's quantities, read once for all its statements."""
    return tuple(extract_quantities(text))


def _read_values(statement: Statement) -> list[Value]:
    text, found = statement.text, []
    taken: list[Span] = []
    for match in _RANGE.finditer(text, statement.start, statement.end):
        edges = ("low", "high") if match.group("low") else ("from", "to")
        low, high = (float(match.group(g).replace(",", "")) for g in edges)
        first_edge = match.start(edges[0])
        quantities = [q for q in _quantities(text) if q.start <= first_edge < q.end]
        if not quantities or quantities[0].kind == "year" or low >= high:
            continue
        taken.append(match.span())  # its edges are not values of their own, kept or not
        if not _CHANGE.search(text[:first_edge]):
            scale = quantities[0].value / low if low else 1.0
            kind = _kind(quantities[0])
            found.append(Value(kind, low * scale, high * scale, match.span(), False, quantities[0].unit))
    for quantity in _quantities(text):
        inside = statement.start <= quantity.start < statement.end
        if not inside or quantity.kind == "year" or any(s <= quantity.start < e for s, e in taken):
            continue
        if _CHANGE.search(text[max(0, quantity.start - 12) : quantity.start]) or not is_comparable(
            text, quantity
        ):
            continue  # a change is judged by its direction (polarity); ranks and day numbers apart
        span = (quantity.start, quantity.end)
        ratio = re.match(r"\s?times\b", text[span[1] :]) if quantity.unit == "time" else None
        span = (span[0], span[1] + ratio.end()) if ratio else span  # "81 times", shown whole
        if quantity.kind == "number" and is_year(text[span[0] : span[1]]):
            continue  # "2017 was the costliest year": a year, read by ``dates``
        if _OUT_OF_BEFORE.search(text[max(0, span[0] - 8) : span[0]]) or _OUT_OF_AFTER.match(text, span[1]):
            continue  # "four out of 10": a ratio, not a count
        if quantity.unit != "time" and _DIFFERENCE.match(text, span[1]):
            continue  # "900 euros more than the Kestrel": a difference, not a value
        low, high = _interval(text, quantity.start, quantity.value)
        negated = _negated(text, statement, quantity.start)
        found.append(Value(_kind(quantity), low, high, span, negated, quantity.unit))
    found += _word_values(statement) + _ranks(statement)
    return found


def _word_value(words: str) -> float:
    """ "one hundred and eighty-one" → 181, "ninety" → 90."""
    total = 0.0
    for part in re.split(r"[\s-]+", words.lower()):
        if part == "hundred":
            total = max(total, 1.0) * 100
        else:
            total += _UNITS.get(part, 0)
    return total


def _word_values(statement: Statement) -> list[Value]:
    text, found = statement.text, []
    for match in _WORD_NUMBER.finditer(text, statement.start, statement.end):
        value = _word_value(match.group("num"))
        scale = (match.group("scale") or "").strip().lower().rstrip("s")
        if not scale and not match.group("pct") and value < 20:
            continue  # "two nurses", "one of": too common to be a figure worth comparing
        value *= _SCALE.get(scale, 1.0)
        low, high = _interval(text, match.start(), value)
        kind = "percent" if match.group("pct") else "count"
        counted = tokenize(text[match.end() : match.end() + 30])[:1] if kind == "count" else []
        negated = _negated(text, statement, match.start())
        found.append(Value(kind, low, high, match.span(), negated, counted[0] if counted else ""))
    for match in _MAJORITY.finditer(text, statement.start, statement.end):
        low, high = (50.0, 100.0) if match.group("which").lower() == "majority" else (0.0, 50.0)
        found.append(Value("percent", low, high, match.span("which"), False))
    return found


def _ranks(statement: Statement) -> list[Value]:
    found = []
    for match in _RANK.finditer(statement.text, statement.start, statement.end):
        digits, word = match.group("digits"), match.group("word")
        value = float(digits) if digits else float(_ORDINALS[word.lower()])
        found.append(Value("rank", value, value, match.span(), False))
    return found


def _disjoint(a: Value, b: Value) -> bool:
    if a.kind == "percent" and a.high - a.low < 1 and b.high - b.low < 1:
        return abs(a.low - b.low) > 0.5  # points in percent: 42% and 42.3% are one figure
    return a.high < b.low or b.high < a.low


def _meets(a: Value, b: Value) -> bool:
    return a.kind == b.kind and not _disjoint(a, b)


def _years_near(statement: Statement, span: Span) -> frozenset[int]:
    return years_in(statement.text, clause_of(statement, span[0]))


def _context(statement: Statement, span: Span) -> frozenset[str]:
    start, end = clause_of(statement, span[0])
    return (
        frozenset(w.root for w in statement.words if start <= w.start < end and not w.root.isdigit())
        & statement.topic
    )


def _figure_at(text: str, span: Span) -> Figure | None:
    return next((f for f in read_figures(text) if f.quantity.start == span[0]), None)


_PEOPLE = frozenset(
    "people person men women children resident citizen voter viewer immigrant migrant worker employee "
    "member user customer patient student visitor passenger".split()
)


def _other_things(a: Statement, b: Statement, first: Value, second: Value) -> bool:
    """Figures of two named things ("the Osprey costs 5,100 euros", "the Kestrel ... 4,200 euros"),
    of two attributes (a market share is not an efficiency; a known one is not an unknown one), or
    counts of two kinds of thing ("10 years", "800 kWh"; people are people: viewers, residents)."""
    if other_counts(first, second):
        return True
    fa, fb = _figure_at(a.text, first.span), _figure_at(b.text, second.span)
    if fa is None or fb is None:
        return False
    if (fa.attribute or fb.attribute) and fa.attribute != fb.attribute:
        return True
    if not fa.subject or not fb.subject or fa.subject <= fb.subject or fb.subject <= fa.subject:
        return False
    if _opens(a, fa) or _opens(b, fb):
        # A sentence's first word may be capitalised only by grammar ("Spending on the Tarnow canal
        # reached ..."): two sentences that share a name are then about one thing.
        return not name_roots(a) & name_roots(b)
    return True


def other_counts(first: Value, second: Value) -> bool:
    """Counts of two kinds of thing ("10 years", "800 kWh"; people are people: viewers, residents)."""
    if first.kind == "count" and first.unit and second.unit and first.unit != second.unit:
        return not {first.unit.rstrip("s"), second.unit.rstrip("s")} <= _PEOPLE
    return False


_COMMON_ENDINGS = ("ing", "ed", "tion", "sion", "ment", "ness", "ity", "ly", "ers")


def _opens(statement: Statement, figure: Figure) -> bool:
    """The figure's subject is one common word ("Spending", "Reported") that opens its sentence
    (or the clause after a speaker): capitalised by grammar, not a name."""
    clause = statement.text[clause_of(statement, figure.quantity.start)[0] : figure.quantity.start]
    word = figure.subject_text
    opens = len(word.split()) == 1 and clause.lstrip(" \"'“‘(").startswith(word)
    return opens and word.lower().endswith(_COMMON_ENDINGS)


def denied_value(a: Statement, b: Statement) -> tuple[Value, Value] | None:
    """``b`` denies a figure ``a`` gives as so ("selling them for Rs4,500" / "No test has been
    procured at ₹4500"): the same value, asserted on one side and negated on the other."""
    for first in values_of(a):
        for second in values_of(b):
            if first.kind != second.kind or first.negated or not second.negated or first.low < MIN_DENIED:
                continue
            same_low = abs(first.low - second.low) <= EXACT * first.low
            if same_low and abs(first.high - second.high) <= EXACT * first.high:
                return first, second
    return None


def disagreeing_values(
    a: Statement,
    b: Statement,
    all_a: Sequence[Value],
    all_b: Sequence[Value],
    shared: frozenset[str],
) -> tuple[Value, Value, frozenset[str]] | None:
    """The first pair of values of ``a`` and ``b`` that cannot both hold, and the words they share.

    ``all_a``/``all_b`` are every value of each whole passage: a passage that also states the
    other's value as its own does not disagree with it.
    """
    for first in values_of(a):
        for second in values_of(b):
            if first.kind != second.kind or first.negated or second.negated or not _disjoint(first, second):
                continue
            years_a, years_b = _years_near(a, first.span), _years_near(b, second.span)
            if years_a and years_b and not years_a & years_b:
                continue  # a time series
            near = _context(a, first.span) & _context(b, second.span)
            if len(near) < 1 or len(shared) < 2 or _other_things(a, b, first, second):
                continue
            if different_subjects(a, b, first.span[0], second.span[0]):
                continue
            if any(_meets(v, second) and not v.negated for v in all_a) or any(
                _meets(v, first) and not v.negated for v in all_b
            ):
                continue
            return first, second, near
    return None


ROUNDING = 0.05  # a typed answer's figures: "12.5 million" and "12.47 million" are one figure
PERCENT_POINTS = 1.0


def values_differ(a: Value, b: Value) -> bool:
    """Two figures of one kind apart by more than rounding (``typed``: answers to one question)."""
    if a.kind != b.kind:
        return False
    if a.kind == "percent" and a.high - a.low < 1 and b.high - b.low < 1:
        return abs(a.low - b.low) > PERCENT_POINTS
    return a.high * (1 + ROUNDING) < b.low or b.high * (1 + ROUNDING) < a.low


def values_meet(value: Value, other: Value) -> bool:
    """``value``, stated as so, allows ``other``."""
    return not value.negated and _meets(value, other)


def time_series(a: Statement, b: Statement, first: Value, second: Value) -> bool:
    """Each figure is dated to its own year ("2018: 67,367"; "62,172 in 2019")."""
    years_a, years_b = _years_near(a, first.span), _years_near(b, second.span)
    return bool(years_a and years_b and not years_a & years_b)
