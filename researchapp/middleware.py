"""Request and response rules that hold for every page of the desk."""

from __future__ import annotations

from collections.abc import Callable

from django.http import HttpRequest, HttpResponse

from researchapp.core.text import has_hidden, visible_text


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
