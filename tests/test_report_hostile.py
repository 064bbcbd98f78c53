"""Hostile pages through research → report page → Markdown → PDF → JSON: every rendering shows their
text as the characters it is, nothing in them becomes a link, image, heading or hidden text, and no
rendering fetches anything (a listener on 127.0.0.1 that the pages point at hears nothing)."""

from __future__ import annotations

import json
import re
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import call_command
from django.urls import reverse

from researchapp.exports.fonts import pdf_font
from researchapp.exports.pdf import PdfRenderError, pdf_from_html
from researchapp.models import Evidence, ResearchTask, Source
from researchapp.pipeline.report.structure import structure_in
from tests.helpers import client_for
from tests.report_checks import (
    Listener,
    audit_html,
    markdown_as_html,
    pdf_images,
    pdf_links,
    pdf_words,
)

pytestmark = pytest.mark.django_db
CORPUS = Path(__file__).parent / "fixtures" / "hostile" / "corpus.jsonl"
# Pages whose sentences open with marks the report writes itself: "[证据不足]", "[E1]", "To verify:".
MARKS = Path(__file__).parent / "fixtures" / "hostile" / "marks.jsonl"
QUESTION = "Is the <b>Northgate</b> ferry safe in storms?"
# The pages' own words, which every rendering must show exactly (an HTML comment included).
EXACT = [
    "The Northgate ferry is <!-- not --> safe in storms, the harbour master said after the winter season.",
    "Passengers on the forum say the Northgate ferry feels safe in storms "
    "<!-- because they never sailed -->.",
]
# What the pages would turn into structure if their text were trusted.
SMUGGLED_HEADINGS = ("Editor's verdict",)


@pytest.fixture
def listener():
    with Listener() as running:
        yield running


def hostile_task(tmp_path: Path, port: int) -> ResearchTask:
    """The research command, as a user runs it, on the hostile corpus pointed at the listener."""
    corpus = tmp_path / "hostile.jsonl"
    corpus.write_text(CORPUS.read_text().replace("LISTENER", f"127.0.0.1:{port}"))
    call_command(
        "research", QUESTION, "--corpus", str(corpus), "--auto-approve", stdout=StringIO(), stderr=StringIO()
    )
    task = ResearchTask.objects.get()
    assert task.status == ResearchTask.Status.APPROVED, task.failure_reason
    return task


def allowed_source_links(task: ResearchTask) -> set[str]:
    return {
        url for url in task.sources.values_list("url", flat=True) if url.startswith(("http://", "https://"))
    }


def test_hostile_pages_reach_every_rendering_as_text_and_nothing_is_fetched(
    tmp_path, listener, researcher, no_network
):
    # given an approved report researched from pages full of markup, pointed at a listener on 127.0.0.1
    task = hostile_task(tmp_path, listener.port)
    task.owner = researcher
    task.save(update_fields=["owner"])
    client = client_for(researcher)
    sources = allowed_source_links(task)
    assert sources == {
        "https://ferry-news.example/northgate-storm-safety",
        "https://harbour.example/northgate-ferry-report",
    }  # the javascript: "URL" of the third page is stored, never linked

    # when the report page and every export are made
    page = client.get(reverse("report_view", args=[task.pk])).content.decode()
    markdown = client.get(reverse("export_markdown", args=[task.pk])).content.decode()
    pdf = client.get(reverse("export_pdf", args=[task.pk])).content
    ledger = json.loads(client.get(reverse("export_json", args=[task.pk])).content)

    # then nothing reached the listener
    assert listener.connections == []
    assert no_network == []

    # the page: the pages' words as text; links only to quotes in context, anchors and the sources
    body = page.split('data-testid="report-body"', 1)[1].split('<aside class="report-side">', 1)[0]
    html = audit_html(body)
    for words in EXACT:
        assert words in html.words
    assert not {"img", "style", "svg", "image", "script", "iframe", "link"} & set(html.tags)
    assert html.comments == []
    assert not any(h in heading for h in SMUGGLED_HEADINGS for heading in html.headings)
    for link in html.links:
        assert link.startswith(("/evidence/", "#")) or link in sources, link

    # the Markdown: as a CommonMark renderer shows it, the same words, no raw HTML, no smuggled structure
    shown, raw_html = markdown_as_html(markdown)
    rendered = audit_html(shown)
    assert raw_html == []
    for words in EXACT:
        assert words in rendered.words
    assert "img" not in rendered.tags
    assert not any(h in heading for h in SMUGGLED_HEADINGS for heading in rendered.headings)
    assert rendered.headings[0] == QUESTION  # the question's tags are its text
    assert set(rendered.links) <= sources

    # the PDF: pdftotext finds the exact words; links go only inside the document (a corpus's addresses
    # are what its file claims: never links); no images
    words = pdf_words(pdf)
    for exact in EXACT:
        assert exact in words
    # markup in the report's quotes is shown, not obeyed (the reader states what answers, so which
    # hostile sentences are quoted depends on the question: every one quoted must read as written)
    cited = task.drafts.get(status="approved").cited_evidence_ids
    quoted = [e.quote for e in Evidence.objects.filter(task=task, pk__in=cited)]
    markup = [piece for piece in ("<img src=", "[Official certificate](") if any(piece in q for q in quoted)]
    assert all(piece in words for piece in markup) and "<!-- not -->" in words
    uris, destinations, named = pdf_links(pdf)
    assert uris == []
    assert destinations and set(destinations) <= named
    assert pdf_images(pdf) == 0

    # the JSON ledger: citations in the seed API's shape, each quote its snapshot's text at its offsets
    citations = ledger["report"]["citations"]
    assert citations and {"url", "title", "quote", "start", "end", "relevance"} <= set(citations[0])
    snapshots = dict(Source.objects.filter(task=task).values_list("url", "text"))
    for citation in citations:
        assert snapshots[citation["url"]][citation["start"] : citation["end"]] == citation["quote"]
    assert {"stats", "warnings"} <= set(ledger)
    call_command("ledger_verify", task=task.pk, stdout=StringIO())


