"""Corpus search in the database: the full-text index takes candidates, BM25 re-ranks them.

Runs on the suite's database: PostgreSQL (tsvector, GIN, ``websearch_to_tsquery``, ``ts_rank_cd``)
under ``make test``, SQLite (FTS5) without ``DATABASE_URL``. Either way a search answers what the
in-memory index answers, in three queries, and no thread opens a connection of its own.
"""

from __future__ import annotations

import json
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from datetime import date

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from researchapp.models import Corpus, CorpusDocument, CorpusTerm
from researchapp.pipeline.collector import corpus as corpus_search
from researchapp.pipeline.collector.corpus import IndexedCorpus, TermStats
from researchapp.pipeline.collector.local import LocalCorpus
from researchapp.pipeline.runner import corpus_index
from researchapp.pipeline.runner.corpus_index import DatabaseIndex
from researchapp.providers.base import Document, ProviderError
from researchapp.services import corpus as corpus_service
from researchapp.services.corpus import ImportReport, corpus_import, store

pytestmark = pytest.mark.django_db

DOCUMENTS = [
    Document(
        "https://energy.example/heat-pumps",
        "Heat pumps in cold climates",
        "Heat pumps keep working in cold climates. Their efficiency drops below freezing, "
        "but heat pumps still save energy.",
        date(2024, 11, 2),
        extraction="corpus",
    ),
    Document(
        "https://energy.example/solar",
        "Rooftop solar",
        "Rooftop solar panels cut electricity bills. Panels produce less energy in winter.",
        extraction="corpus",
    ),
    Document(
        "https://energy.example/grid",
        "The grid in winter",
        "In winter the grid carries more load; heat pumps and panels change when it peaks.",
        extraction="corpus",
    ),
    Document(
        "https://energy.example/zh",
        "热泵",
        "热泵在寒冷气候下仍然可以工作，效率会下降。电动汽车和热泵都让电网的冬季负荷增加，高峰也随之改变。",
        extraction="corpus",
    ),
    Document(
        "https://food.example/pasta",
        "Pasta",
        "Boil the pasta for nine minutes, then drain.",
        extraction="corpus",
    ),
]
QUERIES = [
    "heat pumps in winter",
    "solar panels energy",
    "电网 冬季 负荷",
    "汽车",
    "pasta",
    "nothing matches",
]


def stored(documents=DOCUMENTS, name="energy") -> Corpus:
    corpus = Corpus.objects.create(name=name)
    store(corpus, list(documents), ImportReport(corpus=corpus))
    corpus.refresh_from_db()
    return corpus


def hits(search, query: str) -> list[tuple]:
    return [(h.url, h.title, h.snippet, h.score, h.published) for h in search.search(query, max_results=5)]


def test_a_database_search_answers_what_the_in_memory_index_answers_in_english_and_chinese():
    # given the same documents in the database and in memory
    database, memory = IndexedCorpus(DatabaseIndex(stored())), LocalCorpus(DOCUMENTS)

    # then every query finds the same hits, scores and snippets, Chinese words included
    for query in QUERIES:
        assert hits(database, query) == hits(memory, query), query
    assert hits(database, "nothing matches") == []
    # and what planning reads of a corpus is the same too
    assert (database.size, database.language) == (len(DOCUMENTS), memory.language)
    assert database.common_terms == memory.common_terms
    assert database.in_language("热泵 效率") == memory.in_language("热泵 效率")


def test_a_chinese_corpus_is_searched_by_its_words():
    # given a corpus of Chinese pages (stored as rjieba segments them, in search mode)
    pages = [
        Document(
            "https://zh.example/1",
            "电动汽车",
            "电动汽车的电池在冬季续航会下降，充电时间也更长一些。",
            extraction="corpus",
        ),
        Document(
            "https://zh.example/2",
            "热泵",
            "热泵在寒冷气候下仍然可以工作，但效率会下降不少。",
            extraction="corpus",
        ),
        Document(
            "https://zh.example/3",
            "电网",
            "电网在冬季的负荷增加，高峰时段随之改变很多。",
            extraction="corpus",
        ),
    ]
    database, memory = IndexedCorpus(DatabaseIndex(stored(pages, name="zh"))), LocalCorpus(pages)

    # then a word inside a longer word finds it (汽车 in 电动汽车), as in memory
    assert database.language == "zh"
    for query in ("汽车", "冬季 负荷", "热泵 效率", "heat pump"):
        assert hits(database, query) == hits(memory, query), query
    assert hits(database, "汽车")[0][0] == "https://zh.example/1"


