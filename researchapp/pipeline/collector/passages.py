"""The evidence stage: cut sources into passages and keep the ones that bear on a sub-question.

Passages are small (a paragraph, or a few sentences of a long one) so a quote points at the
part of a page that matters. Ranking is BM25 over every passage of every source of the task,
weighted by page density: a thin page competes at a disadvantage but is never dropped outright.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from functools import lru_cache

from researchapp.pipeline.collector.splitting import passages_with_headings
from researchapp.pipeline.reader.bearing import states_type
from researchapp.pipeline.text.answer_type import AnswerType, QuestionAnalysis, analyse_question
from researchapp.pipeline.text.aspects import Dimension, dimensions_of, speaks_to
from researchapp.pipeline.text.bm25 import BM25
from researchapp.pipeline.text.crosslang import TermBridge, Vocabulary, language_of, text_language
from researchapp.pipeline.text.entities import name_phrases
from researchapp.pipeline.text.quantities import extract_quantities
from researchapp.pipeline.text.relevance import (
    GENERIC_TERMS,
    aspect_terms,
    required_coverage,
    subquestion_terms,
)
from researchapp.pipeline.text.salience import (
    ANSWER_BAR,
    Asked,
    Judgement,
    asked_of,
    judge,
    states_attribute,
)
from researchapp.pipeline.text.support import is_statement, statement_miss
from researchapp.pipeline.text.tokens import tokenize
from researchapp.pipeline.values import Passage, Source, SubQuestion

MAX_PER_SOURCE = 3
# Scores are shares (0..1) of the best BM25 score the query could reach over these passages.
# On HotpotQA, gold paragraphs score above 0.03 in 98 cases of 100, and one in two unrelated ones
# scores under 0.07: 0.02 keeps recall while the coverage rule below keeps out chance matches.
MIN_SCORE = 0.02
ASPECT_MISS_WEIGHT = 0.5
# A passage that states a value of the asked type (a version for "since which release", a figure for
# "how many") outranks its neighbours that only repeat the question's words: the answering sentence
# rarely repeats them ("The RETURNING syntax has been supported since version 3.35.0").
TYPED_WEIGHT = 3.0
TYPED = frozenset((AnswerType.QUANTITY, AnswerType.LIMIT, AnswerType.VERSION))


@dataclass(frozen=True)
class _Candidate:
    source_rank: int
    source: Source
    start: int
    end: int
    tokens: tuple[str, ...]  # title, headings and passage: what BM25 ranks
    body: frozenset[str]  # the passage's own terms: what it says
    heading_text: str = ""  # the page's title and the headings above the passage

    @property
    def terms(self) -> frozenset[str]:
        return frozenset(self.tokens)

    @property
    def quote(self) -> str:
        return self.source.text[self.start : self.end]

    def has_money(self) -> bool:
        quote = self.source.text[self.start : self.end]
        return any(q.kind == "money" for q in extract_quantities(quote))

    def speaks_to(self, dimensions: Sequence[Dimension]) -> bool:
        if speaks_to(dimensions, self.body):
            return True
        return speaks_to(dimensions, (), has_money=self.has_money())


def _candidates(sources: Sequence[Source]) -> list[_Candidate]:
    return [
        _Candidate(rank, source, *cut)
        for rank, source in enumerate(sources)
        for cut in _cut(source.title, source.text)
    ]


_Cut = tuple[int, int, tuple[str, ...], frozenset[str], str]


@lru_cache(maxsize=512)
def _cut(title: str, text: str) -> tuple[_Cut, ...]:
    """(start, end, tokens, body terms, heading text) of each passage of a page: a task selects
    over the same pages for each sub-question, its probe and its hops, so each page is cut once."""
    title_terms = tokenize(title)
    cuts: list[_Cut] = []
    for (start, end), headings in passages_with_headings(text):
        heading_text = " ".join([title, *(text[s:e] for s, e in headings)])
        heading_terms = [term for s, e in headings for term in tokenize(text[s:e])]
        body = tokenize(text[start:end])
        cuts.append((start, end, tuple(title_terms + heading_terms + body), frozenset(body), heading_text))
    return tuple(cuts)


class PassagePool:
    """Every passage of a set of sources, cut once and indexed once, to be asked many questions."""

    def __init__(self, sources: Sequence[Source]):
        self.sources = list(sources)
        self.candidates = _candidates(self.sources)
        self.index = BM25([candidate.tokens for candidate in self.candidates])
        self._rank = {source.id: rank for rank, source in enumerate(self.sources)}
        self.language = language_of(source.text for source in self.sources)
        self.bridge = TermBridge(self.language, Vocabulary(self.index.postings))

    def _in_sources_language(
        self, subquestion: SubQuestion, asked: Asked
    ) -> tuple[list[str], list[str], Asked]:
        """The sub-question's terms, its aspect terms and what it asks, in the sources' language:
        a Chinese sub-question over English pages is ranked and judged by its words' English."""
        query = subquestion_terms(subquestion)
        aspects = aspect_terms(subquestion)
        if text_language(subquestion.text) == self.language or not self.sources:
            return query, aspects, asked
        return self.bridge.terms(query), self.bridge.terms(aspects), self.bridge.asked(asked)

    def in_sources_language(self, subquestion: SubQuestion, asked: Asked) -> Asked:
        """What ``subquestion`` asks, in the sources' language (``_in_sources_language``)."""
        return self._in_sources_language(subquestion, asked)[2]

    @staticmethod
    @lru_cache(maxsize=16)
    def of(sources: Sequence[Source]) -> PassagePool:
        """The pool of ``sources`` (a tuple), built once: a task's probe, collection, hops and
        selection ask the same sources again. A pool is never changed once built."""
        return PassagePool(sources)

    def select(
        self,
        subquestion: SubQuestion,
        *,
        asked: Asked,
        max_passages: int = 8,
        min_score: float = MIN_SCORE,
        closest: int = 0,
        verify: bool = True,
    ) -> list[Passage]:
        """``select_passages`` over this pool, what is asked already read. ``verify=False`` keeps
        passages about the subject that do not answer, holding nothing else asked (a later hop may)."""
        query, aspects, asked = self._in_sources_language(subquestion, asked)
        content_terms = [term for term in query if term not in GENERIC_TERMS]
        needed = required_coverage(content_terms)
        dimensions = dimensions_of(subquestion)
        aspects = [] if dimensions else aspects
        if not query or needed == 0:
            return []
        typed = _typed_reading(subquestion, self.language)
        index, scored, near = self.index, list[_Judged](), list[_Judged]()
        # Scores are shares of the best score the query could reach here, so one threshold serves
        # a corpus where every passage names the subject as well as one where few do.
        ceiling = sum(index.idf(term) for term in query) * (index.k1 + 1.0) or 1.0
        for candidate, raw_score in zip(self.candidates, index.scores(query), strict=True):
            if raw_score <= 0.0:
                continue
            score = _weighted(candidate, raw_score / ceiling, aspects, typed)
            terms = candidate.terms
            covered = sum(1 for term in content_terms if term in terms)
            judgement = judge(asked, terms, lambda term: self.weight(term, asked))
            if (
                score >= min_score
                and (covered >= needed or (not verify and not judgement.missing))
                and judgement.clears
                and candidate.speaks_to(dimensions)
            ):
                scored.append((score, candidate, judgement))
            else:
                near.append((judgement.relevance * score, candidate, judgement))
        scored.sort(key=lambda item: (-item[0], item[1].source_rank, item[1].start))
        chosen = _spread_over_sources(scored, max_passages)
        # A statement to verify is judged whole (``support.statement_miss``); a question, by whether
        # its passages hold its subject and what it asks for.
        statement = is_statement(subquestion.text)
        missing = self._not_stated(subquestion) if chosen and statement else None
        if verify and chosen and (missing is not None or (not statement and not self.answers(asked, chosen))):
            # Passages about the subject that never say what is asked ("revenue"), or that do not
            # hold a statement to verify: none is evidence.
            lacking = asked.attributes if missing is None else missing
            near = [(score * j.relevance, c, replace(j, missing=lacking)) for score, c, j in chosen] + near
            chosen = []
        if not chosen and closest:
            near.sort(key=lambda item: (-item[0], item[1].source_rank, item[1].start))
            chosen = [(score, candidate, replace(j, clears=False)) for score, candidate, j in near[:closest]]
        passages = [_to_passage(candidate, score, judgement) for score, candidate, judgement in chosen]
        passages.sort(key=lambda p: (-p.score, self._rank[p.source_id], p.start))
        return passages

    def _not_stated(self, subquestion: SubQuestion) -> tuple[str, ...] | None:
        """What of a statement to verify no window of these sources holds (``None``: borne out)."""
        check = statement_miss(subquestion.text, [source.text for source in self.sources])
        return None if check.borne_out else check.missing

    def weight(self, term: str, asked: Asked) -> float:
        """A term's rarity among these passages. A term no passage holds cannot tell passages
        apart, so it weighs nothing, unless it is the asked-for attribute, whose absence is the
        point ("revenue" asked of pages that never name it)."""
        if term not in self.index.postings and term not in asked.attributes:
            return 0.0
        return self.index.idf(term)

    @staticmethod
    def answers(asked: Asked, chosen: Sequence[_Judged]) -> bool:
        """The chosen passages answer: one about the subject reaches ``ANSWER_BAR``, and one names
        the asked-for attribute (an amount of money names a price). That one is about the subject,
        or its page is titled with a name a passage about the subject mentions: the later hop of
        "the population of the town where she was born" is the town's page."""
        about_subject = [(c, j) for _, c, j in chosen if not j.missing]
        if not about_subject or max(judgement.relevance for _, judgement in about_subject) < ANSWER_BAR:
            return False
        if not asked.attributes:
            return True
        names = {name.lower() for c, _ in about_subject for name, _, _ in name_phrases(c.quote)}
        return any(
            states_attribute(
                asked, candidate.quote, title=candidate.heading_text, later_hop=bool(judgement.missing)
            )
            and (not judgement.missing or any(name in candidate.source.title.lower() for name in names))
            for _, candidate, judgement in chosen
        )