@pytest.mark.parametrize(
    "smuggled",
    [
        '<img src="http://127.0.0.1:{port}/img.png">',
        '<link rel="stylesheet" href="http://127.0.0.1:{port}/style.css">',
        '<style>@import url("http://127.0.0.1:{port}/import.css");'
        " p {{ background: url(http://127.0.0.1:{port}/bg.png) }}</style>",
        '<svg><image href="http://127.0.0.1:{port}/svg.png"/><image href="file:///etc/passwd"/></svg>',
        '<object data="http://127.0.0.1:{port}/object.svg"></object><iframe src="http://127.0.0.1:{port}/frame"></iframe>',
        '<img src="file:///etc/hostname"><img src="data:image/svg+xml,<svg xmlns=%22http://www.w3.org/2000/svg%22/>">',
    ],
)
def test_the_pdf_renderer_fetches_nothing_even_from_markup_that_slipped_through(listener, smuggled):
    # given a document whose markup asks for remote, local and inline resources
    html = f"<!doctype html><html><body><p>text</p>{smuggled.format(port=listener.port)}</body></html>"
    # when it is rendered
    pdf = pdf_from_html(html, fonts=[pdf_font()])
    # then the listener heard nothing, and the PDF holds no image
    assert pdf.startswith(b"%PDF")
    assert listener.connections == []
    assert pdf_images(pdf) == 0


def test_a_rendering_past_its_time_limit_is_stopped():
    # given a long document and a time limit too short to render it
    html = "<!doctype html><html><body>" + "<p>word </p>" * 20_000 + "</body></html>"
    # when / then
    with pytest.raises(PdfRenderError, match=re.escape("longer than 0.2 s and was stopped")):
        pdf_from_html(html, fonts=[pdf_font()], seconds=0.2)


def test_marks_of_the_reports_own_structure_in_a_source_stay_text(tmp_path, researcher):
    # given pages whose sentences open with the gap mark, a citation marker and a heading of the report
    call_command(
        "research",
        "Is the Northgate ferry safe in storms?",
        "--corpus",
        str(MARKS),
        "--auto-approve",
        "--json",
        str(tmp_path / "out.json"),
        stdout=StringIO(),
        stderr=StringIO(),
    )
    task = ResearchTask.objects.get()
    task.owner = researcher
    task.save(update_fields=["owner"])
    ledger = json.loads((tmp_path / "out.json").read_text())

    # then the report is approved, answered, and none of its claims holds a mark of its structure
    assert task.status == ResearchTask.Status.APPROVED, task.failure_reason
    claims = [claim["text"] for claim in ledger["report"]["claims"]]
    assert any(claim.startswith("The Northgate ferry crossed in storms 40 times") for claim in claims)
    assert not [claim for claim in claims if structure_in(claim)]
    # and on the page the Answer holds no gap mark, while the quotes still show the sources' words
    page = client_for(researcher).get(reverse("report_view", args=[task.pk])).content.decode()
    answer = page.split('data-testid="report-answer"', 1)[1].split("</section>", 1)[0]
    assert "证据不足" not in answer and "To verify:" not in answer
    assert "passengers on the forum say" not in answer  # the sentence that opens with "[E1]"
    assert "[证据不足] The Northgate ferry is safe in storms according to the harbour master." in page


