"""The extractive planner: sub-questions and search queries from the question and templates, no model.

What a request asks comes first, in its own words: a short question as asked; a long request's
own asks, each as a question, and the aspects it lists (``text.request``). Templates fill the
plan with the request's topic; a request with no topic that reads as a noun phrase gets templates
that need none ("What has changed recently?"), never a template wrapped around a whole sentence.

A comparative question gets one sub-question per *dimension of difference*, each naming every
option, so the evidence for each dimension is compared side by side instead of being collected
per option and never set against each other. The dimensions are the ones the sources discuss
(``collector.dimensions``, given as ``dimensions``), after any criterion the question names
itself; without sources to tell, cost, performance, adoption and risks.
"""

from __future__ import annotations

import re
from dataclasses import replace

from researchapp.core.enums import Intent
from researchapp.pipeline.planner import templates as t
from researchapp.pipeline.planner.queries import search_queries, topic_words
from researchapp.pipeline.planner.revise import revise_plan
from researchapp.pipeline.text.answer_type import FACTUAL, AnswerType, answer_type_of
from researchapp.pipeline.text.facets import facet_templates
from researchapp.pipeline.text.question import (
    Reading,
    asks_its_own_criterion,
    english_key_terms,
    read_question,
)
from researchapp.pipeline.text.tokens import tokenize
from researchapp.pipeline.values import Plan, PlannedSubQuestion, UsageLog

MAX_SUBQUESTIONS = 6
MAX_FACTUAL_WORDS = 40
QUICK_COUNT = 4
QUICK_FACETS = 2  # deep research asks a third facet too
MIN_SPECIFIC_TERMS = 4
# Read as a comparison by a "than" ("newer than 3.32.0"), these still ask for one figure.
_FIGURES = frozenset((AnswerType.QUANTITY, AnswerType.LIMIT))
# Asked for one value, a question is factual however few its words ("默认使用哪一种事务？").
_VALUE_ASKS = frozenset(
    (AnswerType.QUANTITY, AnswerType.LIMIT, AnswerType.VERSION, AnswerType.NAME, AnswerType.LIST)
)
_IMPERATIVE_ASK = re.compile(r"^(?:name|list|give|tell|describe|explain|define|state)\b", re.IGNORECASE)
MAX_NAME_SUBQUESTIONS = 2
# Words of the templates' frames, not of what a template asks about.
_FRAME_WORDS = frozenset(
    tokenize("what are is the key main how expected change coming years behind known about")
)


def _fill(template: str, reading: Reading, *, aspect: str = "", question: str = "") -> str:
    options = tuple(_as_written(option, question) for option in reading.options)
    a = options[0] if options else reading.topic
    b = " and ".join(options[1:]) if not reading.chinese else "和".join(options[1:])
    text = template.format(s=reading.topic, a=a, b=b, c=reading.criterion, x=aspect)
    if reading.context and not reading.chinese and "{a}" in template and reading.context != reading.criterion:
        # "... better suited than MySQL for analytics, and vice versa?", not "... vice versa for analytics?"
        head, comma, tail = text[:-1].partition(", and vice versa")
        text = f"{head} {reading.context}{comma}{tail}?"
    return text


def _descriptive(reading: Reading, question: str, count: int) -> list[t.Template]:
    """1. What the request asks: the question as asked, or a long request's own asks. 2. The aspects
    it lists. 3. For a short question about named things, what is known about each name. 4. The
    intent's templates, with the topic if it reads as a noun phrase, else their bare forms."""
    zh = reading.chinese
    chosen: list[t.Template] = []
    if reading.asks:
        chosen += [(ask, t.ASKED_ZH if zh else t.ASKED_EN, "") for ask in reading.asks]
    elif reading.topic and reading.topic != reading.subject:
        # A request that asks nothing in so many words ("收集整理 X 的相关资料") is asked about its topic.
        topic_ask = t.TOPIC_ZH if zh else t.TOPIC_EN
        chosen.append((_fill(topic_ask[0], reading), topic_ask[1], ""))
    elif not reading.aspects:
        lead = "用户提出的原问题。" if zh else "The question as asked."
        chosen.append((" ".join(question.split()), lead, ""))
    aspect = (
        (t.ASPECT_ZH if zh else t.ASPECT_EN)
        if reading.topic
        else (t.ASPECT_ZH_BARE if zh else t.ASPECT_EN_BARE)
    )
    chosen += [(_fill(aspect[0], reading, aspect=item), aspect[1], item) for item in reading.aspects]
    if reading.intent is Intent.DESCRIPTIVE and not reading.topic:
        chosen += _about_names(reading.names)
    if reading.intent is Intent.RECOMMENDATION:
        table = (
            (t.RECOMMENDATION_ZH if zh else t.RECOMMENDATION_EN)
            if reading.topic
            else (t.RECOMMENDATION_ZH_BARE if zh else t.RECOMMENDATION_EN_BARE)
        )
    else:
        table = (
            (t.DESCRIPTIVE_ZH if zh else t.DESCRIPTIVE_EN)
            if reading.topic
            else (t.DESCRIPTIVE_ZH_BARE if zh else t.DESCRIPTIVE_EN_BARE)
        )
    # "the recent developments in the recent research progress": a template its topic names is left out.
    named = set(tokenize(reading.topic)) - _FRAME_WORDS
    chosen += [
        (_fill(text, reading), why, extra)
        for text, why, extra in table
        if not named & set(tokenize(f"{text} {extra}"))
    ]
    return chosen[:count]


