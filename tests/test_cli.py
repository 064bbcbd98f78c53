"""`manage.py research`, `ledger_verify` and `corpus_import`, run as a user would run them."""

from __future__ import annotations

import json
import re
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from researchapp.models import CorpusDocument, Evidence, ResearchTask

pytestmark = pytest.mark.django_db
FIXTURES = Path(__file__).parent / "fixtures"


def research(*args: str) -> tuple[str, str]:
    out, err = StringIO(), StringIO()
    call_command("research", *args, stdout=out, stderr=err)
    return out.getvalue(), err.getvalue()


def test_it_researches_a_folder_of_html_pages_to_an_approved_report(tmp_path):
    # given a folder of HTML pages
    out_file = tmp_path / "out.json"

    # when the command runs with every gate auto-approved
    research(
        "When was the Greywater Point lighthouse built and how tall is it?",
        "--corpus",
        str(FIXTURES / "pages"),
        "--auto-approve",
        "--json",
        str(out_file),
        "--with-snapshots",
    )

    # then the JSON holds an approved report whose every quote is its snapshot at its offsets
    data = json.loads(out_file.read_text())
    assert data["status"] == "approved"
    assert data["plan"]["subquestions"] and all(sq["queries"] for sq in data["plan"]["subquestions"])
    snapshots = {s["id"]: s["text"] for s in data["sources"]}
    assert data["evidence"]
    for quote in data["evidence"]:
        assert snapshots[quote["source"]][quote["start"] : quote["end"]] == quote["quote"]
    cited = {i for claim in data["report"]["claims"] for i in claim["evidence_ids"]}
    assert cited and cited <= {e["id"] for e in data["evidence"]}
    assert "1871" in data["report"]["markdown"]
    assert set(data["stats"]) >= {
        "sources_opened",
        "independent_sources",
        "cited_spans",
        "query_term_coverage",
    }
    assert data["stats"]["cited_spans"] == len(cited)
    assert "text" in data["sources"][0]


def test_it_leaves_snapshots_out_of_the_json_unless_asked(tmp_path):
    out_file = tmp_path / "out.json"
    research(
        "How tall is the Greywater Point lighthouse?",
        "--corpus",
        str(FIXTURES / "pages"),
        "--auto-approve",
        "--json",
        str(out_file),
    )
    assert all("text" not in s for s in json.loads(out_file.read_text())["sources"])


def test_it_stops_at_the_plan_gate_without_auto_approve(tmp_path):
    out, _ = research("How tall is the Greywater Point lighthouse?", "--corpus", str(FIXTURES / "pages"))
    assert ResearchTask.objects.get().status == ResearchTask.Status.AWAITING_PLAN_REVIEW
    assert "waiting for a reviewer" in out


@pytest.mark.parametrize(
    ("question", "message"),
    [
        ("   ", "The question is empty"),
        ("why " * 24_999 + "why?", "100,000 characters long; the limit is 2,000"),
    ],
)
def test_it_refuses_an_empty_or_huge_question_with_a_clear_message(question, message):
    with pytest.raises(CommandError, match=message):
        research(question, "--corpus", str(FIXTURES / "pages"))
    assert not ResearchTask.objects.exists()


def test_it_reports_bad_corpus_files_by_name_and_imports_the_rest(tmp_path):
    # given a folder with a binary file, a Latin-1 file, a page with no text and a good page
    # when it is imported
    out, err = StringIO(), StringIO()
    call_command("corpus_import", str(FIXTURES / "bad"), stdout=out, stderr=err)

    # then each bad file is named with its reason, and only the good page is stored
    assert "image.html: binary content" in err.getvalue()
    assert "latin1.html: not UTF-8 text" in err.getvalue()
    assert "empty.html: no extractable text" in err.getvalue()
    # under the corpus's name, never the server's folders
    [url] = CorpusDocument.objects.values_list("url", flat=True)
    assert re.fullmatch(r"corpus://bad-[0-9a-f]{6}/good\.html", url)
    assert "1 imported" in out.getvalue() and "3 skipped" in out.getvalue()


