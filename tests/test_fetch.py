"""The HTTP fetcher against a real HTTP server on 127.0.0.1 (``tests/stubs/web.py``)."""

from __future__ import annotations

import shutil
import socket
import time
import uuid
from datetime import date

import pytest

from researchapp.providers.base import ProviderError
from researchapp.providers.fetch import extract
from researchapp.providers.fetch.client import FetchConfig, HttpFetcher, extract_html
from tests.stubs import web_pages
from tests.stubs.web import StubWeb, stub_web

# Any connection outside 127.0.0.0/8 fails these tests (see ``no_network``).
pytestmark = pytest.mark.usefixtures("no_network")

web = pytest.fixture(scope="module", name="web")(stub_web)


def fetcher_for(web: StubWeb, **config) -> HttpFetcher:
    config.setdefault("allowed_hosts", web.allowed_hosts)
    config.setdefault("backoff", 0.01)
    return HttpFetcher(FetchConfig(**config))


def fetch_error(fetcher: HttpFetcher, url: str) -> ProviderError:
    with pytest.raises(ProviderError) as failed:
        fetcher.fetch(url)
    return failed.value


def unique(path: str) -> str:
    """The path with a query of its own, so the server's request counter starts at zero."""
    return f"{path}{'&' if '?' in path else '?'}k={uuid.uuid4().hex[:8]}"


# --- pages that open ------------------------------------------------------------------------


def test_it_extracts_an_articles_text_title_and_date(web):
    # given an article page with navigation, footer and an article:published_time meta tag
    url = web.url("/article-1")

    # when
    document = fetcher_for(web).fetch(url)

    # then
    assert document.title == "Marrowby tidal lagoon pilot passes its first winter"
    assert "installed capacity of 12 megawatts" in document.text
    assert "All rights reserved" not in document.text  # the footer is boilerplate
    assert document.published == date(2022, 3, 14)
    assert (document.url, document.final_url, document.http_status) == (url, "", 200)
    assert (document.content_type, document.extraction) == ("text/html", "trafilatura")


def test_it_follows_a_301_then_302_chain_and_reports_where_it_ended(web):
    document = fetcher_for(web).fetch(web.url("/redirect-chain"))

    assert document.url == web.url("/redirect-chain")
    assert document.final_url == web.url("/article-1")
    assert "Marrowby" in document.title


def test_it_takes_plain_text_as_it_is(web):
    document = fetcher_for(web).fetch(web.url("/plain.txt"))

    assert document.extraction == "plain"
    assert document.content_type == "text/plain"
    assert document.text == "\n\n".join(web_pages.ARTICLES[0].paragraphs)


def test_it_sniffs_html_served_without_a_content_type(web):
    document = fetcher_for(web).fetch(web.url("/no-content-type"))

    assert document.extraction == "trafilatura"
    assert "48 million pounds" in document.text


def test_it_decodes_windows_1252_named_in_the_header(web):
    document = fetcher_for(web).fetch(web.url("/cp1252"))

    # the bytes 0x93/0x94/0x80/0x97 are “ ” € — in windows-1252, but control characters in latin-1
    assert (
        "“The lagoon’s café is the best on the coast,” said Renée Dufort, who runs it — and at €4.50"
        in document.text
    )


def test_it_decodes_gb2312_named_only_in_a_meta_tag(web):
    document = fetcher_for(web).fetch(web.url("/gb2312"))

    assert document.title == "马罗比潮汐泻湖"
    assert "马罗比潮汐泻湖是卡德尔海岸第一个潮汐发电试点项目" in document.text


def test_it_detects_gbk_when_nothing_names_the_charset(web):
    document = fetcher_for(web).fetch(web.url("/gbk-undeclared"))

    assert "石堤顶上的步道已经成为海岸上最热闹的散步路线之一" in document.text


def test_it_retries_a_transient_500_once_and_succeeds(web):
    # given a page that fails its first request only
    path = unique("/flaky")

    # when
    document = fetcher_for(web, retries=1).fetch(web.url(path))

    # then
    assert "Marrowby" in document.text
    assert web.requests[path] == 2


