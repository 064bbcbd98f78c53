"""The page and search-result cache, over a dict-backed fake and over Django's own LocMemCache."""

from __future__ import annotations

import json
from datetime import date

import pytest

from researchapp.providers import cache as cache_module
from researchapp.providers import registry
from researchapp.providers.base import Document, Hit, ProviderError
from researchapp.providers.cache import CACHE_SCHEMA, CachedFetcher, CachedSearch, ProviderCache
from tests.stubs.tavily_api import StubTavily, tavily_result


class DictCache:
    """Django's cache interface, the two methods we use, kept in a dict."""

    def __init__(self) -> None:
        self.values: dict[str, object] = {}
        self.timeouts: dict[str, int | None] = {}

    def get(self, key):
        return self.values.get(key)

    def set(self, key, value, timeout):
        self.values[key] = value
        self.timeouts[key] = timeout


DOCUMENT = Document(
    url="https://News.example/lagoon/",
    title="Marrowby tidal lagoon pilot passes its first winter",
    text="The lagoon has an installed capacity of 12 megawatts.",
    published=date(2022, 3, 14),
    http_status=200,
    content_type="text/html",
    extraction="trafilatura",
    final_url="https://news.example/lagoon-winter",
)
HITS = [
    Hit(
        url="https://news.example/a",
        title="A",
        snippet="first",
        score=0.9,
        published=date(2024, 2, 20),
        provider="tavily",
    ),
    Hit(url="https://news.example/b", title="B", score=0.4, provider="tavily"),
]


@pytest.fixture
def backend():
    return DictCache()


@pytest.fixture
def cache(backend):
    return ProviderCache(backend)


def test_it_gives_back_the_document_it_stored(cache):
    cache.set_document(DOCUMENT)

    assert cache.get_document(DOCUMENT.url) == DOCUMENT


def test_it_finds_a_document_under_any_spelling_of_its_url(cache):
    cache.set_document(DOCUMENT)

    assert cache.get_document("https://news.example/lagoon#top") == DOCUMENT
    assert cache.get_document("https://news.example/other") is None


def test_it_stores_json_able_values_with_iso_dates(cache, backend):
    cache.set_document(DOCUMENT)
    cache.set_hits("tavily", "lagoon", 5, HITS)

    for value in backend.values.values():
        json.dumps(value)  # raises for a date or a dataclass
    stored_document = next(v for v in backend.values.values() if isinstance(v, dict))
    assert stored_document["published"] == "2022-03-14"


def test_it_puts_the_schema_version_in_every_key(cache, backend):
    cache.set_document(DOCUMENT)
    cache.set_hits("tavily", "lagoon", 5, HITS)

    assert all(f":v{CACHE_SCHEMA}:" in key for key in backend.values)


def test_it_misses_entries_written_under_another_schema(cache, monkeypatch):
    cache.set_document(DOCUMENT)

    monkeypatch.setattr(cache_module, "CACHE_SCHEMA", CACHE_SCHEMA + 1)

    assert cache.get_document(DOCUMENT.url) is None


def test_it_gives_back_search_hits_keyed_by_provider_query_and_size(cache):
    cache.set_hits("tavily", "Marrowby  Lagoon", 5, HITS)

    assert cache.get_hits("tavily", "marrowby lagoon", 5) == HITS
    assert cache.get_hits("tavily", "marrowby lagoon", 10) is None
    assert cache.get_hits("local", "marrowby lagoon", 5) is None


def test_it_tells_an_empty_result_from_a_miss(cache):
    cache.set_hits("tavily", "nothing", 5, [])

    assert cache.get_hits("tavily", "nothing", 5) == []
    assert cache.get_hits("tavily", "never asked", 5) is None


def test_it_treats_an_unreadable_entry_as_a_miss(cache, backend):
    backend.set(cache.document_key(DOCUMENT.url), {"url": "x", "unexpected": 1}, None)
    backend.set(cache.hits_key("tavily", "q", 5), [{"url": "x", "published": "not a date"}], None)

    assert cache.get_document(DOCUMENT.url) is None
    assert cache.get_hits("tavily", "q", 5) is None


