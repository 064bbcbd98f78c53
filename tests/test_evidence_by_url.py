"""Evidence added by hand from a page the fetcher opens: the stub web on 127.0.0.1, and the SSRF guard."""

from __future__ import annotations

import html
import socket

import pytest
from django.urls import reverse
from django.utils import translation

from researchapp.models import Event, Evidence, Finding, Source
from researchapp.providers import registry
from researchapp.providers.fetch.client import HttpFetcher
from researchapp.services import manual_evidence
from researchapp.services.manual_evidence import WHY_NOT_OPENED
from tests.factories import evidence_review_task
from tests.helpers import HTMX, client_for

pytestmark = pytest.mark.django_db


@pytest.fixture
def fetch_stub_web(settings, stub_web):
    """The fetcher may open the stub web's pages (and only those, on loopback)."""
    settings.RESEARCH = {**settings.RESEARCH, "FETCH_ALLOWED_HOSTS": stub_web.allowed_hosts}
    registry.shared_http_fetcher.cache_clear()
    yield stub_web
    registry.shared_http_fetcher.cache_clear()


def open_url(client, scenario, url: str) -> str:
    data = {"action": "open_url", "finding": scenario.gap.pk, "version": scenario.gap.version, "url": url}
    return client.post(reverse("evidence_review", args=[scenario.task.pk]), data, **HTMX).content.decode()


def test_a_page_opened_by_its_address_becomes_a_source_to_select_evidence_from(
    analyst, researcher, fetch_stub_web
):
    # given a [证据不足] item, and an analyst who knows a page that answers it
    scenario = evidence_review_task(researcher)
    client = client_for(analyst)
    url = fetch_stub_web.url("/article-1")

    # when the fetcher opens it
    body = open_url(client, scenario, url)

    # then it is stored as a source of the task, opened for the item's sub-question, and offered
    source = Source.objects.get(task=scenario.task, url=url)
    assert source.provider == "by_hand" and "12 megawatts" in source.text
    assert scenario.gap.subquestion.sources.filter(pk=source.pk).exists()
    assert f"Opened {url}: stored as a source" in body
    assert f'<option value="{source.pk}" selected>' in body
    assert Event.objects.filter(data__decision="open_source", actor=analyst).exists()

    # when the analyst selects a sentence of it and adds it
    passage = "The pilot has an installed capacity of 12 megawatts."
    start = source.text.index(passage)
    data = {"action": "add_evidence", "finding": scenario.gap.pk, "version": 1, "source": source.pk}
    client.post(
        reverse("evidence_review", args=[scenario.task.pk]),
        {**data, "start": start, "end": start + len(passage)},
        **HTMX,
    )

    # then the quote is stored with its offsets in the fetched snapshot, and the item is supported
    evidence = Evidence.objects.get(added_by=analyst)
    assert source.text[evidence.start : evidence.end] == evidence.quote == passage
    assert evidence.snapshot_sha256 == source.sha256
    assert Finding.objects.get(pk=scenario.gap.pk).status == "supported"


@pytest.mark.parametrize(
    ("path", "says"),
    [
        ("/image.png", "is image/png, not a page of text"),
        ("/binary-as-html", "binary content served as text"),
        ("/download.bin", "is application/octet-stream, not a page of text"),
        ("/error-500", "Could not open"),
        ("/forbidden", "Could not open"),
        ("/short", "characters of text could be extracted"),
    ],
)
def test_a_page_that_fails_or_is_not_text_is_refused_clearly(analyst, researcher, fetch_stub_web, path, says):
    scenario = evidence_review_task(researcher)
    sources = Source.objects.count()
    body = open_url(client_for(analyst), scenario, fetch_stub_web.url(path))
    assert says in body and "Could not open" in body
    # and nothing is stored, and the address typed is still in the form
    assert Source.objects.count() == sources
    assert f'value="{fetch_stub_web.url(path)}"' in body
    assert Finding.objects.get(pk=scenario.gap.pk).status == "insufficient"


@pytest.mark.parametrize(
    ("url", "reason"),
    [
        ("http://169.254.169.254/latest/meta-data/", "169.254.169.254 is a cloud metadata address"),
        ("http://10.0.0.1/admin", "10.0.0.1 is a private address"),
        ("file:///etc/passwd", "scheme &#x27;file&#x27; is not http or https"),
        # URLs that cannot be parsed: refused by the guard with the reason, never a 500
        ("http://x:99999/", "malformed URL (Port out of range 0-65535)"),
        ("http://[::1/x", "malformed URL (Invalid IPv6 URL)"),
    ],
)
def test_private_and_metadata_addresses_are_refused_before_any_connection(
    analyst, researcher, no_network, settings, url, reason
):
    # given the site's settings (no host allowed through the guard) and no way out of 127.0.0.0/8
    settings.RESEARCH = {**settings.RESEARCH, "FETCH_ALLOWED_HOSTS": frozenset()}
    scenario = evidence_review_task(researcher)

    # when an analyst asks the fetcher to open an internal address
    body = open_url(client_for(analyst), scenario, url)

    # then the guard refuses it by its own decision: nothing was connected to, nothing stored
    assert "Could not open" in body and reason in body
    assert no_network == []
    assert not Source.objects.filter(url=url).exists()


def test_an_empty_address_is_asked_for(analyst, researcher):
    scenario = evidence_review_task(researcher)
    assert "Paste the address of the page to open." in open_url(client_for(analyst), scenario, "  ")


@pytest.mark.parametrize("language", ["en", "zh-hans"])
def test_an_address_whose_host_cannot_be_found_is_refused_in_words_not_an_errno(
    analyst, researcher, monkeypatch, language
):
    # given a server whose resolver finds no such host (offline, or a mistyped name)
    def no_such_host(host, port, *args, **kwargs):
        raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")

    monkeypatch.setattr(manual_evidence, "analyst_fetcher", lambda: HttpFetcher(resolve=no_such_host))
    scenario = evidence_review_task(researcher)
    client = client_for(analyst)
    client.cookies["django_language"] = language

    # when an analyst asks to open a page there
    body = open_url(client, scenario, "https://reports.example.org/ridership")

    # then the refusal says what happened in the analyst's language, with no errno, beside the field
    with translation.override(language):
        expected = str(WHY_NOT_OPENED["dns_failed"])
    assert html.escape(expected, quote=True) in body or expected in body
    assert "Errno" not in body and "Name or service not known" not in body
    assert 'data-testid="field-error" data-field="url"' in body
    assert 'value="https://reports.example.org/ridership"' in body