def test_it_reaches_an_allowed_name_through_its_own_resolver(web, no_network):
    # given a name only the injected resolver knows, pointing at the stub server
    asked = []

    def resolve(host, port, *args, **kwargs):
        asked.append(host)
        return [(socket.AF_INET, socket.SOCK_STREAM, 6, "", ("127.0.0.1", port))]

    fetcher = HttpFetcher(FetchConfig(allowed_hosts=frozenset({f"lagoon.test:{web.port}"})), resolve=resolve)

    # when
    document = fetcher.fetch(f"http://lagoon.test:{web.port}/article-2")

    # then the connection went to the address our resolver gave (the system resolver was never asked)
    assert "48 million pounds" in document.text
    assert asked == ["lagoon.test", "lagoon.test"]  # the guard's check, then the pinned connection
    assert ("127.0.0.1", web.port) in no_network


@pytest.mark.skipif(shutil.which("pdftotext") is None, reason="poppler-utils is not installed")
def test_it_reads_a_pdf_with_pdftotext_one_paragraph_per_line(web):
    article = web_pages.ARTICLES[1]

    document = fetcher_for(web).fetch(web.url("/paper.pdf"))

    assert (document.extraction, document.content_type) == ("pdftotext", "application/pdf")
    assert document.title == article.title
    # (Helvetica's standard encoding prints the ASCII apostrophe as a right single quote)
    assert document.text.replace("’", "'").split("\n")[1:] == list(article.paragraphs[:3])


def test_it_refuses_a_pdf_when_pdftotext_is_not_installed(web, monkeypatch):
    monkeypatch.setattr(extract.shutil, "which", lambda name: None)

    error = fetch_error(fetcher_for(web), web.url("/paper.pdf"))

    assert error.code == "unsupported_content"
    assert "pdftotext" in error.message


# --- pages that are refused -----------------------------------------------------------------


def test_it_refuses_loopback_unless_the_host_is_allowed(web):
    path = unique("/article-1")

    error = fetch_error(HttpFetcher(FetchConfig()), web.url(path))

    assert error.code == "blocked_address"
    assert web.requests[path] == 0


def test_it_refuses_a_redirect_to_another_loopback_address(web, no_network):
    # given only 127.0.0.1:<port> allowed, and a page redirecting to 127.0.0.2:<port>
    error = fetch_error(fetcher_for(web), web.url("/to-other-loopback"))

    assert error.code == "blocked_address"
    assert "127.0.0.2" in error.message
    assert all(host == "127.0.0.1" for host, _ in no_network)


@pytest.mark.parametrize("url", ["http://x:99999/", "http://[::1/x", "http://127.0.0.1:99999/a"])
def test_it_refuses_a_url_it_cannot_parse_with_the_reason(url, no_network):
    error = fetch_error(HttpFetcher(FetchConfig()), url)
    assert (error.code, error.retryable) == ("blocked_address", False)
    assert "malformed URL" in error.message
    assert no_network == []


@pytest.mark.parametrize(
    ("path", "code"), [("/to-bad-port", "blocked_address"), ("/to-bad-host", "bad_redirect")]
)
def test_it_refuses_a_redirect_to_a_url_it_cannot_parse(web, path, code):
    error = fetch_error(fetcher_for(web), web.url(path))
    assert (error.code, error.retryable) == (code, False)
    assert "malformed URL" in error.message


def test_it_refuses_a_redirect_loop(web):
    error = fetch_error(fetcher_for(web), web.url("/loop-a"))

    assert (error.code, error.retryable) == ("redirect_loop", False)


def test_it_follows_at_most_max_redirects(web):
    fetcher = fetcher_for(web, max_redirects=5)

    assert fetcher.fetch(web.url("/hop/5")).final_url == web.url("/article-1")
    assert fetch_error(fetcher, web.url("/hop/6")).code == "too_many_redirects"


