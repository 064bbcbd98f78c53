"""Search over a corpus held in memory: the offline default, and the database corpus's provider.

Documents are already extracted text, so the corpus is its own fetcher. The BM25 index is built
once per instance; a query touches only the postings of its terms, so ~1,000 documents answer
in milliseconds.
"""

from __future__ import annotations

from collections.abc import Sequence

from researchapp.core.urls import normalize_url
from researchapp.pipeline.text.bm25 import BM25
from researchapp.pipeline.text.crosslang import Vocabulary, language_of, text_language, translate
from researchapp.pipeline.text.sentences import best_sentence
from researchapp.pipeline.text.tokens import tokenize
from researchapp.providers.base import Document, Hit, ProviderError

SNIPPET_CHARS = 300


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
                snippet=_snippet(self.documents[position].text, terms),
                score=round(score, 6),
                published=self.documents[position].published,
                provider=self.name,
            )
            for position, score in self._index.top(terms, max_results)
        ]

    def fetch(self, url: str) -> Document:
        document = self._by_url.get(url) or self._by_url.get(normalize_url(url))
        if document is None:
            raise ProviderError(f"{url} is not in the local corpus", retryable=False, code="not_found")
        return document


def _snippet(text: str, terms: Sequence[str]) -> str:
    """The sentence that best matches the query, cut to a search-result length."""
    picked = best_sentence(text, terms)
    if picked is None:
        return text[:SNIPPET_CHARS]
    (start, end), _ = picked
    sentence = text[start:end]
    return sentence if len(sentence) <= SNIPPET_CHARS else sentence[: SNIPPET_CHARS - 1].rstrip() + "…"