HIDDEN = ("\u202e", "\u202c", "\u200b", "\u2066", "\ufeff")


def test_bidi_controls_and_zero_width_spaces_reach_no_rendering(tmp_path, researcher):
    # given a page whose sentence reverses its middle (RLO ... PDF) and hides spaces in words
    record = {
        "url": "https://ferry.example/rlo",
        "title": "Ferry \u2066notes\u2069",
        "text": "The Northgate ferry is \u202esafe in storms\u202c, the harbour\u200b master said in 2024.\n"
        "The Northgate ferry crossed in storms 40 times in 2024 with\ufeffout an accident.",
    }
    corpus = tmp_path / "bidi.jsonl"
    corpus.write_text(json.dumps(record) + "\n", encoding="utf-8")
    call_command(
        "research",
        "Is the Northgate ferry safe in storms?",
        "--corpus",
        str(corpus),
        "--auto-approve",
        stdout=StringIO(),
        stderr=StringIO(),
    )
    task = ResearchTask.objects.get()
    task.owner = researcher
    task.save(update_fields=["owner"])
    assert task.status == ResearchTask.Status.APPROVED, task.failure_reason
    client = client_for(researcher)

    # when the page and the exports are made
    page = client.get(reverse("report_view", args=[task.pk])).content.decode()
    markdown = client.get(reverse("export_markdown", args=[task.pk])).content.decode()
    words = pdf_words(client.get(reverse("export_pdf", args=[task.pk])).content)

    # then none holds a hidden character, and the sentence reads in its own order
    for rendering in (page, markdown, words):
        assert not any(character in rendering for character in HIDDEN)
    assert "The Northgate ferry is safe in storms, the harbour master said in 2024." in words
    assert "without an accident" in page and "without an accident" in words
    # while the stored snapshot keeps every character, so each quote is still its snapshot's slice
    assert "\u202e" in Source.objects.get(task=task).text
    call_command("ledger_verify", task=task.pk, stdout=StringIO())


def test_a_corpus_document_claiming_an_address_is_shown_as_a_claim_never_linked(tmp_path, researcher):
    # given a corpus document that claims to be the cloud metadata address
    record = {
        "url": "http://169.254.169.254/latest/meta-data/",
        "title": "Ferry safety record",
        "text": "The Northgate ferry crossed in storms 40 times in 2024 without an accident, the log says.",
    }
    corpus = tmp_path / "claims.jsonl"
    corpus.write_text(json.dumps(record) + "\n", encoding="utf-8")
    call_command(
        "research",
        "Is the Northgate ferry safe in storms?",
        "--corpus",
        str(corpus),
        "--auto-approve",
        stdout=StringIO(),
        stderr=StringIO(),
    )
    task = ResearchTask.objects.get()
    task.owner = researcher
    task.save(update_fields=["owner"])
    assert task.status == ResearchTask.Status.APPROVED, task.failure_reason
    client = client_for(researcher)

    # when the report page and the exports are made
    page = client.get(reverse("report_view", args=[task.pk])).content.decode()
    markdown = client.get(reverse("export_markdown", args=[task.pk])).content.decode()
    pdf = client.get(reverse("export_pdf", args=[task.pk])).content

    # then the reference says where the document came from, and the address as an unverified claim
    provenance = f'data-testid="corpus-provenance">corpus://{task.corpus.name}</span>'
    assert provenance in page
    assert "address claimed by the corpus, not verified: http://169.254.169.254/latest/meta-data/" in page
    assert "169.254.169.254" not in "".join(audit_html(page).links)
    shown, _ = markdown_as_html(markdown)
    assert "169.254.169.254" in audit_html(shown).words and audit_html(shown).links == []
    uris, _, _ = pdf_links(pdf)
    assert uris == [] and "address claimed by the corpus, not verified" in pdf_words(pdf)
