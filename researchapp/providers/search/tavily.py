"""Live web search through Tavily (``tavily-python``), normalised to ``Hit`` values.

The client is synchronous (``requests``) and raises its own exception family; this module maps
each of them onto ``ProviderError`` so the Celery layer can tell a rate limit (wait and retry)
from a refused key (stop).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import date, datetime, timedelta
from email.utils import parsedate_to_datetime
from typing import Any

import requests
from tavily import TavilyClient
from tavily import errors as tavily_errors

from researchapp.providers.base import ConfigurationError, Hit, ProviderError

# Our task depth names → Tavily's ``search_depth``. "advanced" costs two credits and returns
# better-chosen content snippets, which is what a deep task pays for.
SEARCH_DEPTHS: dict[str, str] = {"quick": "basic", "deep": "advanced"}

# Tavily caps ``max_results`` at 20; asking for more is a 400.
TAVILY_MAX_RESULTS = 20


class TavilySearch:
    """``SearchProvider`` backed by the Tavily search API."""

    name = "tavily"

    def __init__(
        self,
        api_key: str,
        *,
        base_url: str | None = None,
        depth: str = "quick",
        max_results: int = 8,
        days: int | None = None,
        include_domains: Sequence[str] = (),
        exclude_domains: Sequence[str] = (),
        timeout: float = 30.0,
        today: Callable[[], date] = date.today,
    ) -> None:
        # The client happily runs without a key (it falls back to Tavily's keyless mode, which is
        # rate-limited per IP), so a missing key would only show up as odd 429s much later.
        if not api_key or not api_key.strip():
            raise ConfigurationError("TAVILY_API_KEY is not set; live search needs it")
        if depth not in SEARCH_DEPTHS:
            raise ConfigurationError(
                f"unknown search depth {depth!r}; expected one of {sorted(SEARCH_DEPTHS)}"
            )
        if days is not None and days < 1:
            raise ConfigurationError(f"recency window must be at least one day, got {days}")
        self.depth = depth
        self.default_max_results = max_results
        self.days = days
        self.include_domains = list(include_domains)
        self.exclude_domains = list(exclude_domains)
        self.timeout = timeout
        self._today = today
        self._client = TavilyClient(api_key=api_key.strip(), api_base_url=(base_url or None))

    def search(self, query: str, *, max_results: int | None = None) -> list[Hit]:
        wanted = max_results if max_results is not None else self.default_max_results
        wanted = max(1, min(wanted, TAVILY_MAX_RESULTS))
        try:
            response = self._client.search(query, timeout=self.timeout, **self._search_options(wanted))
        except Exception as error:  # every client failure is mapped; nothing else escapes
            raise provider_error_for(error, query=query) from error
        return [hit for hit in (hit_from_result(item) for item in response.get("results") or []) if hit]

    def _search_options(self, max_results: int) -> dict[str, Any]:
        options: dict[str, Any] = {
            "search_depth": SEARCH_DEPTHS[self.depth],
            "max_results": max_results,
            "topic": "general",
        }
        if self.days is not None:
            # ``days`` only applies to topic="news" and ``time_range`` rounds to day/week/month/
            # year; ``start_date`` is the one filter that keeps an exact window for general search.
            options["start_date"] = (self._today() - timedelta(days=self.days)).isoformat()
        if self.include_domains:
            options["include_domains"] = self.include_domains
        if self.exclude_domains:
            options["exclude_domains"] = self.exclude_domains
        return options

    def close(self) -> None:
        self._client.close()


def hit_from_result(result: Any) -> Hit | None:
    """One entry of Tavily's ``results`` → ``Hit``; entries without a URL are useless and skipped."""
    if not isinstance(result, dict) or not result.get("url"):
        return None
    try:
        score = float(result.get("score") or 0.0)
    except (TypeError, ValueError):
        score = 0.0
    return Hit(
        url=str(result["url"]),
        title=str(result.get("title") or ""),
        snippet=str(result.get("content") or ""),
        score=score,
        published=parse_published_date(result.get("published_date")),
        provider=TavilySearch.name,
    )


def parse_published_date(value: Any) -> date | None:
    """Tavily sends ISO dates for some sources and RFC 2822 ("Tue, 04 Mar 2025 10:00:00 GMT") for news."""
    if not value or not isinstance(value, str):
        return None
    text = value.strip()
    try:
        return datetime.fromisoformat(text.replace("Z", "+00:00")).date()
    except ValueError:
        pass
    try:
        return parsedate_to_datetime(text).date()
    except (TypeError, ValueError, IndexError):
        return None


def provider_error_for(error: Exception, *, query: str) -> ProviderError:
    """Map ``tavily-python``'s exceptions (see ``tavily/errors.py``) onto one retryable-or-not error."""
    where = f"Tavily search for {query!r}"
    # Keyless-limit is a subclass of UsageLimitExceededError, so this branch covers both.
    if isinstance(error, tavily_errors.UsageLimitExceededError):
        return ProviderError(f"{where} hit the usage limit: {error}", retryable=True, code="rate_limited")
    if isinstance(error, tavily_errors.InvalidAPIKeyError):
        return ProviderError(f"{where} was refused: invalid API key. {error}".strip(), code="refused")
    if isinstance(error, tavily_errors.ForbiddenError):
        # The client folds 403 and Tavily's 432/433 (plan or pay-as-you-go limit spent) into one
        # class; a spent plan does not come back within a retry backoff, so neither is retryable.
        if "limit" in str(error).lower():
            return ProviderError(f"{where} exceeded the plan's limit: {error}", code="quota_exceeded")
        return ProviderError(f"{where} was refused (forbidden): {error}", code="refused")
    if isinstance(error, tavily_errors.BadRequestError):
        return ProviderError(f"{where} was refused as a bad request: {error}", code="refused")
    if isinstance(error, tavily_errors.TimeoutError | requests.Timeout):
        return ProviderError(f"{where} timed out: {error}", retryable=True, code="timeout")
    if isinstance(error, requests.ConnectionError):
        return ProviderError(f"{where} could not connect: {error}", retryable=True, code="unavailable")
    if isinstance(error, requests.HTTPError):
        # Anything the client does not name itself arrives as ``raise_for_status()``'s HTTPError.
        status = error.response.status_code if error.response is not None else 0
        if status == 429:
            return ProviderError(f"{where} hit the usage limit (429)", retryable=True, code="rate_limited")
        if status >= 500 or status in (408, 0):
            return ProviderError(f"{where} failed with HTTP {status}", retryable=True, code="unavailable")
        return ProviderError(f"{where} was refused with HTTP {status}", code="refused")
    if isinstance(error, ValueError):  # a 200 whose body is not JSON: a broken gateway, try later
        return ProviderError(
            f"{where} returned an unreadable answer: {error}", retryable=True, code="unavailable"
        )
    return ProviderError(f"{where} failed: {type(error).__name__}: {error}", code="provider_error")
