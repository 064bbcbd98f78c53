"""Reading local documents for a corpus: files and JSONL records in, ``Document`` values out.

Pure reading, no database: ``services.corpus`` stores what these yield. A folder is walked without
following symbolic links (a link to the system's password file would otherwise become searchable),
leaving out hidden files and folders (``.git/``, ``.env``); every file's size is checked before it is
opened. A JSONL file is read a line at a time, so memory does not grow with the file, and each record
stands alone: a bad one (not JSON, a field of the wrong type, a URL that cannot be parsed) is yielded
as ``Skipped`` with its line and reason, and the rest go on. Documents are named
``corpus://<corpus>/<path inside the folder>``, never by the server's own folders.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import date
from pathlib import Path

from researchapp.core.urls import url_problem
from researchapp.providers.base import Document
from researchapp.providers.fetch.extract import extract_html

SUFFIXES = (".html", ".htm", ".md", ".markdown", ".txt")
MIN_TEXT_CHARS = 40
MAX_FILE_BYTES = 20_000_000  # one document (a file, or one JSONL record)
MAX_JSONL_BYTES = 2_000_000_000  # a JSONL file is streamed, but a bound still says "this is a mistake"


class BadDocument(ValueError):
    """A file or record that cannot become a document; the message says why."""


@dataclass(frozen=True)
class Parsed:
    """A document and where it came from inside the import (a path, or "file line N")."""

    name: str
    document: Document


@dataclass(frozen=True)
class Skipped:
    """Something the import leaves out; ``reason`` names it and says why."""

    name: str
    reason: str

    @classmethod
    def because(cls, name: str, why: str) -> Skipped:
        return cls(name, f"{name}: {why}")


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
        (fields.get("title") or title_of_text(text, path.stem))[:500],
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


def jsonl_lines(path: Path) -> Iterator[tuple[int, bytes | None]]:
    """(line number, line) for every line that is not blank, read a line at a time; a line longer
    than a document may be comes as None (and is read to its end, not kept). A file too large to be
    a corpus raises ``BadDocument``."""
    size = path.stat().st_size
    if size > MAX_JSONL_BYTES:
        raise BadDocument(f"{path.name}: larger than {MAX_JSONL_BYTES:,} bytes ({size:,})")
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


def jsonl_documents(path: Path) -> Iterator[Parsed | Skipped]:
    """Every record of a JSONL file, named "<file> line N": its document, or why it is not one."""
    for number, line in jsonl_lines(path):
        where = f"{path.name} line {number}"
        if line is None:
            yield Skipped(where, f"{where}: a record longer than {MAX_FILE_BYTES:,} bytes")
            continue
        try:
            yield Parsed(where, parse_record(line, where))
        except BadDocument as error:
            yield Skipped(where, str(error))


def walk(root: Path) -> Iterator[tuple[Path, str] | Skipped]:
    """(file, its path inside ``root``) for every importable file, and what is left out as ``Skipped``.

    Symbolic links are never followed, to files or folders; hidden files and folders (``.git``,
    ``.env``) are left out whole.
    """
    for folder, subfolders, files in os.walk(root, followlinks=False):
        here = Path(folder)
        for sub in sorted(subfolders):
            relative = (here / sub).relative_to(root).as_posix()
            if (here / sub).is_symlink():
                yield Skipped.because(relative + "/", "a symbolic link to a folder (links are not followed)")
            elif sub.startswith("."):
                yield Skipped.because(
                    relative + "/", "a hidden folder (version control or settings), not read"
                )
        subfolders[:] = sorted(s for s in subfolders if not s.startswith(".") and not (here / s).is_symlink())
        for name in sorted(files):
            path, relative = here / name, (here / name).relative_to(root).as_posix()
            if path.is_symlink():
                yield Skipped.because(relative, "a symbolic link (links are not followed)")
            elif name.startswith("."):
                yield Skipped.because(relative, "a hidden file, not read")
            elif not path.is_file():
                yield Skipped.because(relative, "not a regular file")
            elif path.suffix.lower() not in SUFFIXES:
                yield Skipped.because(relative, "not a .html, .md or .txt file")
            else:
                yield path, relative


def folder_documents(path: Path, label: str) -> Iterator[Parsed | Skipped]:
    """Every document of a folder (or of one .html/.md/.txt file), named ``corpus://<label>/<path>``.

    A file that cannot become a document is yielded as ``Skipped`` with its reason, and the rest go on.
    """
    if path.is_file() and path.suffix.lower() not in SUFFIXES:
        yield Skipped.because(path.name, "not a .html, .md, .txt or .jsonl file")
        return
    for found in [(path, path.name)] if path.is_file() else walk(path):
        if isinstance(found, Skipped):
            yield found
            continue
        file, relative = found
        try:
            document = parse_file(file, url=f"corpus://{label}/{relative}", name=relative)
        except BadDocument as error:
            yield Skipped(relative, str(error))
            continue
        yield Parsed(relative, document)
