"""Name → provider, chosen by settings. The only place that reads provider configuration."""

from __future__ import annotations

import functools

from django.conf import settings

from researchapp.providers.base import ConfigurationError, Engine, Fetcher, SearchProvider
from researchapp.providers.cache import CachedFetcher, CachedSearch, ProviderCache

SEARCH_PROVIDERS = ("local", "tavily")
ENGINES = ("extractive", "openai")


def conf(name: str):
    return settings.RESEARCH[name]


def engine_for(name: str) -> Engine:
    if name == "extractive":
        from researchapp.providers.llm.extractive import ExtractiveEngine

        return ExtractiveEngine()
    if name == "openai":
        from researchapp.providers.llm.openai import OpenAIEngine

        stage_models = {
            stage: conf(f"OPENAI_MODEL_{stage.upper()}")
            for stage in ("plan", "analyse", "write")
            if conf(f"OPENAI_MODEL_{stage.upper()}")
        }
        return OpenAIEngine(
            api_key=conf("OPENAI_API_KEY"),
            base_url=conf("OPENAI_BASE_URL") or None,
            model=conf("OPENAI_MODEL"),
            stage_models=stage_models,
            timeout=conf("OPENAI_TIMEOUT"),
        )
    raise ConfigurationError(f"unknown engine {name!r}; choose one of {', '.join(ENGINES)}")


def search_for(name: str, *, depth: str, recency_days: int | None):
    """Return ``(search, fetcher)`` for a web search provider.

    The local corpus is built by the runner from the database (it answers both roles itself).
    """
    if name == "tavily":
        from researchapp.providers.ratelimit import RateLimitedSearch
        from researchapp.providers.search.tavily import TavilySearch

        search: SearchProvider = TavilySearch(
            api_key=conf("TAVILY_API_KEY"),
            base_url=conf("TAVILY_API_BASE_URL") or None,
            depth=depth,
            days=recency_days,
        )
        search = RateLimitedSearch(
            search,
            rate_limiter(),
            rate_per_second=conf("TAVILY_RATE_PER_SECOND"),
            burst=conf("TAVILY_RATE_BURST"),
        )
        return CachedSearch(
            search, provider_cache(), variant=f":{depth}:{recency_days or ''}"
        ), http_fetcher()
    raise ConfigurationError(f"unknown search provider {name!r}; choose one of {', '.join(SEARCH_PROVIDERS)}")


def provider_cache() -> ProviderCache:
    from django.core.cache import cache

    return ProviderCache(cache)


@functools.cache
def rate_limiter():
    from researchapp.providers.ratelimit import RateLimiter

    return RateLimiter(conf("REDIS_URL") or None)


@functools.cache
def shared_http_fetcher() -> Fetcher:
    """One thread-safe fetcher (and its connection pool) per worker process."""
    from researchapp.providers.fetch.http import FetchConfig, HttpFetcher

    return HttpFetcher(
        FetchConfig(
            connect_timeout=conf("FETCH_CONNECT_TIMEOUT"),
            read_timeout=conf("FETCH_READ_TIMEOUT"),
            max_bytes=conf("FETCH_MAX_BYTES"),
            max_redirects=conf("FETCH_MAX_REDIRECTS"),
            allowed_hosts=conf("FETCH_ALLOWED_HOSTS"),
        )
    )


def http_fetcher() -> Fetcher:
    """The shared fetcher behind the page cache: a page fetched once is not fetched again."""
    return CachedFetcher(shared_http_fetcher(), provider_cache())


def check_configuration(*, search: str, engine: str) -> None:
    """Fail at the start of a task, with a clear reason, if a live provider lacks its key."""
    if search not in SEARCH_PROVIDERS:
        raise ConfigurationError(f"unknown search provider {search!r}")
    if engine not in ENGINES:
        raise ConfigurationError(f"unknown engine {engine!r}")
    if search == "tavily" and not conf("TAVILY_API_KEY"):
        raise ConfigurationError("RESEARCH_SEARCH_PROVIDER=tavily but TAVILY_API_KEY is not set")
    if engine == "openai" and not conf("OPENAI_API_KEY"):
        raise ConfigurationError("RESEARCH_ENGINE=openai but OPENAI_API_KEY is not set")
