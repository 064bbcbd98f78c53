"""Dates that disagree: one event, two dates that cannot both be its date.

A date is read with the parts it gives: "in 2013" a year, "August 2015" a month, "Jan. 24, 2019",
"14 September 2015" and "July 14th 2015" a day, "August 10" a day of a year it leaves open.
Two dates disagree when a part both give differs (years are exact: 1933 is not 1934), both
statements date the same event (a word next to each date is shared, or each passage gives the
event one date), and the year is not a figure's time index ("in 2018, 67,367 deaths" against
"62,172 in 2019" is a series).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date
from functools import lru_cache

from researchapp.pipeline.text.contradiction.align import different_subjects
from researchapp.pipeline.text.contradiction.numbers import values_of
from researchapp.pipeline.text.contradiction.polarity import NEGATION
from researchapp.pipeline.text.contradiction.statements import Statement, Word, clause_of
from researchapp.pipeline.text.tokens import Span

_MONTHS = {
    name: number
    for number, names in enumerate(
        (
            "january jan",
            "february feb",
            "march mar",
            "april apr",
            "may",
            "june jun",
            "july jul",
            "august aug",
            "september sep sept",
            "october oct",
            "november nov",
            "december dec",
        ),
        start=1,
    )
    for name in names.split()
}
_MONTH = r"(?P<month>" + "|".join(sorted(_MONTHS, key=len, reverse=True)) + r")\.?"
_DAY = r"(?P<day>\d{1,2})(?:st|nd|rd|th)?"
_YEAR = r"(?P<year>1[5-9]\d\d|20\d\d)"
_PATTERNS = (
    re.compile(rf"\b{_DAY}\s+(?:of\s+)?{_MONTH}(?:,?\s+{_YEAR})?\b", re.IGNORECASE),
    re.compile(rf"\b{_MONTH}\s+{_DAY}\b(?:,?\s+{_YEAR}\b)?", re.IGNORECASE),
    re.compile(rf"\b{_MONTH}\s+{_YEAR}\b", re.IGNORECASE),
    re.compile(rf"(?<![\d,.$£€-]){_YEAR}(?!\d|,\d|%|\s*(?:percent|per cent))", re.IGNORECASE),
)
_BETWEEN_YEARS = re.compile(r"\d{4}\s?[-–/]\s?\d{2,4}|\d{2,4}\s?[-–/]\s?$")


@dataclass(frozen=True)
class Date:
    year: int | None
    month: int | None
    day: int | None
    span: Span
    negated: bool
    slack: int = 0  # years either way: "20 years ago", counted from a page's date, is not exact


_COUNT_WORDS = {
    "a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
    "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "fifteen": 15, "twenty": 20,
    "thirty": 30, "forty": 40, "fifty": 50, "hundred": 100,
}  # fmt: skip
_YEARS_AGO = re.compile(
    r"\b(?P<count>\d{1,3}|" + "|".join(_COUNT_WORDS) + r")\s+(?:years?|decades?)\s+ago\b", re.IGNORECASE
)
_NAMED_YEAR = re.compile(
    r"\b(?P<which>last|this|next)\s+year\b|\b(?P<recent>recently|just now|yesterday|today|"
    r"this\s+(?:week|month)|last\s+(?:week|month|night)|(?:a\s+)?few\s+(?:days|weeks)\s+ago)\b",
    re.IGNORECASE,
)


def relative_dates(statement: Statement, published: date) -> list[Date]:
    """Dates a statement gives relative to its page's date: "20 years ago", "last year",
    "recently", "last week", "yesterday" (the page's own year, give or take one)."""
    text, found = statement.text, []
    for match in _YEARS_AGO.finditer(text, statement.start, statement.end):
        count = match.group("count").lower()
        years = int(count) if count.isdigit() else _COUNT_WORDS[count]
        years *= 10 if "decade" in match.group().lower() else 1
        found.append(Date(published.year - years, None, None, match.span(), False, slack=1))
    for match in _NAMED_YEAR.finditer(text, statement.start, statement.end):
        shift = {"last": -1, "this": 0, "next": 1}.get((match.group("which") or "").lower(), 0)
        slack = 1 if match.group("recent") else 0
        found.append(Date(published.year + shift, None, None, match.span(), False, slack=slack))
    return found


def _part(match: re.Match[str], name: str) -> int | None:
    value = match.groupdict().get(name)
    if value is None:
        return None
    return _MONTHS[value.lower()] if name == "month" else int(value)


def dates_of(statement: Statement, published: date | None = None) -> list[Date]:
    """The statement's dates, most specific first where two readings overlap; with the page's
    ``published`` date, the dates it gives relative to it too. Read once per statement and date:
    judging a task's pairs asks for them thousands of times."""
    return list(_dates_read(statement, published))


@lru_cache(maxsize=4096)
def _dates_read(statement: Statement, published: date | None) -> tuple[Date, ...]:
    return tuple(_read_dates(statement, published))


def _read_dates(statement: Statement, published: date | None) -> list[Date]:
    text = statement.text
    found: list[Date] = []
    taken: list[Span] = []
    for pattern in _PATTERNS:
        for match in pattern.finditer(text, statement.start, statement.end):
            if any(s < match.end() and match.start() < e for s, e in taken):
                continue
            if match.groupdict().get("month", "").lower() == "may" and not match.groupdict().get("day"):
                if not match.groupdict().get("year"):
                    continue
            if (
                _BETWEEN_YEARS.search(text[max(0, match.start() - 6) : match.end() + 5])
                and pattern is _PATTERNS[-1]
            ):
                continue  # "2007-2008", "2019/20": a span, not a date
            clause_start = clause_of(statement, match.start())[0]
            negated = bool(NEGATION.search(text, max(clause_start, match.start() - 8), match.start()))
            day = _part(match, "day")
            found.append(Date(_part(match, "year"), _part(match, "month"), day, match.span(), negated))
            taken.append(match.span())
    return found + (relative_dates(statement, published) if published else [])


def _differ(a: Date, b: Date) -> bool:
    """A part both dates give differs (a part one leaves open never does)."""
    if a.year is not None and b.year is not None and abs(a.year - b.year) > max(a.slack, b.slack):
        return True
    if a.slack or b.slack:
        return False  # a date counted back from a page's date says nothing finer than its year
    if a.month is not None and b.month is not None and a.month != b.month:
        return True
    return a.month is not None and a.month == b.month and None not in (a.day, b.day) and a.day != b.day


def _dates_a_figure(statement: Statement, given: Date) -> bool:
    """The year is a figure's time index: a value stands in the same clause."""
    clause = clause_of(statement, given.span[0])
    inside = range(*given.span)  # "20 years ago" holds a figure of its own
    return any(clause[0] <= v.span[0] < clause[1] and v.span[0] not in inside for v in values_of(statement))


def _anchor(statement: Statement, span: Span) -> frozenset[str]:
    """Topic words of a date's clause: what happened then."""
    clause = clause_of(statement, span[0])
    return frozenset(w.root for w in statement.words if clause[0] <= w.start < clause[1]) & statement.topic


_RELATION = re.compile(r"\b(?P<word>since|after|until|till|through|before)\s+(?:the\s+)?$", re.I)
_RELATIONS = {"since": "start", "after": "start", "until": "end", "till": "end", "through": "end",
              "before": "end"}  # fmt: skip
_ORDINAL = re.compile(r"\d+(?:st|nd|rd|th)?")
MIN_EVENT = 2  # words two dates' clauses share: who or what, and what happened
EVENT_REACH = 4  # the topic words nearest a date, one of which names what it dates


def _nearest(statement: Statement, span: Span) -> frozenset[str]:
    """The ``EVENT_REACH`` topic words of the date's clause nearest to it: what it dates ("was
    introduced Jan. 24, 2019"), not what the rest of a long sentence says."""
    clause, topic = clause_of(statement, span[0]), statement.topic
    words = [w for w in statement.words if clause[0] <= w.start < clause[1] and w.root in topic]
    words = [w for w in words if not span[0] <= w.start < span[1] and not _ORDINAL.fullmatch(w.root)]

    def distance(word: Word) -> tuple[bool, int]:
        between = (word.end, span[0]) if word.end <= span[0] else (span[1], word.start)
        return "," in statement.text[between[0] : between[1]], between[1] - between[0]

    words.sort(key=distance)  # the date's own phrase first: "available ... by early 2021, Dr Ella"
    return frozenset(w.root for w in words[:EVENT_REACH])


def relation(statement: Statement, given: Date) -> str:
    """How a date dates its clause: "start" ("since August 2015", "after 2010"), "end" ("until
    2001", "before 1990") or a "point" ("in 2013", "on 14 September", "from Monday August 10").
    A start and a point are not two dates of one event."""
    match = _RELATION.search(statement.text[max(statement.start, given.span[0] - 16) : given.span[0]])
    return _RELATIONS.get(match.group("word").lower(), "point") if match else "point"


def _one_event(
    a: Statement, b: Statement, first: Date, second: Date, one_date_each: bool, asked: frozenset[str]
) -> bool:
    """Both dates date one event: a word nearest each is the same (``_nearest``), and their
    clauses share ``MIN_EVENT`` words or each passage gives just the one date. Given the question
    (``asked``: its terms), each date's clause holds one of its terms; without one (two statements
    of a report), two of the nearest words meet: a page tells many events of one subject."""
    anchors = _anchor(a, first.span), _anchor(b, second.span)
    nearest = _nearest(a, first.span) & _nearest(b, second.span)
    if not nearest or (not asked and len(nearest) < MIN_EVENT):
        return False
    if asked and not (anchors[0] & asked and anchors[1] & asked):
        return False
    return len(anchors[0] & anchors[1]) >= MIN_EVENT or one_date_each


def disagreeing_dates(
    a: Statement,
    b: Statement,
    passages_share: int,
    one_date_each: bool,
    published: tuple[date | None, date | None] = (None, None),
    asked: frozenset[str] = frozenset(),
) -> tuple[Date, Date, frozenset[str]] | None:
    """The first pair of dates of ``a`` and ``b`` for one event that cannot both hold: their
    passages are about one thing (``passages_share`` topic roots), the dates relate to their
    clauses alike (a point is not a start), and the clauses share the event (``_one_event``)."""
    if passages_share < 2:
        return None
    for first in dates_of(a, published[0]):
        for second in dates_of(b, published[1]):
            if first.negated or second.negated or not _differ(first, second):
                continue
            if _dates_a_figure(a, first) or _dates_a_figure(b, second):
                continue
            if relation(a, first) != relation(b, second):
                continue
            if different_subjects(a, b, first.span[0], second.span[0]):
                continue
            if _one_event(a, b, first, second, one_date_each, asked):
                return first, second, _anchor(a, first.span) & _anchor(b, second.span)
    return None


def _after(later: Date, earlier: Date) -> bool:
    if later.year is None or earlier.year is None or later.slack or earlier.slack:
        return False
    return (later.year, later.month or 0, later.day or 0) > (
        earlier.year,
        earlier.month or 13,
        earlier.day or 32,
    )


def none_since(a: Statement, b: Statement) -> tuple[Date, Date] | None:
    """``a`` says something has not happened since a date ("no load shedding since August 2015"),
    ``b`` dates it after that ("there was load shedding on 14 September 2015"): the clause of
    each shares the thing, and ``b``'s date is later."""
    for first in dates_of(a):
        if relation(a, first) != "start":
            continue
        clause = clause_of(a, first.span[0])
        if not NEGATION.search(a.text, clause[0], first.span[0]):
            continue
        for second in dates_of(b):
            if relation(b, second) == "point" and _after(second, first):
                if len(_anchor(a, first.span) & _anchor(b, second.span)) >= MIN_EVENT - 1:
                    return first, second
    return None


def denied_date(a: Statement, b: Statement) -> tuple[Date, Date] | None:
    """``b`` denies a date ``a`` gives as so ("signed in 2013" / "July 14th 2015 so not 2013")."""
    for first in dates_of(a):
        for second in dates_of(b):
            if not first.negated and second.negated and not _differ(first, second):
                if (first.year, first.month, first.day) == (second.year, second.month, second.day):
                    return first, second
    return None


def same_date_stated(dates: Sequence[Date], date: Date) -> bool:
    """One of ``dates`` (not denied) gives ``date``'s parts: the passage states it too."""
    return any(
        not other.negated and not _differ(other, date) and (other.year or other.month) for other in dates
    )


dates_differ = _differ
dates_a_figure = _dates_a_figure
