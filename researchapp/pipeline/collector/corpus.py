"""Search over a corpus kept in the database: its full-text index takes candidates, BM25 re-ranks them.

``IndexedCorpus`` answers as ``local.LocalCorpus`` does (search, fetch, language, vocabulary, common
terms) without holding the corpus: every read goes through a ``CorpusIndex`` (the runner's
``corpus_index``, over PostgreSQL's tsvector or SQLite's FTS5). A search asks the index for the
documents holding the query's rarest terms (at most ``CANDIDATES``, by the database's own rank), then
scores them with Okapi BM25 on the corpus's statistics (document frequencies, the average length),
exactly as the in-memory index scores them: when the best documents are among the candidates, the
ranking is the in-memory one.

A term held by very many documents (``MATCH_BUDGET``) is left out of the database's query (every
document holding "year" would be ranked) but still counts in BM25; when even the rarest term is that
common, the index is asked for documents holding the rarest terms together.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import Protocol

from researchapp.pipeline.collector.local import MIN_DOCUMENTS_FOR_COMMON, snippet
from researchapp.pipeline.text.crosslang import Vocabulary, language_of, text_language, translate
from researchapp.pipeline.text.tokens import tokenize
from researchapp.providers.base import Document, Hit, ProviderError

CANDIDATES = 200  # documents the database hands to BM25 for one query
MATCH_BUDGET = (
    2_000  # documents the database may match and rank for one query before common terms are left out
)
ALL_OF = 3  # when even the rarest term is that common: the rarest this many, together
K1, B = 1.5, 0.75  # as ``text.bm25.BM25``


@dataclass(frozen=True)
class TermStats:
    documents: int  # how many documents hold the term
    occurrences: int


class CorpusIndex(Protocol):
    """The reads a corpus in the database answers; each is one query."""

    size: int  # documents
    tokens: int  # terms in all documents together

    def term_stats(self, terms: Collection[str]) -> dict[str, TermStats]: ...

    def terms_starting(self, prefix: str) -> dict[str, int]:
        """Terms beginning with ``prefix`` and their occurrences."""
        ...

    def terms_in_more_than(self, documents: int) -> frozenset[str]: ...

    def candidates(self, terms: Sequence[str], *, every: bool, limit: int) -> list[tuple[int, str]]:
        """(id, search_text) of documents holding any of ``terms`` (all of them when ``every``),
        best first by the database's rank."""
        ...

    def documents(self, ids: Sequence[int]) -> dict[int, Document]: ...

    def document(self, url: str) -> Document | None: ...

    def sample(self) -> list[str]:
        """The first documents' texts (their beginnings): the corpus's language."""
        ...


class IndexVocabulary(Vocabulary):
    """``crosslang.Vocabulary`` read from the corpus's term table instead of an index in memory."""

    def __init__(self, index: CorpusIndex):
        super().__init__()
        self.index = index
        self._frequency: dict[str, int] = {}

    @property
    def known(self) -> bool:
        return self.index.size > 0

    def frequency(self, term: str) -> int:
        if term not in self._frequency:
            stats = self.index.term_stats([term]).get(term)
            self._frequency[term] = stats.occurrences if stats else 0
        return self._frequency[term]

    def holds(self, term: str) -> bool:
        return self.frequency(term) > 0

    def starting_with(self, stem: str) -> list[str]:
        found = self.index.terms_starting(stem)
        self._frequency.update(found)
        return sorted(found)


def terms_to_ask(held: Sequence[str], stats: dict[str, TermStats]) -> tuple[list[str], bool]:
    """The terms the database's query holds, rarest first, and whether it asks for all of them:
    any of the rarest, as long as they match at most ``MATCH_BUDGET`` documents together; when even
    the rarest matches more, all of the ``ALL_OF`` rarest."""
    if stats[held[0]].documents > MATCH_BUDGET:
        return list(held[:ALL_OF]), True
    asked: list[str] = []
    matched = 0
    for term in held:
        if asked and matched + stats[term].documents > MATCH_BUDGET:
            break
        asked.append(term)
        matched += stats[term].documents
    return asked, False


def term_counts(search_text: str, terms: Collection[str]) -> dict[str, int]:
    """How often each of ``terms`` occurs in a space-separated ``search_text``: counted by the string's
    own search (a page of a manual holds 100,000 terms, a query five), each separator doubled so that
    a term repeated side by side counts twice."""
    padded = f" {search_text.replace(' ', '  ')} "
    return {term: count for term in terms if (count := padded.count(f" {term} "))}


class IndexedCorpus:
    name = "local"

    def __init__(self, index: CorpusIndex):
        self.index = index
        self.size = index.size
        self.average_length = index.tokens / index.size if index.size else 0.0
        self.vocabulary = IndexVocabulary(index)

    @cached_property
    def language(self) -> str:
        return language_of(self.index.sample())

    def in_language(self, query: str) -> str:
        if not self.size or text_language(query) == self.language:
            return query
        return translate(query, self.language, self.vocabulary).query

    @cached_property
    def common_terms(self) -> frozenset[str]:
        if self.size < MIN_DOCUMENTS_FOR_COMMON:
            return frozenset()
        return self.index.terms_in_more_than(self.size // 2)

    def idf(self, documents: int) -> float:
        return math.log((self.size - documents + 0.5) / (documents + 0.5) + 1.0)

    def ranked(self, terms: Sequence[str], limit: int) -> list[tuple[int, float]]:
        """(id, BM25 score) of the best ``limit`` candidates, ties to the earlier document."""
        stats = self.index.term_stats(set(terms))
        held = sorted((t for t in stats if stats[t].documents > 0), key=lambda t: (stats[t].documents, t))
        if not held or not self.average_length:
            return []
        asked, every = terms_to_ask(held, stats)
        weights = {
            term: count * self.idf(stats[term].documents)
            for term, count in Counter(terms).items()
            if term in stats
        }
        scored = []
        for key, search_text in self.index.candidates(asked, every=every, limit=CANDIDATES):
            counts = term_counts(search_text, weights)
            norm = 1.0 - B + B * (search_text.count(" ") + 1) / self.average_length
            score = sum(
                weights[term] * count * (K1 + 1.0) / (count + K1 * norm) for term, count in counts.items()
            )
            if score > 0.0:
                scored.append((key, score))
        scored.sort(key=lambda pair: (-pair[1], pair[0]))
        return scored[:limit]

    def search(self, query: str, *, max_results: int) -> list[Hit]:
        terms = tokenize(self.in_language(query))
        if not terms or max_results <= 0:
            return []
        ranked = self.ranked(terms, max_results)
        found = self.index.documents([key for key, _ in ranked])
        return [
            Hit(
                url=found[key].url,
                title=found[key].title,
                snippet=snippet(found[key].text, terms),
                score=round(score, 6),
                published=found[key].published,
                provider=self.name,
            )
            for key, score in ranked
            if key in found
        ]

    def fetch(self, url: str) -> Document:
        document = self.index.document(url)
        if document is None:
            raise ProviderError(f"{url} is not in the local corpus", retryable=False, code="not_found")
        return document
