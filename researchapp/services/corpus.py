"""Importing local documents into a corpus: each file whole or not at all."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path

from django.db import transaction

from researchapp.models import Corpus, CorpusDocument
from researchapp.providers.base import Document
from researchapp.providers.fetch.extract import extract_html

SUFFIXES = (".html", ".htm", ".md", ".markdown", ".txt")
MIN_TEXT_CHARS = 40
MAX_FILE_BYTES = 20_000_000


class BadDocument(ValueError):
    """A file or record that cannot become a document; the message says why."""


@dataclass
class ImportReport:
    corpus: Corpus
    imported: int = 0
    unchanged: int = 0
    skipped: list[tuple[str, str]] = field(default_factory=list)  # (file name, reason)


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


def parse_file(path: Path, *, url: str) -> Document:
    name = path.name
    raw = path.read_bytes()
    if len(raw) > MAX_FILE_BYTES:
        raise BadDocument(f"{name}: larger than {MAX_FILE_BYTES:,} bytes")
    text = decode(raw, name)
    if path.suffix.lower() in (".html", ".htm"):
        title, text, published = from_html(text, url, name)
        return Document(url, title or path.stem, text, published)
    fields, text = front_matter(text.replace("\r\n", "\n"), name)
    text = text.strip()
    if len(text) < MIN_TEXT_CHARS:
        raise BadDocument(f"{name}: no text (fewer than {MIN_TEXT_CHARS} characters)")
    published = None
    if fields.get("published"):
        try:
            published = date.fromisoformat(fields["published"][:10])
        except ValueError:
            raise BadDocument(f"{name}: published is not an ISO date") from None
    return Document(
        fields.get("url") or url, fields.get("title") or title_of_text(text, path.stem), text, published
    )


def parse_jsonl(path: Path) -> list[Document]:
    """Every line must be a good record, or the file is skipped whole."""
    text = decode(path.read_bytes(), path.name)
    documents = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        where = f"{path.name} line {number}"
        try:
            record = json.loads(line)
        except json.JSONDecodeError as error:
            raise BadDocument(f"{where}: not JSON ({error.msg})") from None
        if not isinstance(record, dict) or not record.get("url"):
            raise BadDocument(f"{where}: a record needs a url")
        published = None
        if record.get("published"):
            try:
                published = date.fromisoformat(str(record["published"])[:10])
            except ValueError:
                raise BadDocument(f"{where}: published is not an ISO date") from None
        if record.get("text"):
            body, title = str(record["text"]).strip(), record.get("title") or ""
            if len(body) < MIN_TEXT_CHARS:
                raise BadDocument(f"{where}: text too short")
        elif record.get("html"):
            title, body, found = from_html(str(record["html"]), record["url"], where)
            title, published = record.get("title") or title, published or found
        else:
            raise BadDocument(f"{where}: a record needs text or html")
        documents.append(Document(str(record["url"]), str(title)[:500], body, published))
    if not documents:
        raise BadDocument(f"{path.name}: no records")
    return documents


def store(corpus: Corpus, documents: list[Document], report: ImportReport) -> None:
    with transaction.atomic():
        for doc in documents:
            existing = CorpusDocument.objects.filter(corpus=corpus, url=doc.url).first()
            if existing and existing.text == doc.text and existing.title == doc.title:
                report.unchanged += 1
                continue
            row = existing or CorpusDocument(corpus=corpus, url=doc.url)
            row.title, row.text, row.published = doc.title, doc.text, doc.published
            row.save()
            report.imported += 1


def corpus_import(
    *, path: Path, name: str | None = None, description: str = "", invented: bool = False
) -> ImportReport:
    """Import a folder of .html/.md/.txt files or a JSONL file into the corpus ``name``.

    Re-importing is safe: unchanged documents are left alone, changed ones updated in place.
    """
    path = Path(path).resolve()
    if not path.exists():
        raise FileNotFoundError(f"{path} does not exist")
    corpus, _ = Corpus.objects.get_or_create(
        name=name or str(path), defaults={"description": description, "invented": invented}
    )
    report = ImportReport(corpus=corpus)
    if path.is_file() and path.suffix.lower() == ".jsonl":
        try:
            store(corpus, parse_jsonl(path), report)
        except BadDocument as error:
            report.skipped.append((path.name, str(error)))
        return report
    files = [path] if path.is_file() else sorted(p for p in path.rglob("*") if p.is_file())
    for file in files:
        if file.suffix.lower() not in SUFFIXES:
            report.skipped.append((file.name, f"{file.name}: not a .html, .md or .txt file"))
            continue
        relative = file.name if path.is_file() else file.relative_to(path).as_posix()
        try:
            document = parse_file(file, url=f"corpus://{corpus.name.strip('/').replace(' ', '_')}/{relative}")
        except BadDocument as error:
            report.skipped.append((file.name, str(error)))
            continue
        store(corpus, [document], report)
    return report
