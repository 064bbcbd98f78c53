"""Importing local documents into a corpus: each file whole or not at all, and nothing it should not read.

A folder is walked without following symbolic links (a link to the system's password file would
otherwise become searchable), leaving out hidden files and folders (``.git/``, ``.env``); every file's
size is checked before it is opened. A JSONL file is read a line at a time and stored in batches, each
committed on its own, so memory does not grow with the file and no import holds the database's write
lock for long (SQLite has one writer: a million lines in one transaction kept every login waiting). Each
record stands alone: a bad one (not JSON, a field of the wrong type, a URL that cannot be parsed) is
reported with its line and reason and the rest are kept. Everything left out is reported with its
reason; documents are named ``corpus://<corpus>/<path inside the folder>``, never by the server's own
folders.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path

from django.db import transaction

from researchapp.core.hashing import sha256_text
from researchapp.core.urls import url_problem
from researchapp.models import Corpus, CorpusDocument
from researchapp.providers.base import Document
from researchapp.providers.fetch.extract import extract_html

SUFFIXES = (".html", ".htm", ".md", ".markdown", ".txt")
MIN_TEXT_CHARS = 40
MAX_FILE_BYTES = 20_000_000  # one document (a file, or one JSONL record)
MAX_JSONL_BYTES = 2_000_000_000  # a JSONL file is streamed, but a bound still says "this is a mistake"
BATCH = 500  # JSONL records stored per transaction


class BadDocument(ValueError):
    """A file or record that cannot become a document; the message says why."""


@dataclass
class ImportReport:
    corpus: Corpus
    imported: int = 0
    unchanged: int = 0
    skipped: list[tuple[str, str]] = field(default_factory=list)  # (name inside the import, reason)

    def skip(self, name: str, reason: str) -> None:
        self.skipped.append((name, f"{name}: {reason}"))


def decode(raw: bytes, name: str) -> str:
    if b"\x00" in raw[:8192]:
        raise BadDocument(f"{name}: binary content (NUL bytes), not a text document")
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        raise BadDocument(
            f"{name}: not UTF-8 text (byte {error.start}: {raw[error.start : error.start + 1]!r})"
        ) from None


def from_html(html: str, url: str, name: str) -> tuple[str, str, date | None]:
    title, text, published = extract_html(html, url)
    if len(text.strip()) < MIN_TEXT_CHARS:
        raise BadDocument(f"{name}: no extractable text in the HTML")
    return title, text, published


def title_of_text(text: str, fallback: str) -> str:
    for line in text.splitlines():
        line = line.strip().lstrip("#").strip()
        if line:
            return line[:300]
    return fallback


def front_matter(text: str, name: str) -> tuple[dict[str, str], str]:
    """Split a leading ``---`` block of ``key: value`` lines (url, title, published) from the body.

    It lets a text file keep the address and date of the page it was saved from.
    """
    if not text.startswith("---\n"):
        return {}, text
    head, separator, body = text[4:].partition("\n---\n")
    if not separator:
        raise BadDocument(f"{name}: front matter opened with --- but never closed")
    fields = {}
    for line in head.splitlines():
        key, colon, value = line.partition(":")
        if colon and key.strip():
            fields[key.strip().lower()] = value.strip()
    return fields, body


def iso_date(value: str, where: str) -> date:
    try:
        return date.fromisoformat(value[:10])
    except ValueError:
        raise BadDocument(f"{where}: published is not an ISO date") from None


def read_bounded(path: Path, name: str, limit: int = MAX_FILE_BYTES) -> bytes:
    """The file's bytes, refused by size before anything is read (and again if it grew meanwhile)."""
    if path.stat().st_size > limit:
        raise BadDocument(f"{name}: larger than {limit:,} bytes ({path.stat().st_size:,})")
    with path.open("rb") as handle:
        raw = handle.read(limit + 1)
    if len(raw) > limit:
        raise BadDocument(f"{name}: larger than {limit:,} bytes")
    return raw


