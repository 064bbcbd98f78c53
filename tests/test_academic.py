"""Academic search: OpenAlex, arXiv and Semantic Scholar through httpx against wire-format stubs
on 127.0.0.1, the registry's choice of providers, and papers stored as sources."""

from __future__ import annotations

import pytest

from researchapp.core.hashing import sha256_text
from researchapp.pipeline.runner.academic import store_paper
from researchapp.providers import registry
from researchapp.providers.academic import Paper
from researchapp.providers.academic.arxiv import ArxivSearch
from researchapp.providers.academic.openalex import OpenAlexSearch, rebuild_abstract
from researchapp.providers.academic.semantic_scholar import SemanticScholarSearch
from researchapp.providers.base import ProviderError
from tests.factories import SubQuestionFactory
from tests.stubs.academic_api import Failure, StubAcademic, StubPaper

PEROVSKITE = StubPaper(
    title="Stability of perovskite solar cells under damp heat",
    abstract="Perovskite solar cells kept 80 percent of their efficiency after 1000 hours of damp heat. "
    "Encapsulation was the main factor.",
    doi="10.1234/PSC.2023.017",
    authors=("Ana Lima", "Wei Zhang"),
    venue="Journal of Photovoltaics",
    year=2023,
    arxiv_id="2301.01234",
)
NO_ABSTRACT = StubPaper(
    title="Perovskite solar cells: an editorial", abstract=None, doi="10.1234/ed.1", year=2022
)
PROVIDERS = [OpenAlexSearch, ArxivSearch, SemanticScholarSearch]


@pytest.fixture
def api():
    with StubAcademic([PEROVSKITE, NO_ABSTRACT]) as stub:
        yield stub


def test_it_rebuilds_an_openalex_abstract_from_its_inverted_index():
    # given words out of order, one of them twice
    index = {"panels": [1, 4], "Solar": [0], "age;": [2], "old": [3], ".": [5]}
    # when / then
    assert rebuild_abstract(index) == "Solar panels age; old panels ."
    assert rebuild_abstract(None) == ""
    assert rebuild_abstract({"word": "not a list"}) == ""


def test_it_maps_an_openalex_work_to_a_paper(api):
    # when
    [paper] = OpenAlexSearch(api.origin).search("perovskite damp heat", limit=3)
    # then the abstract is rebuilt word for word and the DOI is bare and lower-cased
    assert paper == Paper(
        provider="openalex",
        title=PEROVSKITE.title,
        url="https://doi.org/10.1234/psc.2023.017",
        doi="10.1234/psc.2023.017",
        authors=("Ana Lima", "Wei Zhang"),
        venue="Journal of Photovoltaics",
        year=2023,
        text=PEROVSKITE.abstract,
        full_text=False,
    )
    [query] = api.queries()
    assert query["search"] == ["perovskite damp heat"]
    assert query["per-page"] == ["3"]
    assert "abstract_inverted_index" in query["select"][0]


def test_it_maps_an_arxiv_entry_to_a_paper(api):
    # when
    [paper] = ArxivSearch(api.origin).search("perovskite damp heat")
    # then the wrapped Atom summary reads as one paragraph, the version is dropped from the URL
    assert paper.provider == "arxiv"
    assert paper.text == PEROVSKITE.abstract
    assert paper.url == "https://arxiv.org/abs/2301.01234"
    assert paper.doi == "10.1234/psc.2023.017"
    assert paper.authors == ("Ana Lima", "Wei Zhang")
    assert (paper.venue, paper.year) == ("Journal of Photovoltaics", 2023)
    assert api.queries()[0]["search_query"] == ["all:perovskite AND all:damp AND all:heat"]


def test_it_gives_an_arxiv_paper_without_a_journal_doi_arxivs_own(api):
    # given a preprint with no journal DOI and no journal
    api.papers = [
        StubPaper(title="Tandem cells", abstract="Tandem cells reach 33 percent.", arxiv_id="2402.00007")
    ]
    # when
    [paper] = ArxivSearch(api.origin).search("tandem cells")
    # then
    assert paper.doi == "10.48550/arxiv.2402.00007"
    assert paper.venue == "arXiv"


