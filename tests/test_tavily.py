"""TavilySearch with the real ``tavily-python`` client against a stub Tavily API on 127.0.0.1."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import date

import pytest

from researchapp.providers.base import ConfigurationError, Hit, ProviderError
from researchapp.providers.search.tavily import TavilySearch
from tests.stubs.tavily_api import Failure, StubTavily, tavily_result

KEY = "tvly-test-key"


@pytest.fixture
def tavily_api() -> Iterator[StubTavily]:
    with StubTavily(api_key=KEY) as stub:
        yield stub


def make_search(stub: StubTavily, **options: object) -> TavilySearch:
    return TavilySearch(KEY, base_url=stub.base_url, **options)  # type: ignore[arg-type]


def test_it_maps_results_to_hits(tavily_api: StubTavily) -> None:
    # given two results, one with an RFC 2822 date as Tavily sends for news and one without
    tavily_api.results = {
        "heat pumps": [
            tavily_result("https://a.example/cop", "COP explained", "A COP of 3.2 means...", score=0.91,
                          published_date="Tue, 04 Mar 2025 10:00:00 GMT"),
            tavily_result("https://b.example/cost", "Costs", "Installation costs vary.", score=0.42),
        ]
    }  # fmt: skip
    # when
    hits = make_search(tavily_api).search("heat pumps", max_results=5)
    # then
    assert hits == [
        Hit(url="https://a.example/cop", title="COP explained", snippet="A COP of 3.2 means...", score=0.91,
            published=date(2025, 3, 4), provider="tavily"),
        Hit(url="https://b.example/cost", title="Costs", snippet="Installation costs vary.", score=0.42,
            published=None, provider="tavily"),
    ]  # fmt: skip


def test_it_parses_iso_published_dates(tavily_api: StubTavily) -> None:
    # given
    tavily_api.results = {"q": [tavily_result("https://a.example/", "A", "x", published_date="2024-11-05")]}
    # when
    [hit] = make_search(tavily_api).search("q", max_results=1)
    # then
    assert hit.published == date(2024, 11, 5)


def test_it_sends_key_depth_max_results_window_and_domains(tavily_api: StubTavily) -> None:
    # given a deep search limited to the last 30 days and to some domains
    search = make_search(
        tavily_api,
        depth="deep",
        days=30,
        include_domains=["gov.example", "who.example"],
        exclude_domains=["spam.example"],
        today=lambda: date(2025, 6, 30),
    )
    # when
    search.search("vaccine uptake", max_results=7)
    # then
    [request] = tavily_api.requests
    assert request.headers["authorization"] == f"Bearer {KEY}"
    body = request.json
    assert body["query"] == "vaccine uptake"
    assert body["search_depth"] == "advanced"
    assert body["max_results"] == 7
    assert body["start_date"] == "2025-05-31"
    assert body["include_domains"] == ["gov.example", "who.example"]
    assert body["exclude_domains"] == ["spam.example"]


def test_it_sends_a_basic_search_without_filters_for_a_quick_task(tavily_api: StubTavily) -> None:
    # given
    search = make_search(tavily_api, depth="quick", max_results=4)
    # when the caller leaves the count to the provider's default
    search.search("anything")
    # then
    body = tavily_api.searches[0]
    assert body["search_depth"] == "basic"
    assert body["max_results"] == 4
    assert not {"start_date", "days", "include_domains", "exclude_domains"} & set(body)


def test_it_only_returns_what_the_domain_filter_lets_through(tavily_api: StubTavily) -> None:
    # given results from an excluded domain
    tavily_api.results = {
        "q": [
            tavily_result("https://spam.example/x", "Spam", "s"),
            tavily_result("https://ok.example/y", "Ok", "o"),
        ]
    }
    # when
    hits = make_search(tavily_api, exclude_domains=["spam.example"]).search("q", max_results=5)
    # then
    assert [hit.url for hit in hits] == ["https://ok.example/y"]


@pytest.mark.parametrize("key", ["", "   "])
def test_it_refuses_to_start_without_a_key(key: str) -> None:
    # given / when / then
    with pytest.raises(ConfigurationError, match="TAVILY_API_KEY is not set"):
        TavilySearch(key, base_url="http://127.0.0.1:9")


def test_it_rejects_an_unknown_depth() -> None:
    with pytest.raises(ConfigurationError, match="depth"):
        TavilySearch(KEY, base_url="http://127.0.0.1:9", depth="thorough")


def test_it_reports_a_rate_limit_as_retryable(tavily_api: StubTavily) -> None:
    # given
    tavily_api.fail_next(Failure.http(429, "Your request has been blocked due to excessive requests."))
    # when
    with pytest.raises(ProviderError) as raised:
        make_search(tavily_api).search("q", max_results=3)
    # then
    assert raised.value.code == "rate_limited"
    assert raised.value.retryable is True
    assert "excessive requests" in raised.value.message


def test_it_reports_a_spent_plan_as_permanent(tavily_api: StubTavily) -> None:
    # given Tavily's 432: the plan's monthly credits are used up
    tavily_api.fail_next(Failure.http(432, "This request exceeds your plan's set usage limit."))
    # when
    with pytest.raises(ProviderError) as raised:
        make_search(tavily_api).search("q", max_results=3)
    # then
    assert (raised.value.code, raised.value.retryable) == ("quota_exceeded", False)


def test_it_reports_a_wrong_key_as_refused_and_permanent(tavily_api: StubTavily) -> None:
    # given a key the API does not know
    search = TavilySearch("tvly-wrong", base_url=tavily_api.base_url)
    # when
    with pytest.raises(ProviderError) as raised:
        search.search("q", max_results=3)
    # then
    assert (raised.value.code, raised.value.retryable) == ("refused", False)


@pytest.mark.parametrize("status", [400, 403])
def test_it_reports_other_refusals_as_permanent(tavily_api: StubTavily, status: int) -> None:
    # given
    tavily_api.fail_next(Failure.http(status, "no"))
    # when
    with pytest.raises(ProviderError) as raised:
        make_search(tavily_api).search("q", max_results=3)
    # then
    assert (raised.value.code, raised.value.retryable) == ("refused", False)


@pytest.mark.parametrize("status", [500, 502, 503])
def test_it_reports_server_errors_as_retryable(tavily_api: StubTavily, status: int) -> None:
    # given
    tavily_api.fail_next(Failure.http(status))
    # when
    with pytest.raises(ProviderError) as raised:
        make_search(tavily_api).search("q", max_results=3)
    # then
    assert (raised.value.code, raised.value.retryable) == ("unavailable", True)


def test_it_reports_a_slow_answer_as_a_retryable_timeout(tavily_api: StubTavily) -> None:
    # given an answer that takes longer than the configured timeout
    tavily_api.fail_next(Failure.slow(3.0))
    search = make_search(tavily_api, timeout=0.3)
    # when
    with pytest.raises(ProviderError) as raised:
        search.search("q", max_results=3)
    # then
    assert (raised.value.code, raised.value.retryable) == ("timeout", True)


def test_it_reports_an_unreachable_api_as_retryable() -> None:
    # given a port nobody listens on: start a stub to get a free port, then stop it
    with StubTavily() as stub:
        base_url = stub.base_url
    # when
    with pytest.raises(ProviderError) as raised:
        TavilySearch(KEY, base_url=base_url).search("q", max_results=3)
    # then
    assert (raised.value.code, raised.value.retryable) == ("unavailable", True)


def test_it_searches_again_after_a_failure(tavily_api: StubTavily) -> None:
    # given one failed request, then a normal one
    tavily_api.results = {"q": [tavily_result("https://a.example/", "A", "x")]}
    tavily_api.fail_next(Failure.http(500))
    search = make_search(tavily_api)
    with pytest.raises(ProviderError):
        search.search("q", max_results=3)
    # when
    hits = search.search("q", max_results=3)
    # then
    assert [hit.url for hit in hits] == ["https://a.example/"]
    assert len(tavily_api.searches) == 2
