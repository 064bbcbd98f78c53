"""`corpus_import` reads what it was given and nothing else, and says what it left out and why."""

from __future__ import annotations

import json
import os
from datetime import date
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import call_command
from django.db import connection, transaction

from researchapp.models import CorpusDocument
from researchapp.providers.base import Document
from researchapp.providers.corpus_files import MAX_FILE_BYTES, Parsed, Skipped, folder_documents
from researchapp.services import corpus as corpus_service

pytestmark = pytest.mark.django_db
TEXT = "The Greywater Point lighthouse stands 31 metres tall on the northern headland."


def run_import(path: Path, *args: str) -> tuple[str, str]:
    out, err = StringIO(), StringIO()
    call_command("corpus_import", str(path), *args, stdout=out, stderr=err)
    return out.getvalue(), err.getvalue()


def test_it_leaves_out_links_hidden_files_and_huge_files_with_a_reason(tmp_path):
    # given a folder with a good document, a link to the system's password file, a link to a folder,
    # a dotfile, a .git folder, a 200 MB (sparse) file and a file of another kind
    folder = tmp_path / "notes"
    (folder / "sub").mkdir(parents=True)
    (folder / "lighthouse.md").write_text(f"# Lighthouse\n\n{TEXT}\n", encoding="utf-8")
    (folder / "passwords.txt").symlink_to("/etc/passwd")
    (folder / "sub" / "etc").symlink_to("/etc", target_is_directory=True)
    (folder / ".env.txt").write_text(f"SECRET=1 {TEXT}", encoding="utf-8")
    (folder / ".git").mkdir()
    (folder / ".git" / "notes.txt").write_text(TEXT, encoding="utf-8")
    with (folder / "huge.txt").open("wb") as huge:
        huge.truncate(200 * 1024 * 1024)
    (folder / "scan.pdf").write_bytes(b"%PDF-1.4")

    # when it is imported
    out, err = run_import(folder, "--name", "notes")

    # then only the good document is stored, under the corpus's name
    assert list(CorpusDocument.objects.values_list("url", flat=True)) == ["corpus://notes/lighthouse.md"]
    assert not CorpusDocument.objects.filter(text__contains="root:").exists()
    # and each thing left out is named with its reason
    assert "passwords.txt: a symbolic link (links are not followed)" in err
    assert "sub/etc/: a symbolic link to a folder" in err
    assert ".env.txt: a hidden file" in err
    assert ".git/: a hidden folder" in err
    assert f"huge.txt: larger than {MAX_FILE_BYTES:,} bytes (209,715,200)" in err
    assert "scan.pdf: not a .html, .md or .txt file" in err
    assert "1 imported" in out and "6 skipped" in out
    # and no message spells out the server's folders
    assert str(tmp_path) not in out + err


def test_it_reports_duplicate_urls_in_a_jsonl_file_and_keeps_the_first(tmp_path):
    # given a JSONL file in which one URL appears twice
    records = [
        {"url": "https://example.test/a", "title": "A", "text": TEXT},
        {"url": "https://example.test/b", "title": "B", "text": TEXT + " Second."},
        {"url": "https://example.test/a", "title": "A again", "text": TEXT + " Overwritten?"},
    ]
    corpus = tmp_path / "docs.jsonl"
    corpus.write_text("\n".join(json.dumps(r) for r in records) + "\n", encoding="utf-8")

    # when it is imported
    out, err = run_import(corpus)

    # then the repeat is reported, not silently written over the first
    assert "docs.jsonl line 3: duplicate URL of line 1" in err
    assert CorpusDocument.objects.get(url="https://example.test/a").title == "A"
    assert "2 imported" in out and "1 skipped" in out


@pytest.mark.parametrize(
    ("record", "reason"),
    [
        ({"url": "https://example.test/a", "title": ["A"], "text": TEXT}, "title must be a string, not list"),
        ({"url": 42, "text": TEXT}, "url must be a string, not int"),
        ({"url": "https://example.test/a", "text": {"body": TEXT}}, "text must be a string, not dict"),
        ({"url": "https://example.test/a", "text": TEXT, "published": 2024}, "published must be a string"),
    ],
)
def test_it_refuses_fields_of_the_wrong_type_instead_of_storing_their_repr(tmp_path, record, reason):
    corpus = tmp_path / "docs.jsonl"
    corpus.write_text(json.dumps(record) + "\n", encoding="utf-8")
    _, err = run_import(corpus)
    assert f"docs.jsonl line 1: {reason}" in err
    assert not CorpusDocument.objects.exists()


def test_it_refuses_a_jsonl_record_longer_than_a_document_may_be(tmp_path):
    # given a JSONL file whose one line is longer than the document limit (sparse: no line break)
    corpus = tmp_path / "docs.jsonl"
    with corpus.open("wb") as handle:
        handle.truncate(MAX_FILE_BYTES + 10)
    _, err = run_import(corpus)
    assert f"docs.jsonl line 1: a record longer than {MAX_FILE_BYTES:,} bytes" in err


def test_it_follows_no_link_even_to_a_good_document(tmp_path):
    outside = tmp_path / "outside.md"
    outside.write_text(f"# Outside\n\n{TEXT}\n", encoding="utf-8")
    folder = tmp_path / "corpus"
    folder.mkdir()
    os.symlink(outside, folder / "inside.md")
    out, err = run_import(folder)
    assert "inside.md: a symbolic link" in err
    assert not CorpusDocument.objects.exists()


