"""A corpus's reads in the database (``collector.corpus.CorpusIndex``): full-text candidates and terms.

PostgreSQL matches ``websearch_to_tsquery('simple', …)`` against the generated ``search_vector``
(GIN index) and ranks with ``ts_rank``; SQLite matches its FTS5 table and ranks with FTS5's
``bm25()``. Both index ``search_text``, the pipeline's own terms (``services.corpus_terms``), so the
'simple' configuration (lower-casing, no stemming: the tokenizer already folded plurals and
segmented Chinese) finds what BM25 then scores.

The collector searches from threads (``SearchCollector``, the plan's probes): each read here goes
through the connection of the thread that built the index, one at a time under a lock, so a
search sees what that thread sees (its transaction included) and no thread opens a connection of
its own. Small facts (the language sample, the common terms) are kept per process until the
corpus's counters change; nothing of the documents is.
"""

from __future__ import annotations

import threading
from collections.abc import Collection, Sequence
from datetime import date

from django.db import DEFAULT_DB_ALIAS, connections

from researchapp.core.enums import CORPUS_EXTRACTION
from researchapp.core.urls import normalize_url
from researchapp.models import Corpus, CorpusDocument, CorpusTerm
from researchapp.pipeline.collector.corpus import MATCH_BUDGET, TermStats
from researchapp.pipeline.text.crosslang import SAMPLE_CHARS, SAMPLED_SOURCES
from researchapp.providers.base import Document

DOCUMENTS = CorpusDocument._meta.db_table
TERMS = CorpusTerm._meta.db_table
FTS = f"{DOCUMENTS}_fts"  # made by migration 0024 on SQLite
CONFIGURATION = "simple"

# The GIN index answers the query first (a materialized step): left to itself, the planner may walk
# a large corpus by its corpus_id index and test every document's vector (365 ms for 20,000). Only
# the first ``MATCH_BUDGET`` matches of the corpus are ranked, on both engines: a query of the
# rarest terms matches fewer (``collector.corpus.terms_to_ask``), but "all of the three rarest",
# when even the rarest is common, may match tens of thousands of a million passages, each a vector
# to decompress and rank. ``ts_rank`` (term frequencies) rather than ``ts_rank_cd`` (cover density):
# the rank is most of the query's time, and at 100,000 passages ts_rank's 200 candidates held exact
# BM25's hits more often (its five hits identical for 81% of 300 sub-questions against 73%).
POSTGRES_CANDIDATES = (
    f"WITH asked AS (SELECT websearch_to_tsquery('{CONFIGURATION}', %s) AS query), "
    f"matched AS MATERIALIZED (SELECT id, corpus_id, search_vector, search_text FROM {DOCUMENTS}, asked "
    "WHERE search_vector @@ asked.query), "
    "held AS (SELECT id, search_vector, search_text FROM matched WHERE corpus_id = %s LIMIT %s) "
    "SELECT id, search_text FROM held, asked "
    "ORDER BY ts_rank(search_vector, asked.query) DESC, id LIMIT %s"
)
# CROSS JOIN keeps FTS5 first: with a plain JOIN, SQLite walked the corpus by its corpus_id index and
# asked FTS5 about each document (3 s instead of 20 ms for 20,000 passages).
SQLITE_CANDIDATES = (
    f"SELECT d.id, d.search_text FROM (SELECT {FTS}.rowid AS id, {FTS}.rank AS rank FROM {FTS} "
    f"CROSS JOIN {DOCUMENTS} c ON c.id = {FTS}.rowid WHERE {FTS} MATCH %s AND c.corpus_id = %s LIMIT %s) "
    f"held JOIN {DOCUMENTS} d ON d.id = held.id ORDER BY held.rank, held.id LIMIT %s"
)
_memo: dict[tuple, object] = {}
MEMO_ENTRIES = 32


def _placeholders(values: Collection[object]) -> str:
    return ", ".join(["%s"] * len(values))