def test_a_bad_jsonl_line_is_reported_and_the_good_records_are_kept(tmp_path):
    corpus = tmp_path / "docs.jsonl"
    good = {
        "url": "https://example.test/a",
        "title": "A",
        "text": "A document long enough to be imported as text.",
    }
    corpus.write_text(json.dumps(good) + "\n{not json}\n", encoding="utf-8")
    err = StringIO()
    call_command("corpus_import", str(corpus), stdout=StringIO(), stderr=err)
    # each record stands alone (the file is stored in batches, each committed on its own)
    assert "docs.jsonl line 2: not JSON" in err.getvalue()
    assert list(CorpusDocument.objects.values_list("url", flat=True)) == ["https://example.test/a"]


def test_it_imports_a_jsonl_file_of_text_and_html_records(tmp_path):
    corpus = tmp_path / "docs.jsonl"
    html = (FIXTURES / "pages" / "harbour-news.html").read_text()
    records = [
        {
            "url": "https://example.test/a",
            "title": "A",
            "text": "A document long enough to be imported as text.",
            "published": "2024-05-01",
        },
        {"url": "https://example.test/b", "html": html},
    ]
    corpus.write_text("\n".join(json.dumps(r) for r in records), encoding="utf-8")
    call_command("corpus_import", str(corpus), stdout=StringIO(), stderr=StringIO())
    docs = {d.url: d for d in CorpusDocument.objects.all()}
    assert str(docs["https://example.test/a"].published) == "2024-05-01"
    assert (
        "dredging" in docs["https://example.test/b"].text and "<p>" not in docs["https://example.test/b"].text
    )


def test_it_ends_an_unanswerable_question_with_gaps_not_an_empty_report(tmp_path):
    out_file = tmp_path / "out.json"
    research(
        "What is the mating season of the Patagonian toothfish?",
        "--corpus",
        str(FIXTURES / "pages"),
        "--auto-approve",
        "--json",
        str(out_file),
    )
    data = json.loads(out_file.read_text())
    assert data["status"] == "approved"
    assert data["findings"] and all(f["status"] == "insufficient" for f in data["findings"])
    assert "[证据不足]" in data["report"]["markdown"]
    assert data["report"]["claims"] == [] or all(c["evidence_ids"] for c in data["report"]["claims"])


def test_ledger_verify_passes_a_clean_ledger_and_fails_a_tampered_quote(tmp_path):
    research(
        "How tall is the Greywater Point lighthouse?", "--corpus", str(FIXTURES / "pages"), "--auto-approve"
    )
    out = StringIO()
    call_command("ledger_verify", stdout=out)
    assert "quotes match" in out.getvalue()

    evidence = Evidence.objects.first()
    Evidence.objects.filter(pk=evidence.pk).update(quote=evidence.quote + "!")  # bypasses the model's check
    err = StringIO()
    with pytest.raises(CommandError, match="1 problem"):
        call_command("ledger_verify", stdout=StringIO(), stderr=err)
    assert f"E{evidence.pk}: quote differs" in err.getvalue()


def test_a_document_stored_with_a_url_that_cannot_be_parsed_fails_no_task(tmp_path):
    # given a corpus imported before URLs were checked: one good document, two whose URL cannot be parsed
    out_file = tmp_path / "out.json"
    research(
        "How tall is the Greywater Point lighthouse?",
        "--corpus",
        str(FIXTURES / "pages"),
        "--json",
        str(out_file),
    )
    corpus = CorpusDocument.objects.first().corpus
    text = "The Greywater Point lighthouse is 31 metres tall, the harbour office says."
    # stored as an import stores (an older import that checked no URL), bypassing today's check
    from researchapp.providers.base import Document
    from researchapp.services.corpus import ImportReport, store

    bad = [Document("http://x:99999/", "Bad port", text), Document("http://[::1/x", "Bad host", text)]
    store(corpus, bad, ImportReport(corpus=corpus))

    # when a task researches that corpus, every gate approved
    from researchapp.services.dispatch import drain, inline
    from researchapp.services.submission import task_submit

    with inline() as queue:
        task = task_submit(
            owner=ResearchTask.objects.first().owner,
            question="How tall is the Greywater Point lighthouse?",
            corpus=corpus,
            search_provider="local",
            auto_approve=True,
        )
        drain(queue)

    # then it plans, collects and reaches its report: the documents are sources like any other
    task.refresh_from_db()
    assert task.status == ResearchTask.Status.APPROVED, task.failure_reason
    assert task.sources.filter(url__in=["http://x:99999/", "http://[::1/x"]).exists()