_Judged = tuple[float, _Candidate, Judgement]


def _weighted(
    candidate: _Candidate, share: float, aspects: Sequence[str], typed: QuestionAnalysis | None
) -> float:
    """A passage's share of the best score, weighted by its page's density, halved when it misses
    every aspect term, and raised when it states a value of the type asked (``TYPED_WEIGHT``)."""
    density = min(max(candidate.source.density, 0.0), 1.0)
    score = share * (0.5 + 0.5 * density)
    if aspects and not any(term in candidate.terms for term in aspects):
        score *= ASPECT_MISS_WEIGHT
    if typed is not None and states_type(candidate.quote, typed):
        score *= TYPED_WEIGHT
    return score


def _typed_reading(subquestion: SubQuestion, language: str) -> QuestionAnalysis | None:
    """What a sub-question asking for a value (a figure, a default or limit, a version or date)
    asks, read as the reader reads it; ``None`` for any other question. Asked in another language
    than the sources', only its type and unit count: its words are not theirs."""
    analysis = analyse_question(subquestion.text)
    if analysis.answer_type not in TYPED:
        return None
    if text_language(subquestion.text) != language:
        return replace(analysis, focus=(), subject=(), head=())
    return analysis


def select_passages(
    subquestion: SubQuestion,
    sources: Sequence[Source],
    *,
    max_passages: int = 8,
    min_score: float = MIN_SCORE,
    question: str = "",
    closest: int = 0,
) -> list[Passage]:
    """The passages of ``sources`` that best answer ``subquestion`` (within ``question``), best first.

    1. Cut every source into passages; index title + headings + passage tokens with BM25.
    2. Score each passage against the sub-question and its queries; weight by source density.
    3. A dimension sub-question (cost, risks, ...) takes only passages that use a word of the
       dimension's vocabulary: naming the subject alone says nothing about its cost. Any other
       sub-question halves the score of passages that miss every aspect term.
    4. Judge each passage's relevance to what is asked (``salience.judge``: the question's
       subject, the rarity-weighted share of the salient terms it holds).
    5. Keep passages that reach ``min_score``, cover enough distinct content terms and clear
       the relevance bar; take each source's best first, at most ``MAX_PER_SOURCE`` per source
       and ``max_passages`` in all.
    6. Together they must answer (``PassagePool.answers``); if they do not, or none was kept,
       return the ``closest`` best of the rest marked ``clears_bar=False``: what was found,
       never evidence.
    """
    pool = PassagePool.of(tuple(sources))
    return pool.select(
        subquestion,
        asked=asked_of(subquestion, question),
        max_passages=max_passages,
        min_score=min_score,
        closest=closest,
    )