def is_factual(reading: Reading, question: str) -> bool:
    """A plain question asking for a fact (a value, a version, a name, a list, a definition, what
    happens, how to), not an open request and not a comparison of options."""
    text = " ".join(question.split())
    if len(reading.asks) > 1 or reading.aspects or len(text.split()) > MAX_FACTUAL_WORDS:
        return False
    if not text.endswith(("?", "？")) and not _IMPERATIVE_ASK.match(text):
        return False
    answer_type = answer_type_of(text)
    if reading.intent is Intent.RECOMMENDATION or answer_type not in FACTUAL - {AnswerType.COMPARISON}:
        return False
    if reading.intent is Intent.COMPARATIVE and answer_type not in _FIGURES:
        return False  # "Which band was formed first, A or B?": a choice between options
    # "What is CRISPR?", "中国电动汽车市场的现状如何？": a broad question is an open request.
    specific = reading.chinese or len(english_key_terms(text).split()) >= MIN_SPECIFIC_TERMS
    return answer_type in _VALUE_ASKS or (specific and not reading.chinese)


def _factual(reading: Reading, question: str, count: int) -> list[t.Template]:
    """1. The question as asked. 2. For a question about named things, what is known about each
    (a multi-hop question's later pages are found through them); never a name every page of the
    corpus holds, nor a code keyword. 3. The facets of its answer type (``text.facets``)."""
    zh = reading.chinese
    chosen: list[t.Template] = [
        (" ".join(question.split()), "用户提出的原问题。" if zh else "The question as asked.", "")
    ]
    if not reading.topic:  # a question about named things, not about one noun phrase
        chosen += _about_names(tuple(name for name in reading.names if not _is_keyword(name)))
    # A facet asks its follow-up bare ("How is it set or changed?"): a question's words cut into a
    # topic read badly inside a template, and the facet's queries carry the question's key terms.
    facets = facet_templates(answer_type_of(question), chinese=zh, topic=False)
    chosen += list(facets if count > QUICK_COUNT else facets[:QUICK_FACETS])
    return chosen[:count]


def _is_keyword(name: str) -> bool:
    """A code keyword written in capitals ("PRAGMA", "WITHOUT ROWID"), not a proper name."""
    return all(word.isupper() and len(word) > 3 for word in name.split())


def _comparative(
    reading: Reading, question: str, count: int, dimensions: tuple[str, ...] | None
) -> list[t.Template]:
    """1. A criterion the question names ("including their fire safety"), or the question itself
    when it names what decides it ("Which band was formed first, A or B?"). 2. The dimensions the
    sources discuss (``dimensions``), or the default ones. 3. The overview and use-case questions."""
    zh = reading.chinese
    by_dimension, general = (
        (t.COMPARATIVE_ZH, t.COMPARATIVE_ZH_GENERAL) if zh else (t.COMPARATIVE_EN, t.COMPARATIVE_EN_GENERAL)
    )
    chosen: list[t.Template] = []
    if reading.criterion:
        text, why, extra = t.CRITERION_ZH if zh else t.CRITERION_EN
        chosen.append((_fill(text, reading, question=question), why, extra.format(c=reading.criterion)))
    elif asks_its_own_criterion(question, reading):
        # "Which band was formed first, A or B?" is decided by each option's own pages, not by cost:
        # the question, what is known about each option, the overview, then what the sources discuss.
        chosen.append((" ".join(question.split()), "The question as asked.", ""))
        if not zh:
            chosen += _about_names(tuple(_as_written(option, question) for option in reading.options))
        chosen += [(_fill(text, reading, question=question), why, extra) for text, why, extra in general[:1]]
        dimensions = dimensions or ()
    names = t.DEFAULT_DIMENSIONS if dimensions is None else dimensions
    chosen += [
        (_fill(by_dimension[name][0], reading, question=question), *by_dimension[name][1:])
        for name in names
        if name in by_dimension
    ]
    chosen += [(_fill(text, reading, question=question), why, extra) for text, why, extra in general]
    return list(dict.fromkeys(chosen))[:count]


