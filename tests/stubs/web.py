"""A small web of pages on a real HTTP server on 127.0.0.1, for the fetcher and the collect stage.

    with StubWeb() as web:
        fetcher = HttpFetcher(FetchConfig(allowed_hosts=web.allowed_hosts))
        fetcher.fetch(web.url("/article-1"))

Every page accepts ``?delay=<seconds>`` (answer late) and ``?group=<name>`` (count how many
requests of that group were in flight at once: ``web.max_in_flight("name")``). The content is
in ``web_pages.py``; ``PAGES`` below says what each path is for.

Only 127.0.0.1 is served. ``/to-other-loopback`` redirects to 127.0.0.2 on the same port, which
the guard must refuse when only ``127.0.0.1:<port>`` is allowed; nothing listens there.
"""

from __future__ import annotations

import ipaddress
import re
import socket
import struct
import textwrap
import threading
import zlib
from collections import Counter
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Any, Self, override
from urllib.parse import parse_qs, urlsplit

from researchapp.providers.base import Hit
from tests.stubs import web_pages as content

__all__ = ["StubWeb", "StubWebSearch", "refuse_non_loopback", "stub_web"]

HUGE_BYTES = 5_000_000


def _png_bytes() -> bytes:
    """A valid 1×1 PNG, built here rather than shipped as a binary file."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    header = struct.pack(">IIBBBBB", 1, 1, 8, 2, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(b"\x00\xff\x00\x00"))
        + chunk(b"IEND", b"")
    )


def _pdf_bytes(title: str, paragraphs: tuple[str, ...]) -> bytes:
    """A one-page PDF with real text objects (Helvetica), so pdftotext has something to read."""
    lines = [title, "", ""]
    for paragraph in paragraphs:
        lines += [*textwrap.wrap(paragraph, 90), "", ""]  # a gap of two lines between paragraphs
    shown = " ".join(
        "({}) '".format(line.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)")) for line in lines
    )
    stream = f"BT /F1 10 Tf 12 TL 50 760 Td {shown} ET".encode("latin-1")
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R"
        b" /Resources << /Font << /F1 5 0 R >> >> >>",
        b"<< /Length %d >>\nstream\n" % len(stream) + stream + b"\nendstream",
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
    ]
    pdf = bytearray(b"%PDF-1.4\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(pdf))
        pdf += b"%d 0 obj\n" % number + body + b"\nendobj\n"
    xref = len(pdf)
    pdf += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    pdf += b"".join(b"%010d 00000 n \n" % offset for offset in offsets)
    pdf += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(objects) + 1, xref)
    return bytes(pdf)


PNG = _png_bytes()
PDF = _pdf_bytes(content.ARTICLES[1].title, content.ARTICLES[1].paragraphs[:3])
BROKEN_PDF = b"%PDF-1.4\n1 0 obj << /Type /Catalog >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n"


class _Handler(BaseHTTPRequestHandler):
    server: _Server
    protocol_version = "HTTP/1.0"  # one request per connection: bodies without a length end at close

    @override
    def log_message(self, format: str, *args: object) -> None:  # keep the test output clean
        return

    def do_GET(self) -> None:
        parts = urlsplit(self.path)
        query = {key: values[0] for key, values in parse_qs(parts.query).items()}
        web = self.server.web
        group = query.get("group", "")
        web._enter(self.path, group)
        try:
            if web._sleep(float(query.get("delay", "0"))):
                self._route(parts.path, query)
        except (BrokenPipeError, ConnectionResetError):  # the client gave up (size cap, timeout)
            pass
        finally:
            web._leave(group)

    # --- responses ------------------------------------------------------------------------

    def _send(
        self,
        status: int,
        body: bytes = b"",
        content_type: str | None = "text/html; charset=utf-8",
        headers: dict[str, str] | None = None,
        length: bool = True,
    ) -> None:
        self.send_response(status)
        if content_type:
            self.send_header("Content-Type", content_type)
        if length:
            self.send_header("Content-Length", str(len(body)))
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(body)

    def _redirect(self, status: int, location: str) -> None:
        self._send(status, b"", headers={"Location": location})

    def _huge(self, *, declare_length: bool) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        if declare_length:
            self.send_header("Content-Length", str(HUGE_BYTES))
        self.end_headers()
        block = b"<p>" + b"The lagoon wall is long. " * 40 + b"</p>\n"
        sent = 0
        while sent < HUGE_BYTES:
            self.wfile.write(block)
            sent += len(block)

    def _route(self, path: str, query: dict[str, str]) -> None:
        web = self.server.web
        article = web.articles.get(path)
        if article is not None:
            self._send(200, content.article_html(article).encode("utf-8"))
        elif (hop := re.fullmatch(r"/hop/(\d+)", path)) is not None:
            remaining = int(hop.group(1))
            self._redirect(302, f"/hop/{remaining - 1}" if remaining > 1 else "/article-1")
        elif path in PAGES:
            PAGES[path](self, query)
        else:
            self._send(404, b"<html><body><p>Not found</p></body></html>")


def _flaky(handler: _Handler, query: dict[str, str]) -> None:
    # Fails the first request for each full path: give every test its own ``?key=``.
    if handler.server.web.requests[handler.path] == 1:
        handler._send(500, b"<html><body><p>temporarily broken</p></body></html>")
    else:
        handler._send(200, content.article_html(content.ARTICLES[0]).encode("utf-8"))


def _slow(handler: _Handler, query: dict[str, str]) -> None:
    if handler.server.web._sleep(float(query.get("seconds", "2"))):
        handler._send(200, content.article_html(content.ARTICLES[0]).encode("utf-8"))


def _page(html: Callable[[], str], content_type: str = "text/html; charset=utf-8", encoding: str = "utf-8"):
    return lambda handler, query: handler._send(200, html().encode(encoding), content_type)


def _raw(body: bytes, content_type: str | None, status: int = 200, headers: dict[str, str] | None = None):
    return lambda handler, query: handler._send(status, body, content_type, headers)


def _cp1252_html() -> str:
    return content.page_html("Soup on the wall", f"<h1>Soup on the wall</h1><p>{content.CP1252_TEXT}</p>")


def _chinese_html() -> str:
    # The charset is declared only here, in the page: the server sends a bare "text/html".
    return content.page_html(
        "马罗比潮汐泻湖",
        f"<h1>马罗比潮汐泻湖</h1><p>{content.CHINESE_TEXT}</p>",
        head_extra='<meta http-equiv="Content-Type" content="text/html; charset=gb2312">',
    )


def _chinese_undeclared_html() -> str:
    return content.page_html("马罗比潮汐泻湖", f"<h1>马罗比潮汐泻湖</h1><p>{content.CHINESE_TEXT}</p>")


PAGES: dict[str, Callable[[_Handler, dict[str, str]], None]] = {
    # the articles themselves are routed from ``StubWeb.articles``
    "/links": _page(content.link_farm_html),  # a link farm
    "/listicle": _page(content.listicle_html),  # a thin list of one-liners
    "/empty": _page(content.empty_html),  # nothing to extract
    "/short": _page(content.short_html),  # one sentence: under min_text_chars
    "/plain.txt": _raw(
        "\n\n".join(content.ARTICLES[0].paragraphs).encode("utf-8"), "text/plain; charset=utf-8"
    ),
    "/no-content-type": lambda h, q: h._send(200, content.article_html(content.ARTICLES[1]).encode(), None),
    "/cp1252": _page(_cp1252_html, "text/html; charset=windows-1252", "cp1252"),  # charset in the header
    "/gb2312": _page(_chinese_html, "text/html", "gb2312"),  # charset only in a <meta>
    "/gbk-undeclared": _page(_chinese_undeclared_html, "text/html", "gbk"),  # charset nowhere: detect it
    "/image.png": _raw(PNG, "image/png"),
    "/binary-as-html": _raw(PNG + bytes(range(256)) * 8, "text/html"),
    "/paper.pdf": _raw(PDF, "application/pdf"),  # a real one-page PDF of article 2's opening
    "/broken.pdf": _raw(BROKEN_PDF, "application/pdf"),  # starts like a PDF, is not one
    "/download.bin": _raw(b"\x00\x01\x02" * 100, "application/octet-stream"),
    "/huge": lambda h, q: h._huge(declare_length=False),  # 5 MB with no Content-Length
    "/huge-declared": lambda h, q: h._huge(declare_length=True),  # 5 MB, and says so up front
    "/redirect-chain": lambda h, q: h._redirect(301, "/redirect-step"),
    "/redirect-step": lambda h, q: h._redirect(302, "/article-1"),
    "/loop-a": lambda h, q: h._redirect(302, "/loop-b"),
    "/loop-b": lambda h, q: h._redirect(302, "/loop-a"),
    "/to-other-loopback": lambda h, q: h._redirect(302, f"http://127.0.0.2:{h.server.server_port}/article-1"),
    # Redirects to URLs that cannot be parsed: a port past 65535, an unclosed IPv6 bracket.
    "/to-bad-port": lambda h, q: h._redirect(302, "http://127.0.0.1:99999/article-1"),
    "/to-bad-host": lambda h, q: h._redirect(302, "http://[::1/article-1"),
    "/error-500": _raw(b"<html><body><p>server error</p></body></html>", "text/html", 500),
    "/rate-limited": _raw(b"slow down", "text/plain", 429, {"Retry-After": "1"}),
    "/forbidden": _raw(b"<html><body><p>no</p></body></html>", "text/html", 403),
    "/flaky": _flaky,  # 500 the first time, then an article
    "/slow": _slow,  # answers after ?seconds= (2 by default), or never if the server stops first
}


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    block_on_close = False  # a handler still sleeping must not hold up the end of a test
    request_queue_size = 64
    web: StubWeb


class StubWeb:
    """The stub site. Use as a context manager; ``url(path)`` and ``allowed_hosts`` for the fetcher."""

    def __init__(self) -> None:
        self.articles = {article.path: article for article in content.ARTICLES}
        self.requests: Counter[str] = Counter()  # full request path (with query) → times requested
        self._lock = threading.Lock()
        self._in_flight: Counter[str] = Counter()
        self._max_in_flight: Counter[str] = Counter()
        self._stopping = threading.Event()
        self._server: _Server | None = None
        self._thread: threading.Thread | None = None

    # --- lifecycle ------------------------------------------------------------------------

    def __enter__(self) -> Self:
        self._server = _Server(("127.0.0.1", 0), _Handler)
        self._server.web = self
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.05}, name="stub-web", daemon=True
        )
        self._thread.start()
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self._stopping.set()
        assert self._server is not None and self._thread is not None
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=5)

    # --- addresses ------------------------------------------------------------------------

    @property
    def port(self) -> int:
        assert self._server is not None, "use StubWeb as a context manager"
        return self._server.server_port

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def allowed_hosts(self) -> frozenset[str]:
        """What ``FetchConfig.allowed_hosts`` needs to let the fetcher in: this host and port only."""
        return frozenset({f"127.0.0.1:{self.port}"})

    def url(self, path: str) -> str:
        return f"{self.base_url}{path}"

    # --- what happened --------------------------------------------------------------------

    def max_in_flight(self, group: str) -> int:
        with self._lock:
            return self._max_in_flight[group]

    def _enter(self, path: str, group: str) -> None:
        with self._lock:
            self.requests[path] += 1
            self._in_flight[group] += 1
            self._max_in_flight[group] = max(self._max_in_flight[group], self._in_flight[group])

    def _leave(self, group: str) -> None:
        with self._lock:
            self._in_flight[group] -= 1

    def _sleep(self, seconds: float) -> bool:
        """Sleep, waking early when the server stops; True if the full time passed."""
        return not self._stopping.wait(seconds) if seconds > 0 else True

    # --- search over the site ---------------------------------------------------------------

    def search(self, query: str, max_results: int) -> list[Hit]:
        """Articles ranked by how many of the query's words they contain (title counts double)."""
        words = {word for word in re.findall(r"\w+", query.lower()) if len(word) > 2}
        scored = []
        for article in self.articles.values():
            title_words = set(re.findall(r"\w+", article.title.lower()))
            text_words = set(re.findall(r"\w+", article.text.lower()))
            score = sum(2 if word in title_words else 1 for word in words if word in title_words | text_words)
            if score:
                scored.append((score, article))
        scored.sort(key=lambda item: (-item[0], item[1].path))
        top = max((score for score, _ in scored), default=1)
        return [
            Hit(
                url=self.url(article.path),
                title=article.title,
                snippet=article.paragraphs[0][:200],
                score=round(score / top, 3),
                provider="stubweb",
            )
            for score, article in scored[:max_results]
        ]


