"""Search over a corpus held in memory: documents given in the process (benches, tests).

A task's corpus is searched in the database instead (``corpus.IndexedCorpus``), with the same
interface and the same BM25.

Documents are already extracted text, so the corpus is its own fetcher. The BM25 index is built
once per instance; a query touches only the postings of its terms, so ~1,000 documents answer
in milliseconds.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cached_property, lru_cache

from researchapp.core.urls import normalize_url
from researchapp.pipeline.text.bm25 import BM25
from researchapp.pipeline.text.crosslang import Vocabulary, language_of, text_language, translate
from researchapp.pipeline.text.sentences import is_heading_line, sentence_tier, split_sentences
from researchapp.pipeline.text.tokens import Span, tokenize
from researchapp.providers.base import Document, Hit, ProviderError

SNIPPET_CHARS = 300
MIN_DOCUMENTS_FOR_COMMON = 3


class LocalCorpus:
    name = "local"

    def __init__(self, documents: Sequence[Document]):
        self.documents = tuple(documents)
        self._by_url: dict[str, Document] = {}
        for document in self.documents:
            # The first document stored under a URL wins, as in the database (one row per URL).
            self._by_url.setdefault(document.url, document)
            self._by_url.setdefault(normalize_url(document.url), document)
        self._index = BM25([tokenize(f"{d.title}\n{d.text}") for d in self.documents])
        self.language = language_of(d.text for d in self.documents)
        self.vocabulary = Vocabulary(self._index.postings)

    @property
    def size(self) -> int:
        return len(self.documents)

    def in_language(self, query: str) -> str:
        """``query`` in the corpus's language: a Chinese query over English pages searches for
        its words' English (``crosslang``), names as written; a query in that language already is kept."""
        if not self.documents or text_language(query) == self.language:
            return query
        return translate(query, self.language, self.vocabulary).query

    def search(self, query: str, *, max_results: int) -> list[Hit]:
        terms = tokenize(self.in_language(query))
        if not terms or max_results <= 0:
            return []
        return [
            Hit(
                url=self.documents[position].url,
                title=self.documents[position].title,
                snippet=snippet(self.documents[position].text, terms),
                score=round(score, 6),
                published=self.documents[position].published,
                provider=self.name,
            )
            for position, score in self._index.top(terms, max_results)
        ]

    @cached_property
    def common_terms(self) -> frozenset[str]:
        """Terms most of the corpus's documents hold (a manual's product name): they tell no
        document from another, so a question's subject is not read from them."""
        size = len(self.documents)
        if size < MIN_DOCUMENTS_FOR_COMMON:
            return frozenset()
        return frozenset(term for term, postings in self._index.postings.items() if len(postings) > size / 2)

    def fetch(self, url: str) -> Document:
        document = self._by_url.get(url) or self._by_url.get(normalize_url(url))
        if document is None:
            raise ProviderError(f"{url} is not in the local corpus", retryable=False, code="not_found")
        return document


def snippet(text: str, terms: Sequence[str]) -> str:
    """The sentence that best matches the query (``best_sentence``), cut to a search-result length."""
    picked = _sentences_of(text).best(terms)
    if picked is None:
        return text[:SNIPPET_CHARS]
    start, end = picked
    sentence = text[start:end]
    return sentence if len(sentence) <= SNIPPET_CHARS else sentence[: SNIPPET_CHARS - 1].rstrip() + "…"


class _Sentences:
    """A page's sentences indexed by term, so a snippet reads only the sentences holding a query
    term: a manual's page has thousands of sentences and every search result needs a snippet.
    Picks what ``best_sentence`` picks: whole sentences first, then the most query terms, then
    the earliest; with no term held, the earliest sentence of the best kind."""

    def __init__(self, text: str):
        self.spans: list[Span] = []
        self.ranks: list[int] = []
        self.terms: list[frozenset[str]] = []
        self.by_term: dict[str, list[int]] = {}
        for start, end in split_sentences(text):
            if is_heading_line(text[start:end]):
                continue
            tokens = tokenize(text[start:end])
            position = len(self.spans)
            self.spans.append((start, end))
            self.ranks.append(sentence_tier(text[start:end], tokens))
            self.terms.append(frozenset(tokens))
            for term in self.terms[-1]:
                self.by_term.setdefault(term, []).append(position)
        # the earliest of the best kind: the pick when no sentence holds a query term
        self.fallback = max(range(len(self.spans)), key=lambda i: (self.ranks[i], -i), default=None)

    def best(self, terms: Sequence[str]) -> Span | None:
        wanted = set(terms)
        holding = {i for term in wanted for i in self.by_term.get(term, ())}
        if not holding:
            return None if self.fallback is None else self.spans[self.fallback]
        best = max(holding, key=lambda i: (self.ranks[i], len(wanted & self.terms[i]), -i))
        if self.fallback is not None and self.ranks[self.fallback] > self.ranks[best]:
            return self.spans[self.fallback]  # a whole sentence without a term beats a fragment with one
        return self.spans[best]


@lru_cache(maxsize=256)
def _sentences_of(text: str) -> _Sentences:
    return _Sentences(text)
