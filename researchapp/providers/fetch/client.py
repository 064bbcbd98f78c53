"""The HTTP fetcher: opens one page safely and returns its extracted text as a ``Document``.

Safety and limits, all enforced here rather than trusted to the server:
- every hop of a redirect chain is checked by the SSRF guard, and every TCP connection goes to an
  address the guard approved at that moment (see ``PinnedBackend``), which defeats DNS rebinding;
- explicit connect/read timeouts plus a total deadline for the whole fetch, retries included;
- the body is streamed and abandoned past ``max_bytes`` (after decompression, so a gzip bomb
  stops at the cap too);
- only HTML, plain text and PDF (through poppler's pdftotext, when installed) are read;
  everything else is refused before its body is downloaded.
"""

from __future__ import annotations

import contextlib
import socket
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from email.message import Message
from typing import Self
from urllib.parse import urljoin

import httpcore
import httpx

from researchapp.core.urls import normalize_url
from researchapp.providers.base import Document, ProviderError
from researchapp.providers.fetch.extract import decode_body, extract_html, pdf_text, plain_text
from researchapp.providers.fetch.guard import Resolver, check_url, resolve_checked

__all__ = ["FetchConfig", "HttpFetcher", "PinnedBackend", "extract_html"]

HTML_TYPES = frozenset({"text/html", "application/xhtml+xml"})
PLAIN_TYPES = frozenset({"text/plain", "text/markdown"})
PDF_TYPE = "application/pdf"
REDIRECT_STATUSES = frozenset({301, 302, 303, 307, 308})
ACCEPT = "text/html,application/xhtml+xml;q=0.9,text/plain;q=0.8"


@dataclass(frozen=True)
class FetchConfig:
    connect_timeout: float = 5.0
    read_timeout: float = 15.0  # between two reads of the socket, not for the whole body
    total_timeout: float = 30.0  # the whole fetch: every hop, every retry, the whole body
    max_bytes: int = 3_000_000
    max_redirects: int = 5
    retries: int = 1  # extra attempts after a retryable failure (5xx, 429, timeout, connection)
    backoff: float = 0.5  # seconds before the first retry, doubled for each further one
    user_agent: str = "research-desk/0.1 (+self-hosted)"
    allowed_hosts: frozenset[str] = frozenset()  # "host" or "host:port" let through the SSRF guard
    min_text_chars: int = 200  # less extracted text than this is an "empty_extraction"


class PinnedBackend(httpcore.SyncBackend):
    """Connects only to addresses the SSRF guard approves, resolved once per connection.

    httpcore hands us the host name; we resolve it, check every address and connect to a checked
    IP literal, so no second DNS lookup can swap in a private address. TLS still verifies the
    certificate against the host name, because httpcore does the handshake with the origin's name.
    """

    def __init__(self, *, allowed_hosts: frozenset[str], resolve: Resolver) -> None:
        self.allowed_hosts = allowed_hosts
        self.resolve = resolve

    def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,
        local_address: str | None = None,
        socket_options=None,
    ) -> httpcore.NetworkStream:
        addresses = resolve_checked(host, port, allowed_hosts=self.allowed_hosts, resolve=self.resolve)
        last_error: httpcore.ConnectError | None = None
        for address in addresses:
            try:
                return super().connect_tcp(address, port, timeout, local_address, socket_options)
            except httpcore.ConnectError as error:  # try the next address, as create_connection does
                last_error = error
        assert last_error is not None  # resolve_checked never returns an empty list
        raise last_error


def pinned_transport(*, allowed_hosts: frozenset[str], resolve: Resolver) -> httpx.HTTPTransport:
    """An httpx transport whose connections go through ``PinnedBackend``.

    httpx 0.28 has no public hook for httpcore's network backend, so we set the pool's attribute;
    the check below fails loudly (in the test suite first) if a new httpx moves it.
    """
    transport = httpx.HTTPTransport(retries=0)
    pool = getattr(transport, "_pool", None)
    if not isinstance(pool, httpcore.ConnectionPool) or not hasattr(pool, "_network_backend"):
        raise RuntimeError("httpx/httpcore internals changed: cannot pin fetch connections to checked IPs")
    pool._network_backend = PinnedBackend(allowed_hosts=allowed_hosts, resolve=resolve)
    return transport


