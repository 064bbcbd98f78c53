"""What a sub-question asks, in terms: the words that count, how rare each is, and agreement."""

from __future__ import annotations

import math
from collections.abc import Sequence

from researchapp.pipeline.text.quantities import extract_quantities
from researchapp.pipeline.text.sentences import split_sentences
from researchapp.pipeline.text.tokens import tokenize
from researchapp.pipeline.values import SubQuestion

MIN_COVERED_TERMS = 2
# A sentence "says the same" as a statement when it holds this share of the statement's terms.
AGREEMENT = 0.6

# Words the planner's templates put into every sub-question: they rank, but they are not a topic,
# so they do not count towards the coverage a passage needs to be evidence.
GENERIC_TERMS = frozenset(
    """
    differ difference different compare comparison compared key fact figure statistic recent
    development latest main overview background important current trend issue aspect way
    thing kind type known evidence say said source
    区别 不同 差异 对比 比较 方面 有何 何不 哪些 什么 主要 关键 事实 数据 最新 进展 情况 相关
    如何 怎样 有哪 些什 有什
    """.split()
)


def subquestion_terms(subquestion: SubQuestion) -> list[str]:
    """The sub-question's terms and its queries' terms, each once, in order of appearance."""
    text = " ".join((subquestion.text, *subquestion.queries))
    return list(dict.fromkeys(tokenize(text)))


def aspect_terms(subquestion: SubQuestion) -> list[str]:
    """Content terms of the sub-question text that its queries do not all repeat.

    Terms every query repeats name the subject ("rust", "go"); the rest say which side of it
    is asked about ("cost"). Without queries there is no telling them apart: no aspect.
    """
    if not subquestion.queries:
        return []
    repeated = set.intersection(*(set(tokenize(query)) for query in subquestion.queries))
    return [
        t for t in dict.fromkeys(tokenize(subquestion.text)) if t not in repeated and t not in GENERIC_TERMS
    ]


def required_coverage(content_terms: Sequence[str]) -> int:
    return min(MIN_COVERED_TERMS, len(content_terms))


def term_weights(quotes: Sequence[str], terms: Sequence[str]) -> dict[str, float]:
    """Inverse sentence frequency of each term over ``quotes``."""
    sentences = [set(tokenize(q[s:e])) for q in quotes for s, e in split_sentences(q)]
    total = len(sentences) or 1
    return {
        term: math.log(1.0 + total / (1 + sum(1 for sentence in sentences if term in sentence)))
        for term in terms
    }


def _same_figure(a: float, b: float, kind: str) -> bool:
    if kind == "percent":
        return abs(a - b) <= 0.5
    return abs(a - b) <= 0.01 * max(abs(a), abs(b), 1e-9)


def says_the_same(sentence: str, quote: str) -> bool:
    """``quote`` holds most of the sentence's words and every one of its figures."""
    if sentence in quote:
        return True
    sentence_terms = set(tokenize(sentence))
    if not sentence_terms:
        return False
    covered = len(sentence_terms.intersection(tokenize(quote))) / len(sentence_terms)
    if covered < AGREEMENT:
        return False
    quote_figures = extract_quantities(quote)
    return all(
        any(
            mine.kind == theirs.kind and _same_figure(mine.value, theirs.value, mine.kind)
            for theirs in quote_figures
        )
        for mine in extract_quantities(sentence)
    )