def test_a_search_is_three_queries_and_reads_only_its_candidates(django_assert_num_queries):
    # given a stored corpus
    search = IndexedCorpus(DatabaseIndex(stored()))
    assert search.language == "en"  # read once per corpus and process (the first documents' beginnings)

    # when it is searched: the terms' statistics, the full-text candidates, the hits' documents
    with CaptureQueriesContext(connection) as captured:
        found = search.search("heat pumps winter", max_results=2)

    # then three queries ran, the candidates taken by the database's own full-text index
    assert len(captured) == 3
    candidates = captured[1]["sql"]
    if connection.vendor == "postgresql":
        assert "websearch_to_tsquery('simple'" in candidates and "ts_rank(" in candidates
    else:
        assert "researchapp_corpusdocument_fts MATCH" in candidates
    assert [h.url for h in found] == [
        h.url for h in LocalCorpus(DOCUMENTS).search("heat pumps winter", max_results=2)
    ]
    # and fetching a hit is one query; an unknown URL is a permanent error
    with django_assert_num_queries(1):
        assert search.fetch(found[0].url) == next(d for d in DOCUMENTS if d.url == found[0].url)
    with pytest.raises(ProviderError) as error:
        search.fetch("https://energy.example/nowhere")
    assert not error.value.retryable


class FakeIndex:
    """Candidates in the order the database would give them, and what the search asked for."""

    def __init__(self, texts: dict[int, str]):
        self.texts = texts
        self.size = len(texts)
        self.tokens = sum(len(t.split()) for t in texts.values())
        self.asked: list[tuple[list[str], bool, int]] = []

    def term_stats(self, terms):
        held = Counter(term for text in self.texts.values() for term in set(text.split()))
        return {t: TermStats(held[t], held[t]) for t in terms if held[t]}

    def candidates(self, terms, *, every, limit):
        self.asked.append((list(terms), every, limit))
        # the database's rank is not BM25's: here, the longest document first
        matching = [k for k, text in self.texts.items() if set(terms) & set(text.split())]
        return [(k, self.texts[k]) for k in sorted(matching, key=lambda k: -len(self.texts[k]))][:limit]


def test_bm25_re_ranks_the_databases_candidates_and_leaves_common_terms_out_of_its_query(monkeypatch):
    # given documents where one term is rare and one is in every document
    texts = {1: "tide " + "common " * 30, 2: "tide common", 3: "common other", 4: "common thing"}
    index = FakeIndex(texts)
    corpus = IndexedCorpus(index)  # type: ignore[arg-type]
    monkeypatch.setattr(corpus_search, "MATCH_BUDGET", 2)

    # when both terms are searched
    ranked = corpus.ranked(["tide", "common"], 5)

    # then the database was asked only for the rare term, and BM25 put the short document first
    assert index.asked == [(["tide"], False, corpus_search.CANDIDATES)]
    assert [key for key, _ in ranked] == [2, 1]

    # and when even the rarest term is too common, the rarest terms are asked for together
    monkeypatch.setattr(corpus_search, "MATCH_BUDGET", 1)
    corpus.ranked(["tide", "common"], 5)
    assert index.asked[-1] == (["tide", "common"], True, corpus_search.CANDIDATES)


def test_only_candidates_are_scored(monkeypatch):
    # given a database that hands on one candidate
    monkeypatch.setattr(corpus_search, "CANDIDATES", 1)
    search = IndexedCorpus(DatabaseIndex(stored()))

    # then a search finds at most that one, however many documents hold the terms
    assert len(search.search("heat pumps", max_results=5)) == 1


def test_the_database_ranks_at_most_the_match_budget_of_the_corpus_s_matches(monkeypatch):
    # given two corpora of four documents that all hold "tide", the other one stored first
    tides = [
        Document(f"https://sea.example/{n}", f"Tide {n}", f"The tide rose {n} metres.", extraction="corpus")
        for n in range(4)
    ]
    stored(tides, name="other")
    index = DatabaseIndex(stored(tides, name="sea"))
    mine = set(CorpusDocument.objects.filter(corpus_id=index.corpus_id).values_list("id", flat=True))

    # when the index may rank at most two matches of a corpus, then without that cap
    monkeypatch.setattr(corpus_index, "MATCH_BUDGET", 2)
    capped = {key for key, _ in index.candidates(["tide"], every=True, limit=10)}
    monkeypatch.setattr(corpus_index, "MATCH_BUDGET", 100)
    everything = {key for key, _ in index.candidates(["tide"], every=True, limit=10)}

    # then two of this corpus's four were candidates, all four without the cap, none of the other's
    assert len(capped) == 2 and capped < mine
    assert everything == mine and len(mine) == 4


