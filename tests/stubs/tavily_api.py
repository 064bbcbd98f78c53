"""A stub of the Tavily search API (``POST /search``) for ``tavily-python`` to talk to.

Wire format as ``tavily/tavily.py`` sends and reads it: a JSON body with ``query``,
``search_depth``, ``max_results``, ``include_domains``, ... and the key as
``Authorization: Bearer <key>``; a 200 answers ``{query, results: [{title, url, content, score,
raw_content, published_date?}], response_time, ...}``; errors answer ``{"detail": {"error": msg}}``
with 400/401/403/429/432/5xx, which the client turns into its own exception classes.

    with StubTavily({"solar": [tavily_result("https://a.example/1", "A", "text")]}) as tavily:
        TavilySearch("tvly-test", base_url=tavily.base_url).search("solar", max_results=5)
        assert tavily.searches[0]["search_depth"] == "basic"
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any
from urllib.parse import urlsplit

import pytest

from tests.stubs.json_api import Failure, JsonApiStub, RecordedRequest, StubResponse

__all__ = ["Failure", "StubTavily", "stub_tavily", "tavily_result"]

TavilyResult = dict[str, Any]
# Canned results: by exact query, or a function of the whole request body (for tests that care
# about depth, dates or domains, or for the lead's end-to-end site stub).
ResultSource = Mapping[str, Sequence[TavilyResult]] | Callable[[dict[str, Any]], Sequence[TavilyResult]]

DEFAULT_MAX_RESULTS = 5  # what Tavily returns when the request does not say


def tavily_result(
    url: str, title: str, content: str, *, score: float = 0.5, published_date: str | None = None
) -> TavilyResult:
    """One entry of Tavily's ``results`` list, with the fields the real API sends."""
    result: TavilyResult = {
        "url": url,
        "title": title,
        "content": content,
        "score": score,
        "raw_content": None,
    }
    if published_date is not None:
        result["published_date"] = published_date
    return result


class StubTavily(JsonApiStub):
    def __init__(self, results: ResultSource | None = None, *, api_key: str | None = None) -> None:
        """``api_key``: when set, any other key gets the 401 the real API gives a wrong key."""
        super().__init__()
        self.results: ResultSource = results if results is not None else {}
        self.api_key = api_key

    @property
    def base_url(self) -> str:
        """What ``TavilyClient(api_base_url=...)`` wants: the client appends ``/search`` itself."""
        return self.origin

    @property
    def searches(self) -> list[dict[str, Any]]:
        """The JSON bodies of every ``/search`` request received, in order."""
        return [request.json for request in self.requests if request.path == "/search"]

    def respond(self, request: RecordedRequest, failure: Failure | None) -> StubResponse:
        if request.method != "POST" or request.path != "/search":
            return _error(404, "Not Found")
        bearer = request.headers.get("authorization", "").removeprefix("Bearer ").strip()
        if not bearer or (self.api_key is not None and bearer != self.api_key):
            return _error(401, "Unauthorized: missing or invalid API key.")
        if failure is not None and failure.status != 200:
            return _error(failure.status, failure.message, failure.headers)
        started = time.monotonic()
        body = request.json
        results = self._results_for(body)
        return StubResponse(
            200,
            {
                "query": body.get("query", ""),
                "follow_up_questions": None,
                "answer": None,
                "images": [],
                "results": results,
                "response_time": round(time.monotonic() - started + 0.01, 2),
                "request_id": str(uuid.uuid4()),
            },
            delay=failure.delay if failure is not None else 0.0,
        )

    def _results_for(self, body: dict[str, Any]) -> list[TavilyResult]:
        if callable(self.results):
            found = list(self.results(body))
        else:
            found = list(self.results.get(body.get("query", ""), ()))
        # Filter like the real API does, so a provider that forgot to send the filters fails.
        include = body.get("include_domains") or []
        exclude = body.get("exclude_domains") or []
        if include:
            found = [result for result in found if _host_matches(result["url"], include)]
        if exclude:
            found = [result for result in found if not _host_matches(result["url"], exclude)]
        return found[: int(body.get("max_results") or DEFAULT_MAX_RESULTS)]


def _host_matches(url: str, domains: Sequence[str]) -> bool:
    host = (urlsplit(url).hostname or "").lower()
    return any(host == domain.lower() or host.endswith("." + domain.lower()) for domain in domains)


def _error(status: int, message: str, headers: Mapping[str, str] | None = None) -> StubResponse:
    return StubResponse(status, {"detail": {"error": message}}, headers=dict(headers or {}))


@pytest.fixture
def stub_tavily() -> Iterator[StubTavily]:
    """A running ``StubTavily`` with no canned results; set ``stub_tavily.results`` in the test."""
    with StubTavily() as stub:
        yield stub