def _about_names(names: tuple[str, ...]) -> list[t.Template]:
    text, why, _ = t.NAME_EN
    return [(text.format(s=name), why, f"{_NAME_QUERY}{name}") for name in names[:MAX_NAME_SUBQUESTIONS]]


# A sub-question about one name searches for that name first (its own pages), then with the question.
_NAME_QUERY = "name:"


def _queries(reading: Reading, text: str, extra: str, depth: str, question: str) -> tuple[str, ...]:
    """The one query maker's queries (``queries.search_queries``) with the words this sub-question
    adds to the question."""
    if extra.startswith(_NAME_QUERY):
        name = extra.removeprefix(_NAME_QUERY)
        return tuple(dict.fromkeys((name, search_queries(reading, "", depth, question=question)[0])))
    words = extra if extra else topic_words(text, reading) if text != reading.subject else ""
    return tuple(
        _without_repeats(query) for query in search_queries(reading, words, depth, question=question)
    )


def template_plan(
    reading: Reading,
    question: str,
    *,
    depth: str = "quick",
    dimensions: tuple[str, ...] | None = None,
) -> tuple[PlannedSubQuestion, ...]:
    """4 sub-questions for "quick", 6 for "deep" (see ``_descriptive`` and ``_comparative``)."""
    count = 6 if depth == "deep" else QUICK_COUNT
    if is_factual(reading, question):
        # Read as a comparison by its "than" ("newer than 3.32.0"), a factual question has no options.
        reading = replace(reading, options=(), context="", criterion="", asks=())
        chosen = _factual(reading, question, count)
    elif reading.intent is Intent.COMPARATIVE:
        chosen = _comparative(reading, question, count, dimensions)
    else:
        chosen = _descriptive(reading, question, count)
    return tuple(
        PlannedSubQuestion(text=text, rationale=why, queries=_queries(reading, text, extra, depth, question))
        for text, why, extra in dict.fromkeys(chosen)
    )


def plan_extractive(
    question: str,
    *,
    depth: str = "quick",
    feedback: str = "",
    dimensions: tuple[str, ...] | None = None,
    previous: Plan | None = None,
) -> Plan:
    """A plan of 3–6 sub-questions, each with 1–3 queries that carry the question's key terms.

    1. Read the question: language, intent, topic, options and criterion of a comparison, a long
       request's asks and aspects.
    2. Compose the sub-questions (``template_plan``), a comparison's from the ``dimensions`` its
       sources discuss.
    3. With an analyst's feedback, revise the ``previous`` version (or, without one, the plan of
       step 2) by it: the feedback's edits applied, the rest kept (``revise.revise_plan``).
    """
    reading = read_question(question)
    if feedback.strip():
        base = previous or Plan(
            reading.intent, template_plan(reading, question, depth=depth, dimensions=dimensions)
        )
        return revise_plan(question, base, feedback, depth=depth).plan
    subquestions = template_plan(reading, question, depth=depth, dimensions=dimensions)
    return Plan(intent=reading.intent, subquestions=subquestions)


def _without_repeats(query: str) -> str:
    """ "world's wealthiest governments invest world's" → each word once."""
    return " ".join(dict.fromkeys(query.split()))


def _as_written(option: str, question: str) -> str:
    """An option with the article the question gave it: "the Kestrel battery", not "Kestrel battery"."""
    if question and re.search(rf"\bthe\s+{re.escape(option)}", question, re.IGNORECASE):
        return f"the {option}"
    return option


class ExtractivePlanner:
    """``Planner`` without a model: the same question always gives the same plan."""

    name = "extractive"

    def __init__(self) -> None:
        self.note = ""

    def plan(
        self,
        question: str,
        *,
        depth: str,
        feedback: str = "",
        usage: UsageLog,
        dimensions: tuple[str, ...] | None = None,
        previous: Plan | None = None,
    ) -> Plan:
        plan = plan_extractive(
            question, depth=depth, feedback=feedback, dimensions=dimensions, previous=previous
        )
        return plan
