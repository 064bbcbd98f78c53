"""Importing local documents into a corpus: each file whole or not at all, and nothing it should not read.

Reading is ``providers.corpus_files`` (which files, and what each becomes, or why it is left out);
this module stores what it yields. A JSONL file is stored in batches, each committed on its own, so
memory does not grow with the file and no import holds the database's write lock for long (SQLite has
one writer: a million lines in one transaction kept every login waiting); each record stands alone.
A folder's files are stored one at a time. Everything left out is reported with its reason. Each
batch also moves the corpus's search statistics (``corpus_terms``) in its transaction; the database's
full-text index follows the rows by itself (a generated column, or FTS5 triggers).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from django.db import connection, transaction

from researchapp.core.hashing import sha256_text
from researchapp.models import Corpus, CorpusDocument, CorpusTerm
from researchapp.providers.base import Document
from researchapp.providers.corpus_files import (
    BadDocument,
    Parsed,
    Skipped,
    folder_documents,
    jsonl_documents,
)
from researchapp.services.corpus_terms import TermDelta, search_text_of

BATCH = 500  # JSONL records stored per transaction
ANALYZE_FIRST = 5_000  # documents imported before the planner's statistics are first refreshed


@dataclass
class ImportReport:
    corpus: Corpus
    imported: int = 0
    unchanged: int = 0
    skipped: list[tuple[str, str]] = field(default_factory=list)  # (name inside the import, reason)

    def skip(self, name: str, reason: str) -> None:
        self.skipped.append((name, f"{name}: {reason}"))


def store(corpus: Corpus, documents: list[Document], report: ImportReport) -> None:
    """Upsert by URL: unchanged documents are left alone, changed ones updated in place; the corpus's
    search statistics move with them (``corpus_terms``). New rows go in with one INSERT."""
    existing = {
        row.url: row
        for row in CorpusDocument.objects.filter(corpus=corpus, url__in=[d.url for d in documents]).only(
            "id", "url", "title", "sha256", "search_text"
        )
    }
    delta, added, changed = TermDelta(), [], []
    for doc in documents:
        row = existing.get(doc.url)
        digest = sha256_text(doc.text)
        if row and row.sha256 == digest and row.title == doc.title:
            report.unchanged += 1
            continue
        if row:
            delta.remove(row.search_text)
            changed.append(row)
        else:
            row = CorpusDocument(corpus=corpus, url=doc.url)
            added.append(row)
        row.title, row.text, row.published, row.sha256 = doc.title, doc.text, doc.published, digest
        row.search_text = search_text_of(doc.title, doc.text)
        delta.add(row.search_text)
        report.imported += 1
    CorpusDocument.objects.bulk_create(added)
    CorpusDocument.objects.bulk_update(changed, ["title", "text", "published", "sha256", "search_text"])
    delta.save(corpus.pk)


def store_batch(corpus: Corpus, documents: list[Document], report: ImportReport) -> None:
    """One transaction per batch: the write lock is held for one batch, never for the whole file."""
    if documents:
        with transaction.atomic():
            store(corpus, documents, report)


def refresh_statistics() -> None:
    """PostgreSQL plans each batch's lookup of known URLs from the tables' statistics. With none (a
    new table, autovacuum off or behind), it walked the whole corpus by its corpus_id index for every
    batch: 3 s a batch at 546,000 passages, so the import slowed as it grew. ``ANALYZE`` keeps the
    lookup on the (corpus, url) index; the import runs it after ``ANALYZE_FIRST`` documents and at
    each doubling (a million passages: eight times, a few seconds each). SQLite picks that index
    without statistics."""
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            for model in (CorpusDocument, CorpusTerm):
                cursor.execute(f"ANALYZE {model._meta.db_table}")


def import_jsonl(corpus: Corpus, path: Path, report: ImportReport) -> None:
    """Each good record is stored, ``BATCH`` to a transaction; each bad one and each repeated URL is
    reported with its line. An import stopped half-way keeps the batches it committed, and importing
    the file again finds them unchanged."""
    first_seen: dict[str, str] = {}  # URL → "line N", the record that gave it first
    batch: list[Document] = []
    analyze_at = ANALYZE_FIRST
    try:
        for item in jsonl_documents(path):
            if isinstance(item, Skipped):
                report.skipped.append((item.name, item.reason))
                continue
            url = item.document.url
            if url in first_seen:
                report.skip(item.name, f"duplicate URL of {first_seen[url]}")
                continue
            first_seen[url] = item.name.removeprefix(f"{path.name} ")
            batch.append(item.document)
            if len(batch) >= BATCH:
                store_batch(corpus, batch, report)
                batch = []
                if report.imported >= analyze_at:
                    refresh_statistics()
                    analyze_at = 2 * report.imported
    except BadDocument as error:  # the file as a whole (too large to be a corpus)
        report.skipped.append((path.name, str(error)))
        return
    store_batch(corpus, batch, report)
    if not first_seen and not report.skipped:
        report.skipped.append((path.name, f"{path.name}: no records"))


def import_files(corpus: Corpus, found: Iterable[Parsed | Skipped], report: ImportReport) -> None:
    """Store each file's document in its own transaction; a URL given twice keeps its first file."""
    seen: dict[str, str] = {}  # URL → the file that gave it
    for item in found:
        if isinstance(item, Skipped):
            report.skipped.append((item.name, item.reason))
            continue
        url = item.document.url
        if url in seen:
            report.skip(item.name, f"duplicate URL {url} (already given by {seen[url]})")
            continue
        seen[url] = item.name
        with transaction.atomic():
            store(corpus, [item.document], report)


def default_name(path: Path) -> str:
    """The folder's or file's own name and a short digest of where it is: unique, yet no server path."""
    return f"{path.stem or 'corpus'}-{sha256_text(str(path))[:6]}"


def corpus_import(
    *, path: Path, name: str | None = None, description: str = "", invented: bool = False
) -> ImportReport:
    """Import a folder of .html/.md/.txt files or a JSONL file into the corpus ``name``.

    Re-importing is safe: unchanged documents are left alone, changed ones updated in place.
    """
    path = Path(path).absolute()
    if not path.exists():
        raise FileNotFoundError(f"{path} does not exist")
    path = path.resolve()  # the path given may be a link; nothing inside it is followed
    corpus, _ = Corpus.objects.get_or_create(
        name=name or default_name(path), defaults={"description": description, "invented": invented}
    )
    report = ImportReport(corpus=corpus)
    if path.is_file() and path.suffix.lower() == ".jsonl":
        import_jsonl(corpus, path, report)
    else:
        label = corpus.name.strip("/").replace(" ", "_")
        import_files(corpus, folder_documents(path, label), report)
    return report
