"""A corpus's search statistics, kept by each import batch in its own transaction.

Each document's ``search_text`` is its title and text as the pipeline's tokenizer reads them, one
space between terms (the database's full-text index reads that column: its own parser would stem
English differently and cannot segment Chinese). ``CorpusTerm`` counts, per term, the documents
holding it and its occurrences; ``Corpus.document_count`` and ``token_count`` give BM25 its size and
average length. A batch adds what it stores and takes away what a changed document held before,
with one upsert (``INSERT … ON CONFLICT … DO UPDATE`` on both engines).
"""

from __future__ import annotations

from collections import Counter

from django.db import connection
from django.db.models import F

from researchapp.models import Corpus, CorpusTerm
from researchapp.pipeline.text.tokens import tokenize

MAX_TERM_CHARS = 100  # CorpusTerm.term's length; a longer "word" (a hash, a base64 run) names nothing

_UPSERT = (
    "INSERT INTO {table} AS t (corpus_id, term, documents, occurrences) {rows} "
    "ON CONFLICT (corpus_id, term) DO UPDATE SET "
    "documents = t.documents + excluded.documents, occurrences = t.occurrences + excluded.occurrences"
)
# PostgreSQL takes a batch's terms as three arrays in one statement; SQLite one row at a time
# (``executemany``, in one transaction: no round trips to a server).
_POSTGRES_ROWS = "SELECT %s, * FROM unnest(%s::text[], %s::integer[], %s::bigint[])"
_SQLITE_ROWS = "VALUES (%s, %s, %s, %s)"


def search_text_of(title: str, text: str) -> str:
    return " ".join(tokenize(f"{title}\n{text}"))


class TermDelta:
    """What a batch changes in a corpus's statistics: documents and tokens added (or taken away)."""

    def __init__(self) -> None:
        self.documents: Counter[str] = Counter()
        self.occurrences: Counter[str] = Counter()
        self.document_count = 0
        self.token_count = 0

    def add(self, search_text: str, sign: int = 1) -> None:
        terms = Counter(search_text.split())
        self.document_count += sign
        self.token_count += sign * sum(terms.values())
        for term, count in terms.items():
            if len(term) <= MAX_TERM_CHARS:
                self.documents[term] += sign
                self.occurrences[term] += sign * count

    def remove(self, search_text: str) -> None:
        self.add(search_text, -1)

    def rows(self) -> list[tuple[str, int, int]]:
        """(term, documents, occurrences) that change, in the terms' order: two imports into one
        corpus lock its terms in the same order, so they wait for each other, never deadlock."""
        return [
            (term, self.documents[term], self.occurrences[term])
            for term in sorted(self.documents)
            if self.documents[term] or self.occurrences[term]
        ]

    def save(self, corpus_id: int) -> None:
        """Upsert the terms and move the corpus's counters; the caller holds the batch's transaction."""
        rows = self.rows()
        table = CorpusTerm._meta.db_table
        with connection.cursor() as cursor:
            if rows and connection.vendor == "postgresql":
                terms, documents, occurrences = (list(column) for column in zip(*rows, strict=True))
                cursor.execute(
                    _UPSERT.format(table=table, rows=_POSTGRES_ROWS),
                    [corpus_id, terms, documents, occurrences],
                )
            elif rows:
                cursor.executemany(
                    _UPSERT.format(table=table, rows=_SQLITE_ROWS), [(corpus_id, *row) for row in rows]
                )
        if self.document_count or self.token_count:
            Corpus.objects.filter(pk=corpus_id).update(
                document_count=F("document_count") + self.document_count,
                token_count=F("token_count") + self.token_count,
            )
