"""What a pair's question asks: the kind of fact (a figure, a date, a name, yes or no) and its terms.

Two passages found for one question are about that question's subject when each holds its terms,
even if they share few words with each other ("revenues to the Treasury increase after we lowered
taxes" / "total revenue ... has actually fallen"); and the slot where they differ is the one the
question asks about: a figure for "how many", a date for "when", a name for "who" or "where",
whether it is so for "did", "is", "can".
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from researchapp.pipeline.text.answer_type import AnswerType, answer_type_of
from researchapp.pipeline.text.contradiction.statements import statements_of

NUMBER, DATE, ENTITY, POLAR = "number", "date", "entity", "polar"
_ASKS = (
    (
        NUMBER,
        r"how\s+(?:many|much|long|old|often|far|big|large|high|fast)\b|(?:what|which)\s+(?:is\s+|was\s+|are\s+|"
        r"were\s+)?(?:the\s+)?(?:percentage|proportion|share|number|amount|fraction|rate|price|cost|value|"
        r"size|total|figure|sum|ranking|rank|place|position)\b|where\s+does\s+\S+(?:\s+\S+)?\s+(?:place|rank)\b",
    ),
    (
        DATE,
        r"when\b|since\s+when\b|(?:what|which|in\s+what|in\s+which)\s+(?:date|year|day|month|time|decade)\b",
    ),
    (
        ENTITY,
        r"who\b|whom\b|whose\b|where\b|which\b|what\s+(?:caused|causes|cause|country|company|city|state|"
        r"organi[sz]ation|person|group|party|team|firm|agency|language|place)\b",
    ),
    (
        POLAR,
        r"(?:is|are|was|were|do|does|did|can|could|has|have|had|will|would|should|may|might|must|"
        r"isn't|aren't|wasn't|didn't|doesn't)\b",
    ),
)
_KIND = [(kind, re.compile(r"^\W*(?:" + pattern + ")", re.IGNORECASE)) for kind, pattern in _ASKS]
_CLAUSE = re.compile(r"[^.?!\n]+")
# A yes-or-no question that states a date or a figure asks whether it holds ("Did the unions call a
# strike from September 25th 2019?", "Were they in jail for 20 years?"): sources that give another
# answer the same question with another date or figure.
_STATED_DATE = re.compile(
    r"\b(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\.?\s+\d{1,2}(?:st|nd|rd|th)?\b|"
    r"\b\d{1,2}(?:st|nd|rd|th)?\s+(?:of\s+)?(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\b|"
    r"\b(?:in|since|from|on|until|before|after)\s+(?:1[5-9]|20)\d\d\b",
    re.IGNORECASE,
)
_STATED_FIGURE = re.compile(r"\d|\bmajority\b|\bper\s?cent\b", re.IGNORECASE)


@dataclass(frozen=True)
class Focus:
    kinds: frozenset[str]  # what the question's sentences ask for: number, date, entity, polar
    roots: frozenset[str]  # the question's topic roots (as ``Statement.topic`` reads them)

    def asks(self, kind: str) -> bool:
        return kind in self.kinds


NO_FOCUS = Focus(frozenset(), frozenset())
_MANY_NAMES = frozenset((AnswerType.LIST, AnswerType.DEFINITION))


def asked_kind(question: str) -> str:
    """The kind a single question asks for, "" when it asks something else ("What were the 13
    people arrested for")."""
    for kind, pattern in _KIND:
        if pattern.match(question):
            if kind == ENTITY and answer_type_of(question) in _MANY_NAMES:
                # "Which values can journal_mode be set to?", "What is a fast-forward?": many names
                # answer a list, and a definition is no name: two pages naming others disagree on nothing.
                return ""
            return kind
    return ""


@lru_cache(maxsize=512)
def focus_of(question: str) -> Focus:
    """Each sentence of ``question`` (a sub-question and the task's question) read for its kind;
    its topic roots together."""
    if not question.strip():
        return NO_FOCUS
    kinds = frozenset(kind for part in _CLAUSE.findall(question) if (kind := asked_kind(part)))
    if POLAR in kinds:
        dated = bool(_STATED_DATE.search(question))
        kinds |= {DATE} if dated else set()
        if _STATED_FIGURE.search(_STATED_DATE.sub(" ", question)):
            kinds |= {NUMBER}
    roots = frozenset().union(*(s.topic for s in statements_of(question)))
    return Focus(kinds, roots)