class DatabaseIndex:
    def __init__(self, corpus: Corpus | None):
        self.corpus_id = corpus.pk if corpus else None
        self.size = corpus.document_count if corpus else 0
        self.tokens = corpus.token_count if corpus else 0
        self.connection = connections[DEFAULT_DB_ALIAS]  # this thread's: see the module's note
        self._lock = threading.Lock()
        self.queries = 0

    def _rows(self, sql: str, params: Sequence[object]) -> list[tuple]:
        with self._lock:
            self.connection.inc_thread_sharing()
            try:
                with self.connection.cursor() as cursor:
                    cursor.execute(sql, params)
                    self.queries += 1
                    return cursor.fetchall()
            finally:
                self.connection.dec_thread_sharing()

    def _memoized(self, name: str, make):
        key = (name, self.connection.alias, self.corpus_id, self.size, self.tokens)
        if key not in _memo:
            if len(_memo) >= MEMO_ENTRIES:
                _memo.clear()
            _memo[key] = make()
        return _memo[key]

    def term_stats(self, terms: Collection[str]) -> dict[str, TermStats]:
        if not terms or self.corpus_id is None:
            return {}
        rows = self._rows(
            f"SELECT term, documents, occurrences FROM {TERMS} "
            f"WHERE corpus_id = %s AND term IN ({_placeholders(terms)})",
            [self.corpus_id, *terms],
        )
        return {term: TermStats(documents, occurrences) for term, documents, occurrences in rows}

    def terms_starting(self, prefix: str) -> dict[str, int]:
        pattern = prefix.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"
        rows = self._rows(
            f"SELECT term, occurrences FROM {TERMS} WHERE corpus_id = %s AND occurrences > 0 "
            "AND term LIKE %s ESCAPE '\\'",
            [self.corpus_id, pattern],
        )
        return {term: occurrences for term, occurrences in rows if term.startswith(prefix)}

    def terms_in_more_than(self, documents: int) -> frozenset[str]:
        def read() -> frozenset[str]:
            rows = self._rows(
                f"SELECT term FROM {TERMS} WHERE corpus_id = %s AND documents > %s",
                [self.corpus_id, documents],
            )
            return frozenset(term for (term,) in rows)

        return self._memoized(f"common>{documents}", read)  # type: ignore[return-value]

    def candidates(self, terms: Sequence[str], *, every: bool, limit: int) -> list[tuple[int, str]]:
        if not terms:
            return []
        if self.connection.vendor == "postgresql":
            query = (" " if every else " or ").join(terms)
            return self._rows(POSTGRES_CANDIDATES, [query, self.corpus_id, MATCH_BUDGET, limit])
        query = (" " if every else " OR ").join(f'"{term}"' for term in terms)
        return self._rows(SQLITE_CANDIDATES, [query, self.corpus_id, MATCH_BUDGET, limit])

    def _documents_where(self, where: str, params: Sequence[object]) -> list[tuple[int, Document]]:
        rows = self._rows(f"SELECT id, url, title, text, published FROM {DOCUMENTS} WHERE {where}", params)
        return [
            (
                key,
                Document(
                    url=url,
                    title=title,
                    text=text,
                    published=date.fromisoformat(published) if isinstance(published, str) else published,
                    extraction=CORPUS_EXTRACTION,
                ),
            )
            for key, url, title, text, published in rows
        ]

    def documents(self, ids: Sequence[int]) -> dict[int, Document]:
        if not ids:
            return {}
        return dict(self._documents_where(f"id IN ({_placeholders(ids)})", list(ids)))

    def document(self, url: str) -> Document | None:
        urls = list(dict.fromkeys([url, normalize_url(url)]))
        found = {
            document.url: document
            for _, document in self._documents_where(
                f"corpus_id = %s AND url IN ({_placeholders(urls)})", [self.corpus_id, *urls]
            )
        }
        return next((found[u] for u in urls if u in found), None)

    def sample(self) -> list[str]:
        def read() -> list[str]:
            rows = self._rows(
                f"SELECT substr(text, 1, %s) FROM {DOCUMENTS} WHERE corpus_id = %s ORDER BY id LIMIT %s",
                [SAMPLE_CHARS, self.corpus_id, SAMPLED_SOURCES],
            )
            return [text for (text,) in rows]

        return self._memoized("sample", read)  # type: ignore[return-value]
