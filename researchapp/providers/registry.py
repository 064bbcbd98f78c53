"""Name → transport, chosen by settings. The only place that reads provider configuration."""

from __future__ import annotations

import functools
from importlib.metadata import version

from django.conf import settings
from django.core.cache import cache

from researchapp.core.messages import english, gettext_noop, message
from researchapp.providers.academic import AcademicSearch, RateLimitedAcademic
from researchapp.providers.academic.arxiv import ArxivSearch
from researchapp.providers.academic.openalex import OpenAlexSearch
from researchapp.providers.academic.semantic_scholar import SemanticScholarSearch
from researchapp.providers.base import ChatClient, ConfigurationError, Fetcher, SearchProvider
from researchapp.providers.cache import CachedFetcher, CachedSearch, ProviderCache
from researchapp.providers.chat.openai import OpenAIChat
from researchapp.providers.fetch.client import FetchConfig, HttpFetcher
from researchapp.providers.ratelimit import RateLimitedSearch, RateLimiter
from researchapp.providers.search.tavily import TavilySearch

SEARCH_PROVIDERS = ("local", "tavily")
ENGINES = ("extractive", "openai")
ACADEMIC_PROVIDERS = ("openalex", "arxiv", "semantic_scholar")


def conf(name: str):
    return settings.RESEARCH[name]


def web_search(name: str, *, depth: str, recency_days: int | None) -> SearchProvider:
    """A web search provider, rate-limited across workers and cached.

    The local corpus is not a transport: the runner builds it from the database.
    """
    if name != "tavily":
        raise ConfigurationError(
            f"unknown web search provider {name!r}; choose one of {', '.join(SEARCH_PROVIDERS)}"
        )
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
    # Results depend on the endpoint asked as much as on the query: a changed TAVILY_API_BASE_URL
    # must not be answered with results cached from the old one.
    endpoint = conf("TAVILY_API_BASE_URL") or "https://api.tavily.com"
    return CachedSearch(search, provider_cache(), variant=f":{endpoint}:{depth}:{recency_days or ''}")


def academic_search(name: str) -> AcademicSearch:
    """One academic API by name, at the base URL its setting names, within its rate limit."""
    timeout = conf("ACADEMIC_TIMEOUT")
    search: AcademicSearch
    if name == "openalex":
        search = OpenAlexSearch(conf("OPENALEX_URL"), timeout=timeout, mailto=conf("OPENALEX_MAILTO"))
    elif name == "arxiv":
        search = ArxivSearch(conf("ARXIV_URL"), timeout=timeout)
    elif name == "semantic_scholar":
        search = SemanticScholarSearch(
            conf("SEMANTIC_SCHOLAR_URL"), timeout=timeout, api_key=conf("SEMANTIC_SCHOLAR_API_KEY")
        )
    else:
        raise ConfigurationError(
            f"unknown academic search provider {name!r}; choose one of {', '.join(ACADEMIC_PROVIDERS)}"
        )
    rate = conf(f"{name.upper()}_RATE_PER_SECOND")
    return RateLimitedAcademic(search, rate_limiter(), rate_per_second=rate, timeout=timeout)


def academic_providers() -> list[AcademicSearch]:
    """The academic APIs ACADEMIC_PROVIDERS names, in its order; none in the offline profile."""
    return [academic_search(name) for name in conf("ACADEMIC_PROVIDERS")]


def chat_client() -> ChatClient:
    return OpenAIChat(
        api_key=conf("OPENAI_API_KEY"),
        base_url=conf("OPENAI_BASE_URL") or None,
        timeout=conf("OPENAI_TIMEOUT"),
    )


def chat_model(stage: str) -> str:
    """The model a stage (one of ``core.enums.ModelStage``) asks: its own setting, else the default."""
    return conf(f"OPENAI_MODEL_{stage.upper()}") or conf("OPENAI_MODEL")


def provider_cache() -> ProviderCache:
    return ProviderCache(cache)


@functools.cache
def rate_limiter() -> RateLimiter:
    return RateLimiter(conf("REDIS_URL") or None)


@functools.cache
def shared_http_fetcher() -> Fetcher:
    """One thread-safe fetcher (and its connection pool) per worker process."""
    return HttpFetcher(
        FetchConfig(
            connect_timeout=conf("FETCH_CONNECT_TIMEOUT"),
            read_timeout=conf("FETCH_READ_TIMEOUT"),
            max_bytes=conf("FETCH_MAX_BYTES"),
            max_redirects=conf("FETCH_MAX_REDIRECTS"),
            allowed_hosts=conf("FETCH_ALLOWED_HOSTS"),
        )
    )


def inline_fetcher(total_timeout: float) -> Fetcher:
    """A fetcher someone waits for (an analyst opening a page by its address): the site's limits and
    allowed hosts, at most ``total_timeout`` seconds in all, no retry, no cache (the page is stored)."""
    return HttpFetcher(
        FetchConfig(
            connect_timeout=min(conf("FETCH_CONNECT_TIMEOUT"), total_timeout),
            read_timeout=min(conf("FETCH_READ_TIMEOUT"), total_timeout),
            total_timeout=total_timeout,
            max_bytes=conf("FETCH_MAX_BYTES"),
            max_redirects=conf("FETCH_MAX_REDIRECTS"),
            allowed_hosts=conf("FETCH_ALLOWED_HOSTS"),
            retries=0,
        )
    )


def http_fetcher() -> Fetcher:
    """The shared fetcher behind the page cache: a page fetched once is not fetched again.

    A stored page is what the extractor made of it within the size limit: both are in its key.
    """
    variant = f"trafilatura {version('trafilatura')}:max {conf('FETCH_MAX_BYTES')}"
    return CachedFetcher(shared_http_fetcher(), provider_cache(), variant=variant)


def check_configuration(*, search: str, engine: str) -> None:
    """Fail at the start of a task, with a clear reason, if a live provider lacks its key."""
    if search not in SEARCH_PROVIDERS:
        raise ConfigurationError(f"unknown search provider {search!r}")
    if engine not in ENGINES:
        raise ConfigurationError(f"unknown engine {engine!r}")
    if search == "tavily" and not conf("TAVILY_API_KEY"):
        raise _missing_key("RESEARCH_SEARCH_PROVIDER=tavily", "TAVILY_API_KEY")
    if engine == "openai" and not conf("OPENAI_API_KEY"):
        raise _missing_key("RESEARCH_ENGINE=openai", "OPENAI_API_KEY")


def _missing_key(choice: str, key: str) -> ConfigurationError:
    said = message(gettext_noop("%(choice)s but %(key)s is not set"), choice=choice, key=key)
    return ConfigurationError(english(said), said=said)
