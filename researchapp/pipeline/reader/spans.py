"""Does a piece of a passage state an answer of the asked type, and which words are that answer?

``answer_span(text, analysis, kind=...)`` returns the span of ``text`` that answers (offsets into
``text``) or ``None``: a sentence without the asked type never answers. A quantity must be a figure
in the asked unit (a percentage for "what percentage", an amount of money for "how much does it
cost"); a default or a limit a value (a figure, or the word a "the default is" names); a date or a
version a version number or a date; a name a name the question does not already say; a list an
enumeration (three items, or a lead-in with its items); a definition a sentence that says what its
subject is. Comparisons, procedures, explanations and yes/no questions are answered by whole
sentences, judged by what they hold (``pipeline.reader.extractive``).
"""

from __future__ import annotations

import re
from collections.abc import Collection

from researchapp.pipeline.reader.units import ENTRY, LIST
from researchapp.pipeline.text.answer_type import AnswerType, QuestionAnalysis
from researchapp.pipeline.text.quantities import extract_quantities
from researchapp.pipeline.text.tokens import Span, tokenize

_VERSION = re.compile(r"(?<![\w.])v?\d+\.\d+(?:\.\d+){0,2}(?![\w]|\.\d)")
_NAMED_VERSION = re.compile(
    r"(?:(?<=\bversion )|(?<=\brelease ))v?\d+\.\d+(?:\.\d+){0,2}(?![\w]|\.\d)", re.IGNORECASE
)
_DATE = re.compile(
    r"\b\d{4}-\d{2}-\d{2}\b|\b(?:Jan(?:uary)?|Feb(?:ruary)?|Mar(?:ch)?|Apr(?:il)?|May|June?|July?|Aug(?:ust)?|"
    r"Sep(?:t(?:ember)?)?|Oct(?:ober)?|Nov(?:ember)?|Dec(?:ember)?)\.?\s+\d{1,2},?\s+\d{4}\b|"
    r"\b\d{1,2}\s+(?:January|February|March|April|May|June|July|August|September|October|November|December)"
    r"\s+\d{4}\b|\b(?:January|February|March|April|May|June|July|August|September|October|November|December)"
    r"\s+\d{4}\b|\b(?:1[5-9]|20)\d{2}\b|\d{4}年|\d{1,2}月|"
    r"(?:(?<=\bin )|(?<=\bon )|(?<=\bby )|(?<=\bsince )|(?<=\buntil )|(?<=\bfrom )|(?<=\bduring ))"
    r"(?:(?:early|late|mid-?)\s*)?"
    r"(?:January|February|March|April|May|June|July|August|September|October|November|December)\b"
)
_TIME_UNIT = re.compile(
    r"\s*(?:seconds?|secs?|minutes?|mins?|hours?|hrs?|days?|weeks?|months?|years?|ms|milliseconds?)\b",
    re.IGNORECASE,
)
_DEFAULT_VALUE = re.compile(
    r"\bdefaults?\s+(?:value\s+)?(?:is|was|are|to|of|being)\s+(?:set\s+to\s+)?(?:the\s+)?[\"'“`]?(?P<v>[^\s,;\"'”`)]+)|"
    r"[\"'“`]?(?P<w>[^\s,;\"'”`(]+)[\"'”`]?\s+(?:is|are)\s+the\s+default\b|"
    r"\b(?:is|are|uses?)\s+[\"'“`]?(?P<x>[^\s,;\"'”`]+)[\"'”`]?\s+by\s+default\b|"
    r"\bdefaults?\s+(?:for\s+\S+\s+)?is\s+[\"'“`]?(?P<y>[^\s,;\"'”`]+)",
    re.IGNORECASE,
)
_ENUMERATION = re.compile(
    r"(?:[\w.'\"$-]+(?:\s[\w.'\"$-]+){0,3})(?:\s*(?:,|\||;)\s*(?:(?:and|or)\s+)?[\w.'\"$-]+(?:\s[\w.'\"$-]+){0,3}){2,}"
)
_COPULA = re.compile(
    r"\b(?:is|are)\s+(?:a|an|the|one|said|called|when|any|used)\b|\bmeans?\b|\brefers?\s+to\b|\bis\s+defined\b|"
    r"\bdenotes?\b|\bis\s+known\s+as\b|\b(?:is|are)\s+(?:not\s+)?(?:\w+ed|\w+ing)\b"
)
_NAME_LIKE = re.compile(
    r"(?<![\w-])(?:--?[a-z][\w-]*(?:=\S+)?|\.?[\w-]+(?:/[\w.-]+)+/?|[A-Za-z]+_[\w]+|[A-Z][A-Z0-9]{1,}(?:_[A-Z0-9]+)*"
    r"|[A-Z][\w'’.-]*(?:\s+[A-Z][\w'’.-]*)*|“[^”]{2,40}”|\"[^\"]{2,40}\")"
)
MAX_DEFINED_WORDS = 6  # the words before "is" of a sentence that defines a term
_SENTENCE_STARTERS = frozenset(
    "the a an this that these those it its if when in on at for with by as to of and or but".split()
)


def _in_question(words: str, analysis: QuestionAnalysis) -> bool:
    terms = tokenize(words)
    return bool(terms) and set(terms) <= set(analysis.terms)


# A number inside code or a formula ("VARCHAR(255)", "(N-12)/2", "N≥13") is not a stated value.
_CODE_BEFORE = re.compile(r"(?:\w\(|[=≥≤<>/*+^-]\s?|[\w'\"])$")
_CODE_AFTER = re.compile(r"^(?:\s?[/*+^]|-\d|\w|['\"])")