def parse_file(path: Path, *, url: str, name: str) -> Document:
    text = decode(read_bounded(path, name), name)
    if path.suffix.lower() in (".html", ".htm"):
        title, text, published = from_html(text, url, name)
        return Document(url, title or path.stem, text, published)
    fields, text = front_matter(text.replace("\r\n", "\n"), name)
    text = text.strip()
    if len(text) < MIN_TEXT_CHARS:
        raise BadDocument(f"{name}: no text (fewer than {MIN_TEXT_CHARS} characters)")
    published = iso_date(fields["published"], name) if fields.get("published") else None
    return Document(
        checked_url(fields.get("url") or url, name),
        fields.get("title") or title_of_text(text, path.stem),
        text,
        published,
    )


def checked_url(url: str, where: str) -> str:
    """A document's URL, refused at import if it cannot be parsed: one bad URL stored in a corpus
    used to fail every task on that corpus at planning."""
    if problem := url_problem(url):
        raise BadDocument(f"{where}: {problem}")
    return url


def _text_field(record: dict, key: str, where: str) -> str:
    """A record's field as a string: present and a JSON string, or absent (""), never a Python repr."""
    value = record.get(key)
    if value is None:
        return ""
    if not isinstance(value, str):
        raise BadDocument(f"{where}: {key} must be a string, not {type(value).__name__}")
    return value


def parse_record(line: bytes, where: str) -> Document:
    try:
        record = json.loads(decode(line, where))
    except json.JSONDecodeError as error:
        raise BadDocument(f"{where}: not JSON ({error.msg})") from None
    if not isinstance(record, dict):
        raise BadDocument(f"{where}: a record is a JSON object")
    url, title = _text_field(record, "url", where).strip(), _text_field(record, "title", where)
    text, html = _text_field(record, "text", where), _text_field(record, "html", where)
    published_text = _text_field(record, "published", where)
    if not url:
        raise BadDocument(f"{where}: a record needs a url")
    checked_url(url, where)
    published = iso_date(published_text, where) if published_text else None
    if text:
        body = text.strip()
        if len(body) < MIN_TEXT_CHARS:
            raise BadDocument(f"{where}: text too short")
    elif html:
        found_title, body, found = from_html(html, url, where)
        title, published = title or found_title, published or found
    else:
        raise BadDocument(f"{where}: a record needs text or html")
    return Document(url, title[:500], body, published)


def jsonl_lines(path: Path, name: str) -> Iterator[tuple[int, bytes | None]]:
    """(line number, line) for every line that is not blank, read a line at a time; a line longer
    than a document may be comes as None (and is read to its end, not kept)."""
    size = path.stat().st_size
    if size > MAX_JSONL_BYTES:
        raise BadDocument(f"{name}: larger than {MAX_JSONL_BYTES:,} bytes ({size:,})")
    with path.open("rb") as handle:
        number = 0
        while line := handle.readline(MAX_FILE_BYTES + 1):
            number += 1
            if len(line) > MAX_FILE_BYTES:
                while line and not line.endswith(b"\n"):
                    line = handle.readline(MAX_FILE_BYTES + 1)
                yield number, None
            elif line.strip():
                yield number, line


def jsonl_records(path: Path, name: str) -> Iterator[tuple[int, Document | BadDocument]]:
    """(line number, its document, or why it is not one) for every record."""
    for number, line in jsonl_lines(path, name):
        where = f"{name} line {number}"
        if line is None:
            yield number, BadDocument(f"{where}: a record longer than {MAX_FILE_BYTES:,} bytes")
            continue
        try:
            yield number, parse_record(line, where)
        except BadDocument as error:
            yield number, error


