"""The collect stage over the stub web, and its page-quality helpers (density, clusters)."""

from __future__ import annotations

import threading
import time
import uuid

import pytest

from researchapp.core.urls import normalize_url
from researchapp.pipeline.collector.clusters import cluster_sources, density
from researchapp.pipeline.collector.search import collect, default_rewrite
from researchapp.pipeline.values import Source, SubQuestion
from researchapp.providers.base import Hit, ProviderError
from researchapp.providers.fetch.client import FetchConfig, HttpFetcher
from tests.stubs import web_pages
from tests.stubs.web import StubWeb, StubWebSearch, stub_web

# Any connection outside 127.0.0.0/8 fails these tests (see ``no_network``).
pytestmark = pytest.mark.usefixtures("no_network")

web = pytest.fixture(scope="module", name="web")(stub_web)


@pytest.fixture
def fetcher(web):
    with HttpFetcher(FetchConfig(allowed_hosts=web.allowed_hosts, backoff=0.01, retries=0)) as fetcher:
        yield fetcher


class ScriptedSearch:
    """A search provider answering from a script: query → hits, or an error to raise."""

    name = "scripted"

    def __init__(self, script: dict[str, list[Hit] | Exception], *, delay: float = 0.0) -> None:
        self.script = script
        self.delay = delay
        self.queries: list[str] = []
        self._lock = threading.Lock()
        self.in_flight = 0
        self.max_in_flight = 0

    def search(self, query: str, *, max_results: int) -> list[Hit]:
        with self._lock:
            self.queries.append(query)
            self.in_flight += 1
            self.max_in_flight = max(self.max_in_flight, self.in_flight)
        try:
            time.sleep(self.delay)
            answer = self.script.get(query, [])
            if isinstance(answer, Exception):
                raise answer
            return answer[:max_results]
        finally:
            with self._lock:
                self.in_flight -= 1


def hits(web: StubWeb, *paths: str) -> list[Hit]:
    return [Hit(url=web.url(path), title=path, score=1.0 - i / 100) for i, path in enumerate(paths)]


def question(*queries: str) -> SubQuestion:
    return SubQuestion(id=1, text="What has the Marrowby lagoon done to birds and silt?", queries=queries)


# --- collect --------------------------------------------------------------------------------


def test_it_searches_fetches_and_returns_documents_in_hit_rank_order(web, fetcher):
    # given a real search over the stub site for two queries
    search = StubWebSearch(web)
    subquestion = question("Marrowby lagoon birds silt", "Marrowby lagoon costs levy")

    # when
    result = collect(subquestion, search=search, fetcher=fetcher, max_results=3, max_sources=8)
    again = collect(subquestion, search=search, fetcher=fetcher, max_results=3, max_sources=8)

    # then each query's best page comes first, and the order does not depend on thread timing
    urls = [document.url for document in result.documents]
    assert urls[:2] == [
        search.web.search("Marrowby lagoon birds silt", 3)[0].url,
        search.web.search("Marrowby lagoon costs levy", 3)[0].url,
    ]
    assert len(urls) == len(set(urls))
    assert urls == [document.url for document in again.documents]
    assert result.searches == 2 and result.pages_opened == len(urls)
    assert result.warnings == ()


def test_it_turns_every_failing_page_into_a_warning(web, fetcher):
    # given hits that fail in every way a page can, and one that works
    script = {"q": hits(web, "/error-500", "/image.png", "/to-other-loopback", "/empty", "/article-2")}

    # when
    result = collect(question("q"), search=ScriptedSearch(script), fetcher=fetcher)

    # then
    assert [document.url for document in result.documents] == [web.url("/article-2")]
    assert {(warning.code, warning.url) for warning in result.warnings} == {
        ("server_error", web.url("/error-500")),
        ("unsupported_content", web.url("/image.png")),
        ("blocked_address", web.url("/to-other-loopback")),
        ("empty_extraction", web.url("/empty")),
    }
    assert all(warning.query == "q" for warning in result.warnings)