@pytest.mark.parametrize("path", ["/huge", "/huge-declared"])
def test_it_stops_reading_at_the_size_cap(web, path):
    started = time.monotonic()

    error = fetch_error(fetcher_for(web, max_bytes=1_000_000), web.url(path))

    assert (error.code, error.retryable) == ("too_large", False)
    assert time.monotonic() - started < 5


@pytest.mark.parametrize(
    "path, mentions",
    [
        ("/image.png", "image/png"),
        ("/broken.pdf", "unreadable PDF"),
        ("/download.bin", "application/octet-stream"),
        ("/binary-as-html", "binary"),
    ],
)
def test_it_refuses_content_that_is_not_text(web, path, mentions):
    error = fetch_error(fetcher_for(web), web.url(path))

    assert (error.code, error.retryable) == ("unsupported_content", False)
    assert mentions in error.message


def test_it_reports_a_page_without_main_text(web):
    error = fetch_error(fetcher_for(web), web.url("/empty"))

    assert error.code == "empty_extraction"
    assert "no main text" in error.message


def test_it_reports_a_page_with_too_little_text(web):
    error = fetch_error(fetcher_for(web, min_text_chars=200), web.url("/short"))

    assert error.code == "empty_extraction"
    assert "fewer than 200" in error.message


def test_it_gives_up_on_a_slow_page_after_the_read_timeout(web):
    started = time.monotonic()

    error = fetch_error(fetcher_for(web, read_timeout=0.2, retries=0), web.url(unique("/slow?seconds=2")))

    assert (error.code, error.retryable) == ("timeout", True)
    assert time.monotonic() - started < 1.5


def test_it_keeps_the_whole_fetch_within_the_total_timeout(web):
    # given a generous read timeout but a short total, and retries that would overrun it
    fetcher = fetcher_for(web, read_timeout=5, total_timeout=0.4, retries=3, backoff=0.05)
    started = time.monotonic()

    error = fetch_error(fetcher, web.url(unique("/slow?seconds=2")))

    assert error.code == "timeout"
    assert time.monotonic() - started < 1.5


def test_it_retries_a_500_once_then_gives_up_as_retryable(web):
    path = unique("/error-500")

    error = fetch_error(fetcher_for(web, retries=1), web.url(path))

    assert (error.code, error.retryable) == ("server_error", True)
    assert web.requests[path] == 2


def test_it_treats_429_as_retryable(web):
    path = unique("/rate-limited")

    error = fetch_error(fetcher_for(web, retries=1), web.url(path))

    assert (error.code, error.retryable) == ("rate_limited", True)
    assert web.requests[path] == 2


@pytest.mark.parametrize("path, status", [("/forbidden", 403), ("/no-such-page", 404)])
def test_it_does_not_retry_a_client_error(web, path, status):
    path = unique(path)

    error = fetch_error(fetcher_for(web, retries=1), web.url(path))

    assert (error.code, error.retryable) == ("http_error", False)
    assert str(status) in error.message
    assert web.requests[path] == 1


def test_it_reports_a_closed_port_as_retryable(web):
    # given a loopback port where nothing listens (bind, note the port, close)
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]

    error = fetch_error(
        HttpFetcher(FetchConfig(allowed_hosts=frozenset({"127.0.0.1"}), retries=0)),
        f"http://127.0.0.1:{port}/",
    )

    assert (error.code, error.retryable) == ("unavailable", True)


# --- the extraction path on its own ---------------------------------------------------------


def test_it_extracts_title_text_and_date_from_html_in_one_call():
    article = web_pages.ARTICLES[4]

    title, text, published = extract_html(web_pages.article_html(article), "https://news.example/veyne")

    assert title == article.title
    assert article.paragraphs[1] in text
    assert published == date(2024, 6, 11)


def test_it_returns_empty_text_for_a_page_without_content():
    assert extract_html(web_pages.empty_html()) == ("", "", None)
    assert extract_html("") == ("", "", None)
