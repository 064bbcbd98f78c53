"""One HTTP GET for the academic APIs, with every failure mapped onto ``ProviderError``."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import httpx

from researchapp.providers.base import ProviderError

USER_AGENT = "research-desk/0.1 (+self-hosted)"


def make_client(base_url: str, *, timeout: float, headers: Mapping[str, str] | None = None) -> httpx.Client:
    return httpx.Client(
        base_url=base_url.rstrip("/"),
        timeout=httpx.Timeout(timeout, connect=min(timeout, 5.0)),
        headers={"User-Agent": USER_AGENT, **(headers or {})},
        follow_redirects=False,
    )


def get(client: httpx.Client, path: str, params: Mapping[str, Any], *, where: str) -> httpx.Response:
    """GET ``path``; a 429, a 5xx, a timeout or a refused connection is retryable, any other error is not."""
    try:
        response = client.get(path, params=params)
    except httpx.TimeoutException as error:
        raise ProviderError(f"{where} timed out: {error}", retryable=True, code="timeout") from error
    except httpx.HTTPError as error:
        raise ProviderError(
            f"{where} could not connect: {error}", retryable=True, code="unavailable"
        ) from error
    status = response.status_code
    if status == 429:
        wait = response.headers.get("retry-after", "")
        hint = f" (retry after {wait} s)" if wait else ""
        raise ProviderError(
            f"{where} hit the rate limit (HTTP 429){hint}", retryable=True, code="rate_limited"
        )
    if status >= 500:
        raise ProviderError(f"{where} failed with HTTP {status}", retryable=True, code="unavailable")
    if status != 200:
        raise ProviderError(f"{where} was refused with HTTP {status}: {_reason(response)}", code="refused")
    return response


def json_object(value: Any) -> dict[str, Any]:
    """A field of an answer that should hold a JSON object: that object, or an empty one if it does not."""
    return value if isinstance(value, dict) else {}


def json_body(response: httpx.Response, *, where: str) -> dict[str, Any]:
    try:
        body = response.json()
    except ValueError as error:
        raise ProviderError(
            f"{where} returned an unreadable answer (not JSON): {error}", retryable=True, code="malformed"
        ) from error
    if not isinstance(body, dict):
        raise ProviderError(
            f"{where} returned an unreadable answer (a JSON {type(body).__name__}, not an object)",
            retryable=True,
            code="malformed",
        )
    return body


def malformed(where: str, what: str) -> ProviderError:
    return ProviderError(f"{where} returned an unreadable answer: {what}", retryable=True, code="malformed")


def _reason(response: httpx.Response) -> str:
    text = response.text.strip().replace("\n", " ")
    return text[:200] or response.reason_phrase
