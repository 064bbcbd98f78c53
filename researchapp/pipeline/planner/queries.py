"""Search queries for a sub-question: the one query maker every plan's queries come from.

``search_queries`` makes the queries of a template sub-question (the question's key terms, its
context and the template's extra words). ``queries_for_subquestion`` makes them for any
sub-question text, e.g. one an analyst rewrote at the plan gate: the words the text adds to the
question become the extra words, so a rewritten sub-question searches for what it now asks.
"""

from __future__ import annotations

import re
from dataclasses import replace

from researchapp.pipeline.text.crosslang import Vocabulary, keywords, text_language, translate
from researchapp.pipeline.text.question import (
    QUERY_NOISE,
    Reading,
    english_key_terms,
    is_long_request,
    read_question,
)
from researchapp.pipeline.text.tokens import STOPWORDS, cjk_count
from researchapp.pipeline.values import Plan

MAX_QUERIES = 3
MAX_TOPIC_WORDS = 8
# A Chinese query's core leaves room for a sub-question's own words within the 40 characters
# ``planner.checks`` allows.
MAX_CORE_CHARS_ZH = 28

# Words of a sub-question that ask rather than say what it is about.
_ASKING_WORDS = frozenset(
    """what which who whom whose how why when where is are was were do does did can could should would
    will key main major facts figures known say says evidence about regarding differ difference
    differences between compared compare each other ones""".split()
)
# The same for Chinese: question words and the templates' frames ("在…方面有何不同").
_ZH_ASKING = re.compile(
    r"有哪些|有什么|是什么|是多少|有多少|怎么样|如何|有何不同|有何|哪些|什么|多少|为什么|吗|呢|"
    r"方面|情况|关于|对于|有关|的|在|和|与|是|[？?。.，,！!：:；;、\s]"
)


def search_queries(reading: Reading, extra: str, depth: str, *, question: str = "") -> tuple[str, ...]:
    """1–3 queries: the question's core (its options side by side, or its key terms) with its
    context and ``extra``, then the core alone (or, for a comparison, each option with ``extra``),
    and for "deep" a query asking for studies. A Chinese question's queries are its content words
    (``crosslang.keywords``), a short question's all of them: "默认编译设置下，SQLite 的一张表最多
    可以有多少列？" searches "默认 编译 设置 SQLite 表 列", not its subject's characters run together."""
    joiner = " " if reading.chinese else " vs "
    core = joiner.join(reading.options) if reading.options else reading.key_terms
    context = reading.context if reading.chinese else english_key_terms(reading.context)
    if reading.chinese:
        text = " ".join(question.split())
        asked = text.endswith(("？", "?")) and not is_long_request(text, True)
        # A comparison's options are names, kept as written ("燃油车", not 燃油 + 车).
        core = core if reading.options else _fit(keywords(text if asked else core), MAX_CORE_CHARS_ZH)
        context, extra = keywords(context), keywords(extra)
    first = " ".join(part for part in (core, context, extra) if part)
    candidates = [first, " ".join(part for part in (core, context) if part)]
    if len(reading.options) > 1 and extra:
        # A side-by-side query finds comparison pages; a page about one option alone (its
        # maker's launch note, a review of it) is found by a query naming that option.
        candidates[1:] = [
            " ".join(part for part in (option, context, extra) if part) for option in reading.options
        ]
    if depth == "deep":
        first_extra = extra.split(" ")[0] if extra else ""
        candidates.append(
            " ".join(part for part in (core, first_extra, "研究" if reading.chinese else "study"))
        )
    return tuple(dict.fromkeys(" ".join(q.split()) for q in candidates if q.strip()))[:MAX_QUERIES]


def _fit(words: str, limit: int) -> str:
    """The first words of ``words`` that fit in ``limit`` characters."""
    kept: list[str] = []
    for word in words.split():
        if len(" ".join([*kept, word])) > limit:
            break
        kept.append(word)
    return " ".join(kept)


def topic_words(text: str, reading: Reading) -> str:
    """What ``text`` is about beyond the question: its content words the question does not use.

    "How punctual is the Harbor City tram at rush hour?" for "How busy is the Harbor City tram?"
    is about "punctual rush hour"; in Chinese the question's subject and options are cut out of
    the text with the asking words around them ("电动汽车和燃油车的充电时间有何不同" → "充电时间").
    """
    if reading.chinese or cjk_count(text) >= 2:
        rest = text
        for part in sorted((*reading.options, reading.subject, reading.key_terms), key=len, reverse=True):
            if part:
                rest = rest.replace(part, " ")
        return keywords(_ZH_ASKING.sub(" ", rest))[:40]
    known = {word.lower() for word in re.findall(r"[^\W_]+", f"{reading.key_terms} {reading.subject}")}
    known |= {word.lower() for option in reading.options for word in re.findall(r"[^\W_]+", option)}
    words = re.findall(r"[^\W_]+(?:[-'][^\W_]+)*", text)
    kept = [
        word
        for word in words
        if word.lower() not in known | STOPWORDS | QUERY_NOISE | _ASKING_WORDS and not word.isdigit()
    ]
    return " ".join(list(dict.fromkeys(kept))[:MAX_TOPIC_WORDS])


def queries_for_subquestion(question: str, text: str, *, depth: str = "quick") -> tuple[str, ...]:
    """The queries the planner would give a sub-question reading ``text`` in a plan for ``question``."""
    reading = read_question(question)
    return search_queries(reading, topic_words(text, reading), depth, question=question)


def queries_in_language(plan: Plan, language: str, vocabulary: Vocabulary, *, question: str = "") -> Plan:
    """The plan with every query in the sources' language (``language``): a Chinese question over
    an English corpus searches for its words' English, senses chosen by the corpus's own words
    (``vocabulary``), names as written. Queries in that language already, and sub-questions, stay.

    A short question's query is translated whole, with the words the query adds to it: a Chinese
    query was cut to 40 characters, which a few names in Latin letters fill ("git init 指定
    object-format 新" is all that is left of "…新仓库默认使用哪种哈希算法"), and an English one
    holds 12 words, whatever their length."""
    text = " ".join(question.split())
    whole = keywords(text) if text.endswith(("？", "?")) and not is_long_request(text, True) else ""
    subquestions = []
    for subquestion in plan.subquestions:
        translated = [
            query
            if text_language(query) == language
            else translate(_with_question(query, whole), language, vocabulary).query
            for query in subquestion.queries
        ]
        queries = tuple(dict.fromkeys(query for query in translated if query.strip())) or subquestion.queries
        subquestions.append(replace(subquestion, queries=queries))
    return replace(plan, subquestions=tuple(subquestions))


def _with_question(query: str, whole: str) -> str:
    """The question's keywords (``whole``) with the words ``query`` adds to them, or ``query``."""
    if not whole:
        return query
    added = [word for word in query.split() if word not in whole.split()]
    return " ".join([whole, *added])