def test_it_maps_a_semantic_scholar_result_to_a_paper(api):
    # when
    [paper] = SemanticScholarSearch(api.origin, api_key="s2-key").search("perovskite damp heat", limit=4)
    # then
    assert (paper.provider, paper.doi, paper.year) == ("semantic_scholar", "10.1234/psc.2023.017", 2023)
    assert paper.text == PEROVSKITE.abstract
    [request] = api.requests
    assert request.headers["x-api-key"] == "s2-key"
    assert "openAccessPdf" in api.queries()[0]["fields"][0].split(",")


@pytest.mark.parametrize("provider", PROVIDERS)
def test_it_skips_papers_without_an_abstract_and_invents_none(api, provider):
    # given only a paper without an abstract matches
    api.papers = [NO_ABSTRACT]
    # when / then: nothing, not a padded placeholder
    assert provider(api.origin).search("editorial") == []


@pytest.mark.parametrize("provider", PROVIDERS)
def test_it_finds_nothing_without_error(api, provider):
    assert provider(api.origin).search("zeppelin") == []


@pytest.mark.parametrize("provider", PROVIDERS)
@pytest.mark.parametrize(
    ("status", "words"), [(429, "rate limit (HTTP 429)"), (500, "HTTP 500"), (503, "HTTP 503")]
)
def test_it_turns_a_rate_limit_or_server_error_into_a_retryable_provider_error(api, provider, status, words):
    # given the API answers with an error once
    api.fail_next(
        Failure.http(status, "stubbed failure", headers={"Retry-After": "7"} if status == 429 else {})
    )
    # when
    with pytest.raises(ProviderError) as raised:
        provider(api.origin).search("perovskite")
    # then the message names the API, the query and what happened
    assert raised.value.retryable
    assert words in raised.value.message
    assert "'perovskite'" in raised.value.message
    if status == 429:
        assert "retry after 7 s" in raised.value.message


@pytest.mark.parametrize("provider", PROVIDERS)
def test_it_refuses_on_a_client_error_without_retrying(api, provider):
    api.fail_next(Failure.http(400, "bad query"))
    with pytest.raises(ProviderError) as raised:
        provider(api.origin).search("perovskite")
    assert not raised.value.retryable
    assert "HTTP 400" in raised.value.message
    assert len(api.requests) == 1


@pytest.mark.parametrize("provider", PROVIDERS)
def test_it_reports_a_timeout_as_retryable(api, provider):
    api.fail_next(Failure.slow(2))
    with pytest.raises(ProviderError) as raised:
        provider(api.origin, timeout=0.3).search("perovskite")
    assert raised.value.retryable
    assert raised.value.code == "timeout"


@pytest.mark.parametrize(
    ("provider", "path", "body"),
    [
        (OpenAlexSearch, "/works", b"<html>gateway</html>"),
        (OpenAlexSearch, "/works", b'{"results": "nope"}'),
        (SemanticScholarSearch, "/graph/v1/paper/search", b"[1, 2]"),
        (ArxivSearch, "/api/query", b"<html><body>gateway</body></html>"),
        (ArxivSearch, "/api/query", b"not xml at all"),
    ],
)
def test_it_reports_a_malformed_body_clearly(provider, path, body):
    # given an API that answers 200 with something that is not its format
    class Broken(StubAcademic):
        def respond(self, request, failure):
            from tests.stubs.json_api import StubResponse

            return StubResponse(200, body)

    with Broken() as broken, pytest.raises(ProviderError) as raised:
        provider(broken.origin).search("perovskite")
    assert raised.value.code == "malformed"
    assert "unreadable answer" in raised.value.message


def test_it_reports_an_arxiv_error_entry_as_a_refusal():
    # given arXiv's way of refusing a query: a feed whose one entry is an error
    feed = (
        b'<?xml version="1.0" encoding="UTF-8"?><feed xmlns="http://www.w3.org/2005/Atom">'
        b"<entry><id>http://arxiv.org/api/errors#incorrect_id_format_for_1234</id><title>Error</title>"
        b"<summary>incorrect id format for 1234</summary></entry></feed>"
    )

    class Refusing(StubAcademic):
        def respond(self, request, failure):
            from tests.stubs.json_api import StubResponse

            return StubResponse(200, feed, {"Content-Type": "application/atom+xml"})

    with Refusing() as stub, pytest.raises(ProviderError) as raised:
        ArxivSearch(stub.origin).search("perovskite")
    assert "incorrect id format for 1234" in raised.value.message
    assert not raised.value.retryable