def test_it_turns_failing_searches_into_warnings_and_keeps_the_others(web, fetcher):
    script = {
        "broken": ProviderError("search API answered 503", retryable=True, code="unavailable"),
        "throttled": ProviderError(
            "search API hit the usage limit (429)", retryable=True, code="rate_limited"
        ),
        "fine": hits(web, "/article-1"),
    }

    result = collect(question("broken", "throttled", "fine"), search=ScriptedSearch(script), fetcher=fetcher)

    assert [document.url for document in result.documents] == [web.url("/article-1")]
    assert {(warning.code, warning.query) for warning in result.warnings} == {
        ("search_failed", "broken"),
        ("rate_limited", "throttled"),
    }


def test_it_rewrites_an_empty_search_once(web, fetcher):
    # given a search that finds nothing for the operator-laden query, and pages for its plain form
    original = '"Marrowby lagoon" site:news.example the costs'
    script = {original: [], "Marrowby lagoon costs": hits(web, "/article-2")}
    search = ScriptedSearch(script)

    result = collect(question(original), search=search, fetcher=fetcher)

    assert search.queries == [original, "Marrowby lagoon costs"]
    assert result.searches == 2
    assert [document.url for document in result.documents] == [web.url("/article-2")]


def test_it_does_not_repeat_a_search_the_rewrite_cannot_change(web, fetcher):
    search = ScriptedSearch({})

    result = collect(question("Marrowby lagoon"), search=search, fetcher=fetcher)

    assert search.queries == ["Marrowby lagoon"]
    assert (result.documents, result.searches) == ((), 1)


def test_it_fetches_one_page_once_however_many_queries_find_it(web, fetcher):
    # given two queries returning the same page, spelled differently, with different scores
    key = uuid.uuid4().hex[:8]
    first = Hit(url=web.url(f"/article-3?k={key}"), score=0.2)
    second = Hit(url=web.url(f"/article-3?k={key}#comments"), score=0.9)
    search = ScriptedSearch({"a": [first], "b": [second]})

    result = collect(question("a", "b"), search=search, fetcher=fetcher)

    assert len(result.documents) == 1
    assert web.requests[f"/article-3?k={key}"] == 1
    assert result.documents[0].url == second.url  # the better-scored spelling of the hit is kept


def test_it_reuses_known_urls_instead_of_fetching_them_again(web, fetcher):
    key = uuid.uuid4().hex[:8]
    known, new = f"/article-1?k={key}", f"/article-2?k={key}"
    search = ScriptedSearch({"q": hits(web, known, new)})

    result = collect(
        question("q"), search=search, fetcher=fetcher, known_urls=frozenset({normalize_url(web.url(known))})
    )

    assert result.reused_urls == (normalize_url(web.url(known)),)
    assert [document.url for document in result.documents] == [web.url(new)]
    assert web.requests[known] == 0
    assert result.pages_opened == 1


def test_it_reuses_a_known_page_reached_through_a_redirect(web, fetcher):
    # given a hit that redirects to a page the task already stored
    known = normalize_url(web.url("/article-1"))
    search = ScriptedSearch({"q": hits(web, "/redirect-chain")})

    result = collect(question("q"), search=search, fetcher=fetcher, known_urls=frozenset({known}))

    assert result.documents == ()
    assert result.reused_urls == (known,)


def test_it_stops_at_max_sources_and_fills_in_for_failed_pages(web, fetcher):
    # given a failing page ranked first and more good pages than wanted
    search = ScriptedSearch(
        {"q": hits(web, "/image.png", "/article-1", "/article-2", "/article-3", "/article-5")}
    )

    result = collect(question("q"), search=search, fetcher=fetcher, max_sources=2)

    assert [document.url for document in result.documents] == [web.url("/article-1"), web.url("/article-2")]
    assert result.pages_opened == 3  # two in the first wave, then one to replace the image
    assert [warning.code for warning in result.warnings] == ["unsupported_content"]