def test_import_keeps_the_term_statistics_of_what_is_stored(tmp_path, monkeypatch):
    # given a JSONL file imported in batches of two, then imported again with one document changed
    monkeypatch.setattr(corpus_service, "BATCH", 2)
    path = tmp_path / "energy.jsonl"

    def write(documents):
        path.write_text(
            "\n".join(json.dumps({"url": d.url, "title": d.title, "text": d.text}) for d in documents) + "\n",
            encoding="utf-8",
        )

    write(DOCUMENTS)
    corpus = corpus_import(path=path, name="energy").corpus
    changed = [
        *DOCUMENTS[:-1],
        Document(DOCUMENTS[-1].url, "Pasta", "Cook the noodles for nine minutes in salted water."),
    ]
    write(changed)
    report = corpus_import(path=path, name="energy")
    assert (report.imported, report.unchanged) == (1, len(DOCUMENTS) - 1)

    # then every term counts the documents holding it now, and the corpus its size and length
    expected_documents: Counter[str] = Counter()
    expected_occurrences: Counter[str] = Counter()
    for text in CorpusDocument.objects.filter(corpus=corpus).values_list("search_text", flat=True):
        expected_documents.update(set(text.split()))
        expected_occurrences.update(text.split())
    rows = CorpusTerm.objects.filter(corpus=corpus, documents__gt=0)
    assert {row.term: (row.documents, row.occurrences) for row in rows} == {
        term: (count, expected_occurrences[term]) for term, count in expected_documents.items()
    }
    assert CorpusTerm.objects.get(corpus=corpus, term="boil").documents == 0  # its last holder changed
    corpus.refresh_from_db()
    assert corpus.document_count == len(DOCUMENTS)
    assert corpus.token_count == sum(expected_occurrences.values())
    # and the database's index follows the rows: the new words are found, the old ones are not
    search = IndexedCorpus(DatabaseIndex(corpus))
    assert [h.url for h in search.search("noodles", max_results=3)] == ["https://food.example/pasta"]
    assert search.search("boil drain", max_results=3) == []


def test_a_long_import_refreshes_postgresql_s_statistics_as_the_corpus_doubles(tmp_path, monkeypatch):
    # given a JSONL file of nine documents imported in batches of two, statistics first due after two
    monkeypatch.setattr(corpus_service, "BATCH", 2)
    monkeypatch.setattr(corpus_service, "ANALYZE_FIRST", 2)
    path = tmp_path / "tides.jsonl"
    rows = [
        {
            "url": f"https://sea.example/{n}",
            "title": "Tide",
            "text": f"The tide rose {n} metres over the harbour wall at dawn.",
        }
        for n in range(9)
    ]
    path.write_text("\n".join(json.dumps(row) for row in rows) + "\n", encoding="utf-8")

    with CaptureQueriesContext(connection) as captured:
        report = corpus_import(path=path, name="tides")

    # then, on PostgreSQL, both tables were analysed after 2 and 4 documents (next due at 8: the
    # last full batch) and not after the last, partial batch; SQLite needs no statistics
    assert report.imported == 9
    analysed = [query["sql"] for query in captured if query["sql"].startswith("ANALYZE")]
    if connection.vendor == "postgresql":
        assert analysed == ["ANALYZE researchapp_corpusdocument", "ANALYZE researchapp_corpusterm"] * 3
    else:
        assert analysed == []


def test_threads_search_through_the_connection_of_the_thread_that_built_the_index():
    # given a corpus stored in this test's transaction (no other connection can see it)
    search = IndexedCorpus(DatabaseIndex(stored()))

    alone = [hits(search, query) for query in QUERIES]

    # when four threads search at once, as the collector's do
    with ThreadPoolExecutor(max_workers=4) as pool:
        found = list(pool.map(lambda query: hits(search, query), QUERIES * 3))

    # then each found what this thread sees
    assert all(alone[:3]) and found == alone * 3


def test_an_empty_corpus_or_none_finds_nothing():
    assert IndexedCorpus(DatabaseIndex(None)).search("heat pumps", max_results=5) == []
    empty = IndexedCorpus(DatabaseIndex(Corpus.objects.create(name="empty")))
    assert empty.search("heat pumps", max_results=5) == [] and empty.common_terms == frozenset()
