"""Search queries for a sub-question: the one query maker every plan's queries come from.

``search_queries`` makes the queries of a template sub-question (the question's key terms, its
context and the template's extra words). ``queries_for_subquestion`` makes them for any
sub-question text, e.g. one an analyst rewrote at the plan gate: the words the text adds to the
question become the extra words, so a rewritten sub-question searches for what it now asks.
"""

from __future__ import annotations

import re

from researchapp.pipeline.text.question import QUERY_NOISE, Reading, english_key_terms, read_question
from researchapp.pipeline.text.tokens import STOPWORDS, cjk_count

MAX_QUERIES = 3
MAX_TOPIC_WORDS = 8

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


def search_queries(reading: Reading, extra: str, depth: str) -> tuple[str, ...]:
    """1–3 queries: the question's core (its options side by side, or its key terms) with its
    context and ``extra``, then the core alone (or, for a comparison, each option with ``extra``),
    and for "deep" a query asking for studies."""
    joiner = " " if reading.chinese else " vs "
    core = joiner.join(reading.options) if reading.options else reading.key_terms
    context = reading.context if reading.chinese else english_key_terms(reading.context)
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
        return " ".join(_ZH_ASKING.sub(" ", rest).split())[:40]
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
    return search_queries(reading, topic_words(text, reading), depth)
