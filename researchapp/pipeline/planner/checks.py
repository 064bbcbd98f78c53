"""What every plan must be, whichever engine drafted it: 3–6 distinct sub-questions, each with
1–3 distinct search queries that are keywords, not code.

A small model repeats itself ("What is X?" twice), writes SQL where a search query belongs, or
gives a sub-question no usable query. ``validated_plan`` copes instead of failing: duplicates go,
a query that reads as code is replaced by the sub-question's own keywords, and a plan left with
fewer than three sub-questions is topped up from the template plan of the same question.
"""

from __future__ import annotations

import re

from researchapp.pipeline.text.question import english_key_terms
from researchapp.pipeline.text.tokens import cjk_count, tokenize
from researchapp.pipeline.values import Plan, PlannedSubQuestion

MIN_SUBQUESTIONS = 3
MAX_SUBQUESTIONS = 6
MAX_QUERIES = 3
MAX_QUERY_WORDS = 12
_CODE = re.compile(
    r"[;{}`<>=$\\]|\b(?:SELECT|INSERT|UPDATE|DELETE|CREATE|ALTER|DROP|FROM|WHERE|JOIN)\b\s+\S|\w+\(.*\)|::|->|https?://",
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


def validated_plan(proposed: Plan, fallback: Plan) -> Plan:
    """1. Clean every sub-question's queries. 2. Drop sub-questions that repeat an earlier one.
    3. Top up from ``fallback`` (the template plan) to three, skipping repeats; cut at six."""
    kept: list[PlannedSubQuestion] = []
    for subquestion in proposed.subquestions:
        _keep(kept, subquestion)
    for subquestion in fallback.subquestions:
        if len(kept) >= MIN_SUBQUESTIONS:
            break
        _keep(kept, subquestion)
    return Plan(intent=proposed.intent, subquestions=tuple(kept[:MAX_SUBQUESTIONS]))


def _keep(kept: list[PlannedSubQuestion], subquestion: PlannedSubQuestion) -> None:
    text = " ".join(subquestion.text.split())
    if text and not any(_same(text, other.text) for other in kept):
        kept.append(
            PlannedSubQuestion(text, subquestion.rationale, _clean_queries(text, subquestion.queries))
        )
