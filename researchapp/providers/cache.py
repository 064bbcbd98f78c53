"""A cache of opened pages and search results, so a re-run or a second task does not pay twice.

It stores JSON-able dicts, never pickled dataclasses: a stale entry written by an older version
of the code must not fail to load, and ``CACHE_SCHEMA`` in every key retires all old entries at
once when the shape of what we store changes.

The backend is anything with Django's ``cache.get(key)`` / ``cache.set(key, value, timeout)``;
the runner passes ``django.core.cache.cache``. Keys are hashed, so any URL or query is a valid
key for every Django backend (memcached refuses spaces and keys over 250 characters).
"""

from __future__ import annotations

import hashlib
import json
import logging
from collections.abc import Sequence
from dataclasses import asdict
from datetime import date
from typing import Any, Protocol

from researchapp.core.urls import normalize_url
from researchapp.providers.base import Document, Fetcher, Hit, SearchProvider

logger = logging.getLogger(__name__)

CACHE_SCHEMA = 1
DOCUMENT_TIMEOUT = 7 * 24 * 3600  # pages change slowly, and a snapshot is what we quote anyway
HITS_TIMEOUT = 24 * 3600  # search results age faster than the pages they point at


class CacheBackend(Protocol):
    def get(self, key: str) -> Any: ...

    def set(self, key: str, value: Any, timeout: int | None) -> None: ...


def _digest(*parts: object) -> str:
    return hashlib.sha256(json.dumps(parts, ensure_ascii=False).encode("utf-8")).hexdigest()


def _dump(value: Document | Hit) -> dict[str, Any]:
    data = asdict(value)
    if data.get("published") is not None:
        data["published"] = data["published"].isoformat()
    return data


def _load_date(value: Any) -> date | None:
    return date.fromisoformat(value) if value else None


def _load_document(data: dict[str, Any]) -> Document:
    return Document(**{**data, "published": _load_date(data.get("published"))})


def _load_hit(data: dict[str, Any]) -> Hit:
    return Hit(**{**data, "published": _load_date(data.get("published"))})


class ProviderCache:
    def __init__(
        self,
        backend: CacheBackend,
        *,
        prefix: str = "research-desk",
        document_timeout: int = DOCUMENT_TIMEOUT,
        hits_timeout: int = HITS_TIMEOUT,
    ) -> None:
        self.backend = backend
        self.prefix = prefix
        self.document_timeout = document_timeout
        self.hits_timeout = hits_timeout

    def document_key(self, url: str, variant: str = "") -> str:
        """``variant``: what else the stored page depends on (extractor version, size limit)."""
        return f"{self.prefix}:v{CACHE_SCHEMA}:doc:{_digest(normalize_url(url), variant)}"

    def hits_key(self, provider: str, query: str, max_results: int) -> str:
        # Queries differing only in spacing or case find the same pages.
        normalised_query = " ".join(query.lower().split())
        return f"{self.prefix}:v{CACHE_SCHEMA}:hits:{_digest(provider, normalised_query, max_results)}"

    def get_document(self, url: str, variant: str = "") -> Document | None:
        data = self.backend.get(self.document_key(url, variant))
        if not isinstance(data, dict):
            return None
        try:
            return _load_document(data)
        except (TypeError, ValueError):  # an entry we cannot read is a miss, never an error
            logger.warning("ignoring an unreadable cached page for %s", url)
            return None

    def set_document(self, document: Document, variant: str = "") -> None:
        self.backend.set(self.document_key(document.url, variant), _dump(document), self.document_timeout)

    def get_hits(self, provider: str, query: str, max_results: int) -> list[Hit] | None:
        """The cached results, ``[]`` for a search known to find nothing, None when not cached."""
        data = self.backend.get(self.hits_key(provider, query, max_results))
        if not isinstance(data, list):
            return None
        try:
            return [_load_hit(item) for item in data]
        except (TypeError, ValueError):
            logger.warning("ignoring unreadable cached hits for %r", query)
            return None

    def set_hits(self, provider: str, query: str, max_results: int, hits: Sequence[Hit]) -> None:
        self.backend.set(
            self.hits_key(provider, query, max_results), [_dump(hit) for hit in hits], self.hits_timeout
        )


class CachedFetcher:
    """A ``Fetcher`` that answers from the cache first and stores what it fetches.

    Failures are not cached: a page that timed out may well open next time. ``variant`` names what
    else a stored page depends on besides its URL (the extractor's version, the size limit), so a
    change of either is a miss rather than an old answer.
    """

    def __init__(self, fetcher: Fetcher, cache: ProviderCache, *, variant: str = "") -> None:
        self.fetcher = fetcher
        self.cache = cache
        self.variant = variant

    def fetch(self, url: str) -> Document:
        cached = self.cache.get_document(url, self.variant)
        if cached is not None:
            return cached
        document = self.fetcher.fetch(url)
        self.cache.set_document(document, self.variant)
        return document


class CachedSearch:
    """A ``SearchProvider`` that answers from the cache first; keeps the wrapped provider's name."""

    def __init__(self, search: SearchProvider, cache: ProviderCache, *, variant: str = "") -> None:
        self.search_provider = search
        self.cache = cache
        self.name = search.name
        # What changes the answer (the endpoint asked, depth, recency window) is part of the key.
        self.key = f"{search.name}{variant}"

    def search(self, query: str, *, max_results: int) -> list[Hit]:
        cached = self.cache.get_hits(self.key, query, max_results)
        if cached is not None:
            return cached
        hits = self.search_provider.search(query, max_results=max_results)
        if hits:  # an empty answer may be the provider's hiccup: ask again next time
            self.cache.set_hits(self.key, query, max_results, hits)
        return hits