def _spread_over_sources[T: tuple](ranked: Sequence[T], limit: int) -> list[T]:
    """Each source's best passage first, then each one's second best, and so on.

    Independent sources saying the same thing is what the analysis stage looks for, and a
    question about two entities needs the weaker-matching one's page too: the best source's
    third paragraph is worth less than another source's best.
    """
    by_source: dict[int, list[T]] = {}
    for pair in ranked:
        by_source.setdefault(pair[1].source.id, []).append(pair)
    chosen: list[T] = []
    for depth in range(MAX_PER_SOURCE):
        layer = [pairs[depth] for pairs in by_source.values() if len(pairs) > depth]
        layer.sort(key=lambda pair: (-pair[0], pair[1].source_rank, pair[1].start))
        chosen.extend(layer[: limit - len(chosen)])
        if len(chosen) >= limit:
            break
    return chosen


def _to_passage(candidate: _Candidate, score: float, judgement: Judgement) -> Passage:
    source = candidate.source
    passage = Passage(
        source.id,
        candidate.start,
        candidate.end,
        source.text[candidate.start : candidate.end],
        round(score, 6),
        relevance=judgement.relevance,
        question_relevance=judgement.question_relevance,
        matched_terms=judgement.matched,
        clears_bar=judgement.clears,
    )
    assert source.text[passage.start : passage.end] == passage.quote
    return passage