def test_it_keeps_at_most_concurrency_fetches_in_flight(web, fetcher):
    # given ten slow pages, all counted in one group on the server
    group = uuid.uuid4().hex[:8]
    paths = [f"/article-{n % 5 + 1}?delay=0.15&group={group}&n={n}" for n in range(10)]
    search = ScriptedSearch({"q": hits(web, *paths)})

    result = collect(
        question("q"), search=search, fetcher=fetcher, max_results=10, max_sources=10, concurrency=3
    )

    assert len(result.documents) == 10
    assert 2 <= web.max_in_flight(group) <= 3


def test_it_keeps_at_most_concurrency_searches_in_flight(web, fetcher):
    search = ScriptedSearch({}, delay=0.05)

    collect(
        question(*[f"query {n}" for n in range(8)]),
        search=search,
        fetcher=fetcher,
        concurrency=2,
        rewrite_query=None,
    )

    assert search.max_in_flight == 2
    assert len(search.queries) == 8


def test_it_never_raises_when_the_fetcher_has_a_bug(web):
    class BrokenFetcher:
        def fetch(self, url):
            raise RuntimeError("boom")

    result = collect(
        question("q"), search=ScriptedSearch({"q": hits(web, "/article-1")}), fetcher=BrokenFetcher()
    )

    assert result.documents == ()
    assert [(w.code, w.message) for w in result.warnings] == [("fetch_failed", "RuntimeError: boom")]


def test_it_rewrites_a_query_into_its_plain_words():
    assert default_rewrite('"tidal lagoon" site:gov.example -wind OR (costs of the Marrowby wall)') == (
        "tidal lagoon costs Marrowby wall"
    )
    assert default_rewrite("tidal lagoon costs") == ""


# --- density --------------------------------------------------------------------------------


def test_it_rates_an_article_dense_and_a_link_farm_thin():
    article = web_pages.ARTICLES[0].text
    link_farm = "\n".join(web_pages.LINK_FARM_LINES)
    listicle = "\n".join(web_pages.LISTICLE_LINES)

    assert density(article) >= 0.95
    assert density(link_farm) <= 0.1
    assert density(listicle) <= 0.2
    assert density("") == 0.0


def test_it_rates_a_chinese_article_as_prose():
    assert density(web_pages.CHINESE_TEXT) >= 0.8


def test_it_rates_a_short_note_below_a_full_article():
    assert density("The footpath is closed today.") < density(web_pages.ARTICLES[1].text)


# --- clusters -------------------------------------------------------------------------------


def source(source_id: int, article: web_pages.Article, host: str) -> Source:
    return Source(
        id=source_id, url=f"https://{host}{article.path}", title=article.title, text=article.text, host=host
    )


def test_it_puts_a_syndicated_copy_in_the_originals_cluster():
    # given the environment story and its reprint on two unrelated sites, and two other stories
    a1, a2, a3, a4, _ = web_pages.ARTICLES
    sources = [
        source(7, a4, "ledger.example"),
        source(3, a3, "coastnews.example"),
        source(5, a1, "bay-times.example"),
        source(9, a2, "money.example"),
    ]

    clusters = cluster_sources(sources)

    assert clusters[3] == ("c3", True)
    assert clusters[7] == ("c3", False)
    assert clusters[5] == ("c5", True)
    assert clusters[9] == ("c9", True)


def test_it_puts_one_sites_pages_in_one_cluster():
    a1, a2, *_ = web_pages.ARTICLES
    sources = [source(4, a2, "www.coastnews.example"), source(2, a1, "coastnews.example")]

    assert cluster_sources(sources) == {2: ("c2", True), 4: ("c2", False)}


def test_it_clusters_the_same_way_whatever_the_input_order():
    a1, a2, a3, a4, a5 = web_pages.ARTICLES
    sources = [
        source(1, a1, "a.example"),
        source(2, a3, "b.example"),
        source(3, a4, "c.example"),
        source(4, a5, "d.example"),
        source(5, a2, "a.example"),
    ]

    assert cluster_sources(sources) == cluster_sources(list(reversed(sources)))
    assert cluster_sources(sources)[5] == ("c1", False)
