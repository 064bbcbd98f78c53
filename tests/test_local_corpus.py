"""The local corpus: BM25 search over whole documents, and fetching what it stores."""

from __future__ import annotations

from datetime import date

import pytest

from researchapp.pipeline.collector.clusters import cluster_sources
from researchapp.pipeline.collector.local import LocalCorpus
from researchapp.pipeline.values import Source
from researchapp.providers.base import Document, ProviderError

HEAT_PUMPS = Document(
    url="https://energy.example/heat-pumps",
    title="Heat pumps in cold climates",
    text=(
        "Heat pumps keep working in cold climates. "
        "Their efficiency drops below freezing, but they still save energy."
    ),
    published=date(2024, 11, 2),
    extraction="corpus",
)
SOLAR = Document(
    url="https://energy.example/solar",
    title="Rooftop solar",
    text="Rooftop solar panels cut electricity bills. Panels produce less energy in winter.",
)
PASTA = Document(url="https://food.example/pasta", title="Pasta", text="Boil the pasta for nine minutes.")


@pytest.fixture
def corpus() -> LocalCorpus:
    return LocalCorpus([HEAT_PUMPS, SOLAR, PASTA])


def test_it_ranks_documents_by_relevance_and_leaves_out_non_matches(corpus: LocalCorpus) -> None:
    # when
    hits = corpus.search("heat pump energy in winter", max_results=10)
    # then
    assert [hit.url for hit in hits] == [HEAT_PUMPS.url, SOLAR.url]
    assert hits[0].score > hits[1].score > 0
    assert all(hit.provider == "local" for hit in hits)


def test_it_fills_hits_with_title_date_and_the_best_matching_sentence(corpus: LocalCorpus) -> None:
    # when
    (hit,) = corpus.search("efficiency below freezing", max_results=1)
    # then
    assert hit.title == "Heat pumps in cold climates"
    assert hit.published == date(2024, 11, 2)
    assert hit.snippet == "Their efficiency drops below freezing, but they still save energy."


def test_it_matches_words_in_the_title(corpus: LocalCorpus) -> None:
    assert [hit.url for hit in corpus.search("rooftop", max_results=5)] == [SOLAR.url]


def test_it_respects_max_results(corpus: LocalCorpus) -> None:
    assert len(corpus.search("energy", max_results=1)) == 1
    assert corpus.search("energy", max_results=0) == []


def test_it_finds_nothing_for_a_query_of_stopwords(corpus: LocalCorpus) -> None:
    assert corpus.search("the of and", max_results=5) == []


def test_it_searches_chinese_documents() -> None:
    # given
    corpus = LocalCorpus(
        [
            Document(url="https://zh.example/ev", title="电动汽车", text="电动汽车的电池成本持续下降。"),
            Document(url="https://zh.example/food", title="美食", text="面条需要煮九分钟。"),
        ]
    )
    # when
    hits = corpus.search("电池成本", max_results=5)
    # then
    assert [hit.url for hit in hits] == ["https://zh.example/ev"]


def test_it_fetches_a_stored_document_by_its_url_or_a_variant_of_it(corpus: LocalCorpus) -> None:
    assert corpus.fetch(HEAT_PUMPS.url) is HEAT_PUMPS
    assert corpus.fetch("HTTPS://Energy.example/heat-pumps/#intro") is HEAT_PUMPS


def test_it_refuses_an_unknown_url_permanently(corpus: LocalCorpus) -> None:
    # when
    with pytest.raises(ProviderError) as refused:
        corpus.fetch("https://energy.example/missing")
    # then
    assert refused.value.code == "not_found"
    assert refused.value.retryable is False


def test_it_is_deterministic_on_ties() -> None:
    # given identical documents under different URLs
    documents = [Document(url=f"https://copy.example/{i}", title="Copy", text="heat pump") for i in range(5)]
    corpus = LocalCorpus(documents)
    # when
    hits = corpus.search("heat pump", max_results=3)
    # then the order of the corpus breaks the tie
    assert [hit.url for hit in hits] == [f"https://copy.example/{i}" for i in range(3)]


def test_it_finds_the_document_a_rare_term_names_among_a_thousand() -> None:
    # given a thousand documents of a few hundred words each (its speed is bench.corpus_search's figure)
    words = [f"word{i}" for i in range(5000)]
    documents = [
        Document(
            url=f"https://bulk.example/{n}",
            title=f"Document {n}",
            text=" ".join(words[(n * 7 + k * 13) % len(words)] for k in range(300)),
        )
        for n in range(1000)
    ]
    corpus = LocalCorpus(documents)
    # when a query names one document's number beside a word every document holds
    hits = corpus.search("document 500", max_results=10)
    # then that document comes first, and other queries find something
    assert hits[0].url == "https://bulk.example/500"
    assert all(corpus.search(query, max_results=10) for query in ("word1 word2 word3", "word4000 word17"))


def test_it_never_gives_a_heading_as_the_snippet() -> None:
    # given a Markdown page whose heading matches the query best
    page = Document(
        url="https://energy.example/review",
        title="Review",
        text="# Heat pump review: heat pump energy\n\nThe heat pump saved energy all winter.",
    )
    # when
    (hit,) = LocalCorpus([page]).search("heat pump energy review", max_results=1)
    # then
    assert hit.snippet == "The heat pump saved energy all winter."


def test_a_folders_documents_are_each_their_own_voice_and_copies_still_join() -> None:
    # given three documents of one imported folder (no url of their own), one a copy of another
    text = " ".join(
        f"Entry {n}: the Greywater Point keepers logged storm number {n} in the book." for n in range(9)
    )
    sources = [
        Source(1, "corpus://notes-abc123/early.txt", "early", text, host="notes-abc123"),
        Source(2, "corpus://notes-abc123/late.txt", "late", "The lighthouse was built in 1874. " * 8),
        Source(3, "corpus://notes-abc123/copy.txt", "copy", text, host="notes-abc123"),
        # two pages of one web site stay one voice
        Source(4, "https://harbour.example/a", "a", "Ferries leave at noon. " * 8),
        Source(5, "https://harbour.example/b", "b", "Ferries leave at dawn and at dusk. " * 8),
    ]
    # when
    clusters = {source_id: label for source_id, (label, _) in cluster_sources(sources).items()}
    # then
    assert clusters[1] != clusters[2] and clusters[1] == clusters[3]
    assert clusters[4] == clusters[5] != clusters[1]