def _error(message: str, code: str, *, retryable: bool = False) -> ProviderError:
    return ProviderError(message, retryable=retryable, code=code)


@contextlib.contextmanager
def _network_errors(url: str) -> Iterator[None]:
    """Turn httpx's exceptions into our one error type, saying whether a retry can help."""
    try:
        yield
    except httpx.TimeoutException as error:
        raise _error(
            f"timed out fetching {url}: {type(error).__name__}", "timeout", retryable=True
        ) from error
    except httpx.DecodingError as error:
        raise _error(f"could not decode the response of {url}: {error}", "bad_response") from error
    except httpx.RemoteProtocolError as error:
        if str(error).startswith("Invalid URL in location header"):  # httpx parses Location first
            raise _error(f"{url} redirects to a malformed URL ({error})", "bad_redirect") from error
        raise _error(
            f"could not fetch {url}: {type(error).__name__}: {error}", "unavailable", retryable=True
        ) from error
    except (httpx.TransportError, OSError) as error:
        raise _error(
            f"could not fetch {url}: {type(error).__name__}: {error}", "unavailable", retryable=True
        ) from error


def _media_type(header: str) -> tuple[str, str | None]:
    """``"text/html; charset=GBK"`` → ``("text/html", "gbk")``."""
    message = Message()
    message["content-type"] = header
    charset = message.get_param("charset")
    return message.get_content_type() if header else "", (
        charset.lower() if isinstance(charset, str) else None
    )


def _redirect_target(current: str, location: str) -> str:
    try:
        return urljoin(current, location.strip())
    except ValueError as error:  # "Location: http://[::1/x" cannot even be joined
        raise _error(f"{current} redirects to a malformed URL ({error})", "bad_redirect") from error


def _status_error(status: int, url: str) -> ProviderError:
    if status == 429:
        return _error(f"{url} answered 429 Too Many Requests", "rate_limited", retryable=True)
    if status >= 500:
        return _error(f"{url} answered HTTP {status}", "server_error", retryable=True)
    return _error(f"{url} answered HTTP {status}", "http_error")


