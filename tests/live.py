"""Live mode against local stubs: Tavily-shaped search, a small web, an OpenAI-shaped model.

The real ``tavily-python``, ``openai`` and ``httpx`` clients run; only the servers are ours.
"""

from __future__ import annotations

from collections.abc import Iterable

from researchapp.providers import registry
from tests.stubs.tavily_api import tavily_result

# Pages that must fail, each for its own reason, and show up as warnings.
FAILING_PAGES = {
    "/error-500": "server_error",
    "/image.png": "unsupported_content",
    "/binary-as-html": "unsupported_content",
    "/to-other-loopback": "blocked_address",
    "/huge": "too_large",
}
QUESTION = "What is the installed capacity of the Marrowby tidal lagoon and how much power does it produce?"


def web_results(web, *, failing: Iterable[str] = (), delay: float = 0.0):
    """A Tavily result source that answers from the stub web's articles, plus the failing pages."""
    suffix = f"?delay={delay}" if delay else ""

    def results(body: dict) -> list[dict]:
        found = [
            tavily_result(hit.url + suffix, hit.title, hit.snippet, score=hit.score)
            for hit in web.search(body["query"], 5)
        ]
        return found + [tavily_result(web.url(path), path, "", score=0.01) for path in failing]

    return results


def live_settings(settings, *, web, tavily, openai=None, **overrides) -> None:
    """Point the providers at the stubs, as the README's live-mode section tells a user to."""
    settings.RESEARCH = {
        **settings.RESEARCH,
        "SEARCH_PROVIDER": "tavily",
        "ENGINE": "openai" if openai else "extractive",
        "TAVILY_API_KEY": "tvly-test-key",
        "TAVILY_API_BASE_URL": tavily.base_url,
        "OPENAI_API_KEY": "sk-test" if openai else "",
        "OPENAI_BASE_URL": openai.base_url if openai else "",
        "FETCH_ALLOWED_HOSTS": web.allowed_hosts,
        "FETCH_READ_TIMEOUT": 3.0,
        "RESULTS_PER_QUERY": 10,
        "MAX_SOURCES_PER_SUBQUESTION": 12,
        **overrides,
    }
    registry.shared_http_fetcher.cache_clear()
    registry.rate_limiter.cache_clear()
