"""Request and response rules that hold for every page of the desk."""

from __future__ import annotations

from collections.abc import Callable

from django.http import HttpRequest, HttpResponse

from researchapp.client_address import is_trusted_proxy
from researchapp.core.text import has_hidden, visible_text

# What a proxy tells the app about the client; from anyone else, a client's own claim.
FORWARDING_HEADERS = (
    "HTTP_X_FORWARDED_PROTO",
    "HTTP_X_FORWARDED_FOR",
    "HTTP_X_FORWARDED_HOST",
    "HTTP_X_FORWARDED_PORT",
    "HTTP_X_REAL_IP",
    "HTTP_FORWARDED",
)


class TrustedProxyMiddleware:
    """Forwarding headers from a peer that is not one of ``TRUSTED_PROXIES`` are dropped.

    Production trusts ``X-Forwarded-Proto: https`` (``SECURE_PROXY_SSL_HEADER``) to know a browser used
    HTTPS; with gunicorn reachable directly, any client could send it and be served as if on HTTPS
    (secure cookies over plain HTTP, no redirect). Only the proxy that ends TLS may say so.
    """

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if not is_trusted_proxy(request.META.get("REMOTE_ADDR", "")):
            for header in FORWARDING_HEADERS:
                request.META.pop(header, None)
        return self.get_response(request)


class VisibleTextMiddleware:
    """Every HTML page without bidirectional controls and zero-width spaces.

    They come in with outside text (a source's title, a quote, a question): an RLO reverses what
    follows it on the page, a zero-width space hides a word from a search. Templates escape markup,
    which does nothing to these, so they are taken out of the page as it leaves (the Markdown and the
    PDF leave them out where they write text). Listed after CommonMiddleware, which then counts the
    page's length.
    """

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        if response.streaming or not response.get("Content-Type", "").startswith("text/html"):
            return response
        page = response.content.decode(response.charset, "replace")
        if has_hidden(page):
            response.content = visible_text(page).encode(response.charset)
            if response.has_header("Content-Length"):
                response["Content-Length"] = str(len(response.content))
        return response