def store(corpus: Corpus, documents: list[Document], report: ImportReport) -> None:
    """Upsert by URL: unchanged documents are left alone, changed ones updated in place."""
    existing = {
        row.url: row
        for row in CorpusDocument.objects.filter(corpus=corpus, url__in=[d.url for d in documents])
    }
    for doc in documents:
        row = existing.get(doc.url)
        if row and row.sha256 == sha256_text(doc.text) and row.title == doc.title:
            report.unchanged += 1
            continue
        row = row or CorpusDocument(corpus=corpus, url=doc.url)
        row.title, row.text, row.published = doc.title, doc.text, doc.published
        row.save()
        report.imported += 1


def store_batch(corpus: Corpus, documents: list[Document], report: ImportReport) -> None:
    """One transaction per batch: the write lock is held for one batch, never for the whole file."""
    if documents:
        with transaction.atomic():
            store(corpus, documents, report)


def import_jsonl(corpus: Corpus, path: Path, report: ImportReport) -> None:
    """Each good record is stored, ``BATCH`` to a transaction; each bad one and each repeated URL is
    reported with its line. An import stopped half-way keeps the batches it committed, and importing
    the file again finds them unchanged."""
    first_line: dict[str, int] = {}
    batch: list[Document] = []
    try:
        for number, record in jsonl_records(path, path.name):
            if isinstance(record, BadDocument):
                report.skipped.append((f"{path.name} line {number}", str(record)))
            elif record.url in first_line:
                report.skip(f"{path.name} line {number}", f"duplicate URL of line {first_line[record.url]}")
            else:
                first_line[record.url] = number
                batch.append(record)
                if len(batch) >= BATCH:
                    store_batch(corpus, batch, report)
                    batch = []
    except BadDocument as error:  # the file as a whole (too large to be a corpus)
        report.skipped.append((path.name, str(error)))
        return
    store_batch(corpus, batch, report)
    if not first_line and not report.skipped:
        report.skipped.append((path.name, f"{path.name}: no records"))


def walk(root: Path, report: ImportReport) -> Iterator[tuple[Path, str]]:
    """(file, its path inside ``root``) for every importable file; what is left out is reported.

    Symbolic links are never followed, to files or folders; hidden files and folders (``.git``,
    ``.env``) are left out whole.
    """
    for folder, subfolders, files in os.walk(root, followlinks=False):
        here = Path(folder)
        for sub in sorted(subfolders):
            relative = (here / sub).relative_to(root).as_posix()
            if (here / sub).is_symlink():
                report.skip(relative + "/", "a symbolic link to a folder (links are not followed)")
            elif sub.startswith("."):
                report.skip(relative + "/", "a hidden folder (version control or settings), not read")
        subfolders[:] = sorted(s for s in subfolders if not s.startswith(".") and not (here / s).is_symlink())
        for name in sorted(files):
            path, relative = here / name, (here / name).relative_to(root).as_posix()
            if path.is_symlink():
                report.skip(relative, "a symbolic link (links are not followed)")
            elif name.startswith("."):
                report.skip(relative, "a hidden file, not read")
            elif not path.is_file():
                report.skip(relative, "not a regular file")
            elif path.suffix.lower() not in SUFFIXES:
                report.skip(relative, "not a .html, .md or .txt file")
            else:
                yield path, relative


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
        return report
    label = corpus.name.strip("/").replace(" ", "_")
    if path.is_file() and path.suffix.lower() not in SUFFIXES:
        report.skip(path.name, "not a .html, .md, .txt or .jsonl file")
        return report
    files = [(path, path.name)] if path.is_file() else walk(path, report)
    seen: dict[str, str] = {}
    for file, relative in files:
        try:
            document = parse_file(file, url=f"corpus://{label}/{relative}", name=relative)
        except BadDocument as error:
            report.skipped.append((relative, str(error)))
            continue
        if document.url in seen:
            report.skip(relative, f"duplicate URL {document.url} (already given by {seen[document.url]})")
            continue
        seen[document.url] = relative
        with transaction.atomic():
            store(corpus, [document], report)
    return report
