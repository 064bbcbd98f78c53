"""What every plan must be, whichever engine drafted it: 3–6 distinct sub-questions, each with
1–3 distinct search queries that are keywords, not code.

A small model repeats itself ("What is X?" twice), writes SQL where a search query belongs, or
gives a sub-question no usable query. ``validated_plan`` copes instead of failing: duplicates go,
a query that reads as code is replaced by the sub-question's own keywords, and a plan left with
fewer than three sub-questions is topped up from the template plan of the same question.
"""

from __future__ import annotations

import re

from researchapp.pipeline.planner import templates as t
from researchapp.pipeline.text.answer_type import FACTUAL, AnswerType, answer_type_of
from researchapp.pipeline.text.question import english_key_terms, is_long_request
from researchapp.pipeline.text.tokens import cjk_count, tokenize
from researchapp.pipeline.values import Plan, PlannedSubQuestion

MIN_SUBQUESTIONS = 3
MAX_SUBQUESTIONS = 6
MAX_QUERIES = 3
MAX_QUERY_WORDS = 12
# SQL is a statement's shape ("SELECT * FROM t", "INSERT INTO t"), not its keywords named in prose:
# "INSERT UPDATE DELETE statements RETURNING" is what a question about those statements searches.
_CODE = re.compile(
    r"[;{}`<>=$\\]|\w+\(.*\)|::|->|https?://|"
    r"\bSELECT\b.*\bFROM\b|\b(?:INSERT\s+INTO|DELETE\s+FROM|UPDATE\s+\w+\s+SET)\b|"
    r"\b(?:CREATE|ALTER|DROP)\s+(?:TABLE|INDEX|VIEW|TRIGGER)\s+\S|\bWHERE\s+\w+\s*(?:IN|LIKE|IS)\b",
)


def reads_as_code(query: str) -> bool:
    """SQL, a function call, a URL or markup: what a search engine reads as noise."""
    return bool(_CODE.search(query))


MAX_QUERY_CHARS_ZH = 40


def keyword_query(text: str) -> str:
    """A search query made of a sentence's own content words."""
    if cjk_count(text) >= 2:
        text = " ".join(re.sub(r"[，。？！、；：,.?!;:]", " ", text).split())
        if len(text) <= MAX_QUERY_CHARS_ZH:
            return text
        cut = text.rfind(" ", 0, MAX_QUERY_CHARS_ZH + 1)
        return text[: cut if cut > MAX_QUERY_CHARS_ZH // 2 else MAX_QUERY_CHARS_ZH]
    return " ".join(english_key_terms(re.sub(r"[^\w\s'-]", " ", text)).split()[:MAX_QUERY_WORDS])


def _same(a: str, b: str) -> bool:
    """The same content words, whatever the order and the small words: "What is X?" / "X: what is it?".
    Dimension sub-questions differ by one word ("... in cost?", "... in performance?"), so only
    the same set of words counts as a repeat."""
    terms_a, terms_b = set(tokenize(a)), set(tokenize(b))
    if not terms_a or not terms_b:
        return a.strip().lower() == b.strip().lower()
    return terms_a == terms_b


def _clean_queries(text: str, proposed: tuple[str, ...]) -> tuple[str, ...]:
    queries: list[str] = []
    for query in proposed:
        query = " ".join(query.split())
        if reads_as_code(query):
            query = keyword_query(text)
        elif len(query.split()) > MAX_QUERY_WORDS or (
            cjk_count(query) >= 2 and len(query) > MAX_QUERY_CHARS_ZH
        ):
            query = keyword_query(query)
        if query and query.lower() not in (q.lower() for q in queries):
            queries.append(query)
    return tuple(queries[:MAX_QUERIES]) or (keyword_query(text) or text,)


def validated_plan(
    proposed: Plan, fallback: Plan, *, question: str = "", common: frozenset[str] = frozenset()
) -> Plan:
    """1. Clean every sub-question's queries. 2. Drop sub-questions that repeat an earlier one, and
    template filler (``is_filler``). 3. Top up from ``fallback`` (the template plan) to three,
    skipping repeats and filler; cut at six."""
    kept: list[PlannedSubQuestion] = []
    for subquestion in proposed.subquestions:
        if not is_filler(subquestion.text, question=question, common=common):
            _keep(kept, subquestion)
    for subquestion in fallback.subquestions:
        if len(kept) >= MIN_SUBQUESTIONS:
            break
        if not is_filler(subquestion.text, question=question, common=common):
            _keep(kept, subquestion)
    return Plan(intent=proposed.intent, subquestions=tuple(kept[:MAX_SUBQUESTIONS]))


def is_filler(text: str, *, question: str = "", common: frozenset[str] = frozenset()) -> bool:
    """A sub-question that asks nothing of its own: "What is known about SQLite?" in a corpus every
    page of which names SQLite (``common``), or, for a factual question, a template that would fit
    any topic ("What are the recent developments in …", "Which facts and figures bear on this?")."""
    text = " ".join(text.split())
    about = _ABOUT.match(text)
    if about and (not tokenize(about.group(1)) or set(tokenize(about.group(1))) <= common):
        return True
    if not question or is_long_request(question, cjk_count(question) >= 2):
        return False
    factual = answer_type_of(question) in FACTUAL - {AnswerType.COMPARISON}
    return factual and any(frame.match(text) for frame in _FILLER_FRAMES)


def _frame(template: str) -> re.Pattern[str]:
    parts = [re.escape(part) for part in re.split(r"\{[a-z]\}", template)]
    return re.compile("^" + ".+".join(parts) + "$", re.IGNORECASE)


_ABOUT = re.compile(r"^What is known about (.+?)\?$", re.IGNORECASE)
_FILLER_FRAMES = tuple(
    _frame(text)
    for table in (
        t.DESCRIPTIVE_EN,
        t.DESCRIPTIVE_EN_BARE,
        t.DESCRIPTIVE_ZH,
        t.DESCRIPTIVE_ZH_BARE,
        t.RECOMMENDATION_EN,
        t.RECOMMENDATION_EN_BARE,
        t.RECOMMENDATION_ZH,
        t.RECOMMENDATION_ZH_BARE,
    )
    for text, _, _ in table
)


def _keep(kept: list[PlannedSubQuestion], subquestion: PlannedSubQuestion) -> None:
    text = " ".join(subquestion.text.split())
    if text and not any(_same(text, other.text) for other in kept):
        kept.append(
            PlannedSubQuestion(text, subquestion.rationale, _clean_queries(text, subquestion.queries))
        )