# A four-digit number is a year where a date's words lead to it ("in 2000", "since 1998"), not in
# "The default setting for SQLITE_MAX_COLUMN is 2000".
_YEAR_BEFORE = re.compile(
    r"(?:\b(?:in|since|until|till|by|from|during|before|after|year|circa|around|of|early|late|mid|to|and)"
    r"|[–-]|年)\s*$",
    re.IGNORECASE,
)


def stated(text: str, start: int, end: int) -> bool:
    """The figure at ``text[start:end]`` stands as a value, not inside code or a formula."""
    return not _CODE_BEFORE.search(text[max(0, start - 2) : start]) and not _CODE_AFTER.match(
        text[end : end + 2]
    )


def quantity_span(text: str, unit: str, *, years: bool = False) -> Span | None:
    """The first figure of ``text`` counted in ``unit`` ("" takes any number but a year), stated
    as a value (not inside code or a formula)."""
    for quantity in extract_quantities(text):
        dated = quantity.kind == "year" and _YEAR_BEFORE.search(text[: quantity.start])
        if (dated and not years) or not stated(text, quantity.start, quantity.end):
            continue
        if unit == "percent" and quantity.kind != "percent":
            continue
        if unit == "money" and quantity.kind != "money":
            continue
        if unit == "time":
            after = _TIME_UNIT.match(text, quantity.end)
            if not after:
                continue
            return quantity.start, after.end()
        return quantity.start, quantity.end
    return None


def version_span(text: str, analysis: QuestionAnalysis) -> Span | None:
    """A version number, or a date; one the question itself names ("newer than 3.32.0") is not an answer."""
    asks_release = analysis.unit == "version" or {"version", "release"} & set(analysis.terms)
    wanted = [_VERSION, _DATE] if asks_release else [_DATE, _VERSION]
    asked = set(analysis.terms)
    # "since version 3.35.0 (2021-03-12)": the number the sentence calls a version or release is it.
    wanted.insert(0, _NAMED_VERSION)
    for pattern in wanted:
        for match in pattern.finditer(text):
            if not set(tokenize(match.group())) <= asked:
                return match.span()
    return None


def default_span(text: str, analysis: QuestionAnalysis) -> Span | None:
    """A default or a limit: the value "the default is" names, or a figure (in the asked unit)."""
    figure = quantity_span(text, analysis.unit)
    named = next(
        (
            match.span(group)
            for match in _DEFAULT_VALUE.finditer(text)
            for group in ("v", "w", "x", "y")
            if match.group(group) and not _in_question(match.group(group), analysis)
        ),
        None,
    )
    if analysis.unit or _asks_for_figure(analysis):
        return figure
    return named or figure


def _asks_for_figure(analysis: QuestionAnalysis) -> bool:
    return bool({"many", "much", "number", "size", "length", "count", "depth", "value"} & set(analysis.focus))


def name_span(text: str, analysis: QuestionAnalysis) -> Span | None:
    """The first name-like words (a capitalised phrase past the sentence's start, a constant, an
    option, a path, a quoted term) the question does not already say."""
    for match in _NAME_LIKE.finditer(text):
        words = match.group().strip('“”"')
        if match.start() == 0 and words.split()[0].lower() in _SENTENCE_STARTERS:
            continue
        if tokenize(words) and not _in_question(words, analysis):
            return match.span()
    return None


def list_span(text: str, kind: str) -> Span | None:
    if kind == LIST:
        return 0, len(text)
    match = _ENUMERATION.search(text)
    return match.span() if match else None


def definition_span(text: str, analysis: QuestionAnalysis, kind: str, term: str) -> Span | None:
    """A sentence that says what its subject is ("A partial index is an index over ..."), or a
    definition list's description of a term the question names."""
    if kind == ENTRY and set(tokenize(term)) & set(analysis.terms):
        return 0, len(text)
    copula = _COPULA.search(text)
    if copula is None:
        return None
    # What is defined opens the sentence: "A partial index is ...", not "(The number of rows in the
    # index is the same ..." which only mentions an index.
    before = tokenize(text[: copula.start()])
    defined = [t for t in analysis.terms if t in before]
    wanted = min(len(analysis.terms), 2) if analysis.terms else 1
    if len(before) <= MAX_DEFINED_WORDS and len(defined) >= wanted:
        return 0, len(text)
    return None


def answer_span(
    text: str, analysis: QuestionAnalysis, *, kind: str = "sentence", term: str = ""
) -> Span | None:
    """The part of ``text`` (a unit of kind ``kind``) that answers a question of ``analysis``'s
    type, or ``None`` when ``text`` states nothing of that type."""
    answer_type = analysis.answer_type
    if answer_type is AnswerType.QUANTITY:
        return quantity_span(text, analysis.unit)
    if answer_type is AnswerType.LIMIT:
        return default_span(text, analysis)
    if answer_type is AnswerType.VERSION:
        return version_span(text, analysis)
    if answer_type is AnswerType.NAME:
        return name_span(text, analysis)
    if answer_type is AnswerType.LIST:
        return list_span(text, kind)
    if answer_type is AnswerType.DEFINITION:
        return definition_span(text, analysis, kind, term)
    return (0, len(text)) if text.strip() else None


def held(terms: Collection[str], text: str) -> set[str]:
    return set(terms) & set(tokenize(text))