def test_it_reports_a_record_whose_url_cannot_be_parsed_and_keeps_the_rest(tmp_path):
    # given a JSONL file with a port out of range, an unclosed IPv6 bracket, and two good records
    records = [
        {"url": "https://example.test/a", "title": "A", "text": TEXT},
        {"url": "http://x:99999/", "title": "Bad port", "text": TEXT + " Port."},
        {"url": "http://[::1/x", "title": "Bad host", "text": TEXT + " Host."},
        {"url": "https://example.test/b", "title": "B", "text": TEXT + " Second."},
    ]
    corpus = tmp_path / "docs.jsonl"
    corpus.write_text("\n".join(json.dumps(r) for r in records) + "\n", encoding="utf-8")

    # when it is imported
    out, err = run_import(corpus, "--name", "urls")

    # then each bad record is named with its line and reason, and the good ones are stored
    assert "docs.jsonl line 2: the url cannot be parsed (Port out of range 0-65535)" in err
    assert "docs.jsonl line 3: the url cannot be parsed (Invalid IPv6 URL)" in err
    assert sorted(CorpusDocument.objects.values_list("url", flat=True)) == [
        "https://example.test/a",
        "https://example.test/b",
    ]
    assert "2 imported" in out and "2 skipped" in out


def test_a_front_matter_url_that_cannot_be_parsed_skips_that_file_only(tmp_path):
    folder = tmp_path / "notes"
    folder.mkdir()
    (folder / "good.md").write_text(f"# Good\n\n{TEXT}\n", encoding="utf-8")
    (folder / "bad.md").write_text(f"---\nurl: http://[::1/x\n---\n# Bad\n\n{TEXT}\n", encoding="utf-8")
    out, err = run_import(folder, "--name", "notes")
    assert "bad.md: the url cannot be parsed (Invalid IPv6 URL)" in err
    assert list(CorpusDocument.objects.values_list("url", flat=True)) == ["corpus://notes/good.md"]


def test_a_bad_line_costs_that_record_only(tmp_path):
    # given good records around a line that is not JSON and one longer than a document may be
    corpus = tmp_path / "docs.jsonl"
    with corpus.open("wb") as handle:
        handle.write(json.dumps({"url": "https://example.test/a", "text": TEXT}).encode() + b"\n")
        handle.write(b"{not json\n")
        handle.write(b"x" * (MAX_FILE_BYTES + 5) + b"\n")
        handle.write(json.dumps({"url": "https://example.test/b", "text": TEXT + " B."}).encode() + b"\n")
    out, err = run_import(corpus)
    assert "docs.jsonl line 2: not JSON" in err
    assert f"docs.jsonl line 3: a record longer than {MAX_FILE_BYTES:,} bytes" in err
    assert CorpusDocument.objects.count() == 2
    assert "2 imported" in out and "2 skipped" in out


@pytest.mark.django_db(transaction=True)
def test_a_large_file_is_committed_batch_by_batch(tmp_path, monkeypatch):
    # given a file of two and a half batches
    monkeypatch.setattr(corpus_service, "BATCH", 4)
    records = [{"url": f"https://example.test/{n}", "text": f"{TEXT} Number {n}."} for n in range(10)]
    path = tmp_path / "docs.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in records) + "\n", encoding="utf-8")
    events: list[tuple] = []
    real_store = corpus_service.store

    def store(corpus, documents, report):
        size = len(documents)
        events.append(("store", size, connection.in_atomic_block))
        real_store(corpus, documents, report)
        transaction.on_commit(lambda: events.append(("commit", size)))

    monkeypatch.setattr(corpus_service, "store", store)

    # when it is imported
    out, _ = run_import(path)

    # then each batch was committed before the next was stored: the write lock is held one batch long
    assert events == [
        ("store", 4, True),
        ("commit", 4),
        ("store", 4, True),
        ("commit", 4),
        ("store", 2, True),
        ("commit", 2),
    ]
    assert CorpusDocument.objects.count() == 10 and "10 imported" in out


def test_it_reads_a_folder_into_documents_and_reasons_before_anything_is_stored(tmp_path):
    # given a folder with a saved page that keeps its address and date in front matter, and a bad file
    folder = tmp_path / "saved"
    folder.mkdir()
    (folder / "page.md").write_text(
        f"---\nurl: https://example.test/page\npublished: 2024-03-01\n---\n# Greywater\n\n{TEXT}\n",
        encoding="utf-8",
    )
    (folder / "empty.txt").write_text("too short", encoding="utf-8")

    # when it is read (the reading half of the import: no corpus, no rows)
    found = list(folder_documents(folder, "saved"))

    # then the page is a document with the front matter's address, date and the first heading as title,
    # the bad file is left out with its reason, and nothing was stored
    assert found == [
        Skipped("empty.txt", "empty.txt: no text (fewer than 40 characters)"),
        Parsed(
            "page.md",
            Document("https://example.test/page", "Greywater", f"# Greywater\n\n{TEXT}", date(2024, 3, 1)),
        ),
    ]
    assert not CorpusDocument.objects.exists()
