"""Does a statement say what its cited quotes say? The mechanical half of the support check.

A model-written statement may paraphrase, but every figure it states must be in a cited quote
(compared by value: "42%" = "42 percent"), and most of its content words must be there too. What
fails is not stated as fact: the model analyser makes it an item for the evidence gate, the
checker a problem the writer must fix.

A statement to verify (a sub-question that states rather than asks: "Brian Pendleton was a founder
member of The Pretty Things") is borne out by its sources only if some passage of a few sentences
holds most of what it says, each word weighted by its rarity among the sources' sentences, and
the names it mentions (``statement_miss``). Words cannot tell "partly supported" from "supported":
this flags statements whose content the sources do not hold at all.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass

from researchapp.pipeline.text.entities import name_phrases
from researchapp.pipeline.text.quantities import extract_quantities
from researchapp.pipeline.text.sentences import split_sentences
from researchapp.pipeline.text.tokens import cjk_count, tokenize

# Share of a statement's content words its cited quotes must hold (tuned to let a close
# paraphrase through: "costs 4,200 euros" for "is priced at 4,200 euros" holds 3 of 4).
SUPPORT_BAR = 0.5


def _same_number(a: float, b: float) -> bool:
    return abs(a - b) <= 1e-9 * max(abs(a), abs(b), 1.0)


def figures_missing(text: str, quotes: Sequence[str]) -> list[str]:
    """Figures of ``text`` that no quote states."""
    values = [q.value for quote in quotes for q in extract_quantities(quote)]
    return [
        text[q.start : q.end].strip()
        for q in extract_quantities(text)
        if not any(_same_number(q.value, value) for value in values)
    ]


def support_problem(statement: str, quotes: Sequence[str]) -> str:
    """Why ``quotes`` do not support ``statement`` ("" when they do, as far as words and figures tell)."""
    if not quotes:
        return "it cites no passage"
    missing = figures_missing(statement, quotes)
    if missing:
        return f"{', '.join(repr(figure) for figure in missing)} appears in no cited passage"
    terms = set(tokenize(statement))
    if not terms:
        return ""
    held = terms.intersection(term for quote in quotes for term in tokenize(quote))
    share = len(held) / len(terms)
    if share < SUPPORT_BAR:
        return f"only {len(held)} of its {len(terms)} content words are in the cited passages"
    return ""


# --- statements to verify ------------------------------------------------------------------------

# Tuned on the first half of WiCE (bench/insufficient.py --half first; the second half is reported):
# a statement is not borne out when its best window of ``STATEMENT_WINDOW`` sentences misses this
# weighted share of it, counting each name no source mentions for ``NAME_WEIGHT`` more.
STATEMENT_WINDOW = 3
NAME_WEIGHT = 0.2
STATEMENT_MISS_BAR = 0.86
MIN_STATEMENT_WORDS = 5
_ASKS = re.compile(
    r"^(?:what|which|who|whom|whose|when|where|why|how|is|are|was|were|do|does|did|can|could|should|will|"
    r"would|has|have|had)\b",
    re.IGNORECASE,
)
_ZH_ASKS = re.compile(r"如何|怎样|怎么|哪些|哪个|什么|多少|是否|吗|为什么|有何|有没有|[？?]")


def is_statement(text: str) -> bool:
    """A sentence that states something (a claim to verify), not a question or a request."""
    text = " ".join(text.split())
    if cjk_count(text) >= 2:
        return not _ZH_ASKS.search(text) and len(text) >= MIN_STATEMENT_WORDS * 2
    return (
        not text.endswith("?")
        and not _ASKS.match(text)
        and len(text.split()) >= MIN_STATEMENT_WORDS
        and text[:1].isupper()
    )


@dataclass(frozen=True)
class StatementCheck:
    miss: float  # weighted share of the statement its best window does not hold, plus missing names
    missing: tuple[str, ...]  # its names that no source mentions, then its rarest words none holds

    @property
    def borne_out(self) -> bool:
        return self.miss < STATEMENT_MISS_BAR


def statement_miss(statement: str, texts: Sequence[str]) -> StatementCheck:
    """1. Cut every text into sentences; weigh each term by its rarity among them. 2. Find the run
    of ``STATEMENT_WINDOW`` sentences of one text that holds the largest weighted share of the
    statement's terms. 3. Add ``NAME_WEIGHT`` times the share of its names that no text mentions."""
    windows: list[set[str]] = []
    sentence_terms: list[set[str]] = []
    for text in texts:
        terms = [set(tokenize(text[start:end])) for start, end in split_sentences(text)]
        sentence_terms += terms
        half = STATEMENT_WINDOW // 2
        windows += [set().union(*terms[max(0, i - half) : i + half + 1]) for i in range(len(terms))]
    wanted = list(dict.fromkeys(tokenize(statement)))
    if not wanted:
        return StatementCheck(0.0, ())
    count = len(sentence_terms) or 1
    frequency = {term: sum(1 for held in sentence_terms if term in held) for term in wanted}
    weight = {term: math.log(1.0 + count / (1 + frequency[term])) for term in wanted}
    total = sum(weight.values())
    best = max((sum(weight[t] for t in wanted if t in window) / total for window in windows), default=0.0)
    everything = set().union(*sentence_terms) if sentence_terms else set()
    names = [name for name, _, _ in name_phrases(statement)]
    unnamed = [name for name in names if not set(tokenize(name)) <= everything]
    absent = sorted((t for t in wanted if t not in everything), key=lambda t: -weight[t])
    miss = (1.0 - best) + NAME_WEIGHT * (len(unnamed) / len(names) if names else 0.0)
    return StatementCheck(round(miss, 4), tuple(dict.fromkeys([*unnamed, *absent]))[:4])