def test_it_gives_pages_a_longer_life_than_search_results(cache, backend):
    cache.set_document(DOCUMENT)
    cache.set_hits("tavily", "lagoon", 5, HITS)

    assert (
        backend.timeouts[cache.document_key(DOCUMENT.url)]
        > backend.timeouts[cache.hits_key("tavily", "lagoon", 5)]
    )


def test_it_works_over_djangos_own_cache_backend():
    from django.core.cache.backends.locmem import LocMemCache

    cache = ProviderCache(LocMemCache("provider-cache-test", {}))

    cache.set_document(DOCUMENT)
    cache.set_hits("tavily", "lagoon " * 60, 5, HITS)  # a query far longer than memcached's key limit

    assert cache.get_document(DOCUMENT.url) == DOCUMENT
    assert cache.get_hits("tavily", "lagoon " * 60, 5) == HITS


# --- the caching wrappers -------------------------------------------------------------------


class CountingFetcher:
    def __init__(self, outcome: Document | ProviderError) -> None:
        self.outcome = outcome
        self.calls = 0

    def fetch(self, url: str) -> Document:
        self.calls += 1
        if isinstance(self.outcome, ProviderError):
            raise self.outcome
        return self.outcome


def test_it_fetches_a_page_once_and_then_answers_from_the_cache(cache):
    inner = CountingFetcher(DOCUMENT)
    fetcher = CachedFetcher(inner, cache)

    assert fetcher.fetch(DOCUMENT.url) == DOCUMENT
    assert fetcher.fetch(DOCUMENT.url) == DOCUMENT
    assert inner.calls == 1


def test_it_does_not_cache_a_failed_fetch(cache):
    inner = CountingFetcher(ProviderError("timed out", retryable=True, code="timeout"))
    fetcher = CachedFetcher(inner, cache)

    for _ in range(2):
        with pytest.raises(ProviderError):
            fetcher.fetch(DOCUMENT.url)
    assert inner.calls == 2


def test_it_caches_search_results_but_not_empty_ones(cache):
    class CountingSearch:
        name = "tavily"

        def __init__(self) -> None:
            self.queries: list[str] = []

        def search(self, query: str, *, max_results: int) -> list[Hit]:
            self.queries.append(query)
            return HITS if query == "lagoon" else []

    inner = CountingSearch()
    search = CachedSearch(inner, cache)

    for _ in range(2):
        assert search.search("lagoon", max_results=5) == HITS
        assert search.search("nothing", max_results=5) == []
    assert inner.queries == ["lagoon", "nothing", "nothing"]
    assert search.name == "tavily"


def test_it_never_answers_a_search_with_results_cached_from_another_endpoint(settings):
    # given results cached from one Tavily endpoint
    old = StubTavily({"lagoon": [tavily_result("https://old.example.org/a", "Old", "old host")]})
    new = StubTavily({"lagoon": [tavily_result("https://new.example.org/a", "New", "new host")]})
    with old, new:
        settings.RESEARCH = {
            **settings.RESEARCH,
            "TAVILY_API_KEY": "tvly-k",
            "TAVILY_API_BASE_URL": old.base_url,
        }
        first = registry.web_search("tavily", depth="quick", recency_days=None).search(
            "lagoon", max_results=5
        )

        # when the endpoint changes and the same query is asked
        settings.RESEARCH = {**settings.RESEARCH, "TAVILY_API_BASE_URL": new.base_url}
        second = registry.web_search("tavily", depth="quick", recency_days=None).search(
            "lagoon", max_results=5
        )

    # then the new endpoint answers, not the cache of the old one
    assert [hit.url for hit in first] == ["https://old.example.org/a"]
    assert [hit.url for hit in second] == ["https://new.example.org/a"]
    assert len(new.searches) == 1


def test_it_keys_a_cached_page_by_what_it_depends_on(cache):
    fetcher = CachedFetcher(CountingFetcher(DOCUMENT), cache, variant="max 100")
    fetcher.fetch(DOCUMENT.url)
    other = CountingFetcher(DOCUMENT)
    CachedFetcher(other, cache, variant="max 200").fetch(DOCUMENT.url)
    assert other.calls == 1  # a changed size limit (or extractor version) is a miss
    assert cache.document_key(DOCUMENT.url, "max 100") != cache.document_key(DOCUMENT.url, "max 200")