def test_the_offline_profile_asks_no_academic_api(settings):
    # given the embedded profile's defaults (local corpus, no academic providers)
    assert settings.RESEARCH["SEARCH_PROVIDER"] == "local"
    assert settings.RESEARCH["ACADEMIC_PROVIDERS"] == ()
    # then
    assert registry.academic_providers() == []


def test_the_registry_builds_the_configured_providers_at_their_urls(settings, api):
    # given
    settings.RESEARCH = {
        **settings.RESEARCH,
        "ACADEMIC_PROVIDERS": ("semantic_scholar", "openalex", "arxiv"),
        "OPENALEX_URL": api.origin,
        "ARXIV_URL": api.origin,
        "SEMANTIC_SCHOLAR_URL": api.origin,
    }
    # when
    providers = registry.academic_providers()
    found = [paper.provider for provider in providers for paper in provider.search("perovskite heat")]
    # then in the configured order, each through its own endpoint
    assert [provider.name for provider in providers] == ["semantic_scholar", "openalex", "arxiv"]
    assert found == ["semantic_scholar", "openalex", "arxiv"]
    assert api.paths() == ["/graph/v1/paper/search", "/works", "/api/query"]


def test_the_registry_refuses_an_unknown_provider():
    with pytest.raises(ProviderError, match="unknown academic search provider 'scholar'"):
        registry.academic_search("scholar")


def test_settings_choose_academic_providers_by_profile_and_refuse_unknown_ones():
    import os
    import subprocess
    import sys

    def providers(**env: str) -> subprocess.CompletedProcess:
        code = "from researchapp.settings import RESEARCH; print(','.join(RESEARCH['ACADEMIC_PROVIDERS']))"
        clean = {k: v for k, v in os.environ.items() if not k.startswith("RESEARCH_")}
        return subprocess.run(
            [sys.executable, "-c", code], env={**clean, **env}, capture_output=True, text=True, timeout=60
        )

    assert providers().stdout.strip() == ""  # the offline profile asks no outside host
    assert providers(RESEARCH_SEARCH_PROVIDER="tavily").stdout.strip() == "openalex,arxiv,semantic_scholar"
    chosen = providers(RESEARCH_SEARCH_PROVIDER="tavily", RESEARCH_ACADEMIC_PROVIDERS="arxiv, openalex,arxiv")
    assert chosen.stdout.strip() == "arxiv,openalex"
    assert (
        providers(RESEARCH_SEARCH_PROVIDER="tavily", RESEARCH_ACADEMIC_PROVIDERS="none").stdout.strip() == ""
    )
    refused = providers(RESEARCH_ACADEMIC_PROVIDERS="openalex,scholar")
    assert refused.returncode != 0
    assert "RESEARCH_ACADEMIC_PROVIDERS: scholar unknown" in refused.stderr


# --- stored as sources -----------------------------------------------------------------------------


def paper(**overrides) -> Paper:
    fields = {
        "provider": "openalex",
        "title": PEROVSKITE.title,
        "url": "https://doi.org/10.1234/psc.2023.017",
        "doi": "10.1234/psc.2023.017",
        "authors": ("Ana Lima", "Wei Zhang"),
        "venue": "Journal of Photovoltaics",
        "year": 2023,
        "text": PEROVSKITE.abstract,
        "full_text": False,
    }
    return Paper(**{**fields, **overrides})


@pytest.mark.django_db
def test_it_stores_a_paper_as_a_source_with_its_reference():
    # given
    subquestion = SubQuestionFactory()
    task = subquestion.plan.task
    # when
    source = store_paper(task, paper(), subquestion=subquestion, round=2)
    # then the abstract is the snapshot, hashed, and the reference is kept
    source.refresh_from_db()
    assert source.text == PEROVSKITE.abstract
    assert source.sha256 == sha256_text(PEROVSKITE.abstract)
    assert (source.doi, source.authors, source.venue, source.year) == (
        "10.1234/psc.2023.017",
        ["Ana Lima", "Wei Zhang"],
        "Journal of Photovoltaics",
        2023,
    )
    assert (source.provider, source.extraction, source.round, source.host) == (
        "openalex",
        "abstract",
        2,
        "doi.org",
    )
    assert source.cluster  # clustered with the task's other sources
    assert list(subquestion.sources.all()) == [source]