class StubWebSearch:
    """A ``SearchProvider`` over the stub web's articles, for collect tests and end-to-end runs."""

    name = "stubweb"

    def __init__(self, web: StubWeb) -> None:
        self.web = web
        self.queries: list[str] = []

    def search(self, query: str, *, max_results: int) -> list[Hit]:
        self.queries.append(query)
        return self.web.search(query, max_results)


def stub_web() -> Iterator[StubWeb]:
    """The pytest fixture, as a plain generator: register it in ``tests/conftest.py`` with
    ``stub_web = pytest.fixture(scope="session")(tests.stubs.web.stub_web)``."""
    with StubWeb() as web:
        yield web


def refuse_non_loopback(monkeypatch: Any) -> list[tuple[str, int]]:
    """A safety net for tests of the SSRF guard: any attempt to resolve a name with the system
    resolver, or to connect outside 127.0.0.0/8, fails the test instead of leaving the machine.

    Returns the list of addresses connected to, so a test can also assert what was (not) tried.
    """
    attempts: list[tuple[str, int]] = []
    real_create_connection = socket.create_connection
    real_getaddrinfo = socket.getaddrinfo

    def loopback_only(host: str) -> None:
        try:
            ip = ipaddress.ip_address(host)
        except ValueError:
            raise AssertionError(f"the test tried to look up {host!r} with the system resolver") from None
        if ip not in ipaddress.ip_network("127.0.0.0/8"):
            raise AssertionError(f"the test tried to connect to {host}, outside 127.0.0.0/8")

    def create_connection(address: tuple[str, int], *args: Any, **kwargs: Any) -> socket.socket:
        attempts.append((address[0], address[1]))
        loopback_only(address[0])
        return real_create_connection(address, *args, **kwargs)

    def getaddrinfo(host: str, *args: Any, **kwargs: Any) -> Any:
        loopback_only(host)
        return real_getaddrinfo(host, *args, **kwargs)

    monkeypatch.setattr(socket, "create_connection", create_connection)
    monkeypatch.setattr(socket, "getaddrinfo", getaddrinfo)
    return attempts