class HttpFetcher:
    """Implements the ``Fetcher`` protocol over httpx; safe to share between threads."""

    def __init__(
        self,
        config: FetchConfig | None = None,
        *,
        resolve: Resolver = socket.getaddrinfo,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self.config = config or FetchConfig()
        self.resolve = resolve
        self._sleep = sleep
        self._client = httpx.Client(
            transport=pinned_transport(allowed_hosts=self.config.allowed_hosts, resolve=resolve),
            headers={"User-Agent": self.config.user_agent, "Accept": ACCEPT},
            follow_redirects=False,  # we follow them ourselves so the guard sees every hop
            trust_env=False,  # an environment proxy would bypass the guard's view of the target
        )

    def close(self) -> None:
        self._client.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def fetch(self, url: str) -> Document:
        """Fetch ``url`` and extract its text, retrying a transient failure with backoff."""
        deadline = time.monotonic() + self.config.total_timeout
        attempt = 0
        while True:
            try:
                return self._fetch_once(url, deadline)
            except ProviderError as error:
                pause = self.config.backoff * (2**attempt)
                if (
                    not error.retryable
                    or attempt >= self.config.retries
                    or time.monotonic() + pause >= deadline
                ):
                    raise
                self._sleep(pause)
                attempt += 1

    # --- one attempt ----------------------------------------------------------------------

    def _timeout(self, deadline: float) -> httpx.Timeout:
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            raise _error(
                f"gave up after the total timeout of {self.config.total_timeout}s", "timeout", retryable=True
            )
        return httpx.Timeout(
            connect=min(self.config.connect_timeout, remaining),
            read=min(self.config.read_timeout, remaining),
            write=min(self.config.read_timeout, remaining),
            pool=min(self.config.connect_timeout, remaining),
        )

    def _fetch_once(self, url: str, deadline: float) -> Document:
        """1. Check the URL with the guard. 2. Request it. 3. On a redirect, go to 1 with the target.
        4. Refuse bad statuses and types before reading. 5. Read up to the cap. 6. Extract."""
        current = url
        visited: set[str] = set()
        for _hop in range(self.config.max_redirects + 1):
            # The guard first: it refuses, with the reason, a URL it cannot parse (a port past 65535).
            check_url(current, allowed_hosts=self.config.allowed_hosts, resolve=self.resolve)
            visited.add(normalize_url(current))
            with (
                _network_errors(current),
                self._client.stream("GET", current, timeout=self._timeout(deadline)) as response,
            ):
                location = response.headers.get("location")
                if response.status_code in REDIRECT_STATUSES and location:
                    target = _redirect_target(current, location)
                    if normalize_url(target) in visited:
                        raise _error(f"redirect loop: {current} leads back to {target}", "redirect_loop")
                    current = target
                    continue
                if not 200 <= response.status_code < 300:
                    raise _status_error(response.status_code, current)
                media_type, charset = _media_type(response.headers.get("content-type", ""))
                self._refuse_unreadable(media_type, current)
                self._refuse_declared_size(response, current)
                body = self._read_capped(response, current, deadline)
            return self._document(url, current, response.status_code, media_type, charset, body, deadline)
        raise _error(
            f"more than {self.config.max_redirects} redirects starting at {url}", "too_many_redirects"
        )

    def _refuse_unreadable(self, media_type: str, url: str) -> None:
        if media_type in HTML_TYPES or media_type in PLAIN_TYPES or media_type == PDF_TYPE or not media_type:
            return
        raise _error(f"{url} is {media_type}, not a page of text", "unsupported_content")

    def _refuse_declared_size(self, response: httpx.Response, url: str) -> None:
        declared = response.headers.get("content-length", "")
        if declared.isdigit() and int(declared) > self.config.max_bytes:
            raise _error(
                f"{url} declares {int(declared):,} bytes, over the {self.config.max_bytes:,} byte limit",
                "too_large",
            )

    def _read_capped(self, response: httpx.Response, url: str, deadline: float) -> bytes:
        chunks: list[bytes] = []
        size = 0
        for chunk in response.iter_bytes():
            size += len(chunk)
            if size > self.config.max_bytes:
                raise _error(f"{url} is over the {self.config.max_bytes:,} byte limit", "too_large")
            if time.monotonic() > deadline:  # a server trickling bytes never trips the read timeout
                raise _error(
                    f"{url} took longer than {self.config.total_timeout}s", "timeout", retryable=True
                )
            chunks.append(chunk)
        return b"".join(chunks)

    def _document(
        self,
        url: str,
        final_url: str,
        status: int,
        media_type: str,
        charset: str | None,
        body: bytes,
        deadline: float,
    ) -> Document:
        is_pdf = media_type == PDF_TYPE or (not media_type and body.startswith(b"%PDF-"))
        is_html = not is_pdf and (media_type in HTML_TYPES or (not media_type and _sniff_html(body)))
        published = None
        if is_pdf:
            try:
                title, text = plain_text(pdf_text(body, timeout=deadline - time.monotonic()))
            except ProviderError as error:
                raise _error(f"{final_url} is {error.message}", error.code) from error
            extraction, media_type = "pdftotext", PDF_TYPE
        elif is_html:
            title, text, published = extract_html(decode_body(body, charset, is_html=True), final_url)
            extraction = "trafilatura"
        else:
            (title, text), extraction = plain_text(decode_body(body, charset, is_html=False)), "plain"
        if not text:
            raise _error(f"no main text could be extracted from {final_url}", "empty_extraction")
        if len(text) < self.config.min_text_chars:
            raise _error(
                f"only {len(text)} characters of text could be extracted from {final_url} "
                f"(fewer than {self.config.min_text_chars})",
                "empty_extraction",
            )
        return Document(
            url=url,
            final_url=final_url if final_url != url else "",
            title=title,
            text=text,
            published=published,
            http_status=status,
            content_type=media_type or ("text/html" if is_html else "text/plain"),
            extraction=extraction,
        )


def _sniff_html(body: bytes) -> bool:
    start = body[:1024].lstrip().lower()
    return start.startswith((b"<!doctype html", b"<html", b"<?xml")) or b"<html" in start