@pytest.mark.django_db
def test_it_stores_one_paper_once_whichever_api_found_it():
    # given the same paper from OpenAlex and from Semantic Scholar (another URL, the same DOI)
    subquestion = SubQuestionFactory()
    other = SubQuestionFactory(plan=subquestion.plan)
    task = subquestion.plan.task
    first = store_paper(task, paper(), subquestion=subquestion, round=1)
    # when
    second = store_paper(
        task,
        paper(provider="semantic_scholar", url="https://www.semanticscholar.org/paper/abc"),
        subquestion=other,
        round=1,
    )
    # then
    assert second.pk == first.pk
    assert task.sources.count() == 1
    assert list(other.sources.all()) == [first]


@pytest.mark.django_db
def test_it_refuses_a_paper_without_text():
    subquestion = SubQuestionFactory()
    with pytest.raises(ValueError, match="has no text"):
        store_paper(subquestion.plan.task, paper(text="  "), subquestion=subquestion, round=1)
    assert subquestion.plan.task.sources.count() == 0


def test_the_registry_keeps_each_api_within_its_rate_limit(settings, api, monkeypatch):
    # given arXiv's budget of one request per 100 seconds, and a wait of at most half a second
    from researchapp.providers.ratelimit import RateLimiter

    monkeypatch.setattr(registry, "rate_limiter", lambda: RateLimiter(None, prefix="test-academic:"))
    settings.RESEARCH = {
        **settings.RESEARCH,
        "ARXIV_URL": api.origin,
        "ARXIV_RATE_PER_SECOND": 0.01,
        "ACADEMIC_TIMEOUT": 0.5,
    }
    arxiv = registry.academic_search("arxiv")
    # when searching twice
    assert [paper.provider for paper in arxiv.search("perovskite")] == ["arxiv"]
    with pytest.raises(ProviderError) as raised:
        arxiv.search("perovskite")
    # then the second waits for no slot within its timeout: refused before it reaches the API
    assert raised.value.code == "rate_limited" and raised.value.retryable
    assert len(api.requests) == 1


@pytest.mark.django_db
def test_search_papers_stores_each_paper_once_and_turns_a_failing_api_into_a_warning(api):
    # given three APIs on the stub, the first answering 429 and the other two finding the same paper
    from researchapp.models import Event
    from researchapp.pipeline.runner.academic import search_papers

    subquestion = SubQuestionFactory()
    task = subquestion.plan.task
    api.fail_next(Failure.http(429))
    providers = [SemanticScholarSearch(api.origin), OpenAlexSearch(api.origin), ArxivSearch(api.origin)]
    # when
    sources = search_papers(task, subquestion, "perovskite damp heat", round_no=1, providers=providers)
    # then the paper is stored once (its DOI), by the first API that answered, and the 429 is a warning
    assert [(s.provider, s.doi) for s in sources] == [("openalex", "10.1234/psc.2023.017")]
    assert task.sources.count() == 1
    [warning] = Event.objects.filter(task=task, kind=Event.Kind.WARNING)
    assert (
        "Semantic Scholar search for 'perovskite damp heat' hit the rate limit (HTTP 429)" in warning.message
    )
    assert warning.data["code"] == "rate_limited" and warning.data["query"] == "perovskite damp heat"


@pytest.mark.django_db
def test_search_papers_stores_nothing_when_every_api_fails(api):
    from researchapp.models import Event
    from researchapp.pipeline.runner.academic import search_papers

    subquestion = SubQuestionFactory()
    task = subquestion.plan.task
    api.fail_next(Failure.http(500), Failure.http(500), Failure.http(429))
    providers = [OpenAlexSearch(api.origin), ArxivSearch(api.origin), SemanticScholarSearch(api.origin)]
    assert search_papers(task, subquestion, "perovskite", round_no=1, providers=providers) == []
    assert task.sources.count() == 0
    assert Event.objects.filter(task=task, kind=Event.Kind.WARNING).count() == 3
