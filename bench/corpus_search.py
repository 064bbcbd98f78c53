"""Corpus search in the database: import rate, a sub-question's search p95, a worker's peak memory.

A corpus of ``--passages`` passages (1,000,000 in the issue) is generated from the shared data:
Wikipedia paragraphs (HotpotQA, 2WikiMultihopQA and MuSiQue contexts, SQuAD 2.0 articles) and the
extraction set's web pages, mixed: each passage is two to five consecutive sentences of one paragraph
and one sentence of another, under its paragraph's title. It is imported with ``manage.py
corpus_import`` (its rate and peak RSS), into PostgreSQL (a throwaway database, full-text search
with a GIN index) and into SQLite (FTS5). A worker process then searches it as a task does: for
each of ``--queries`` sub-questions (the questions of the multi-hop and SQuAD sets, whose answers
the corpus holds), a fresh ``IndexedCorpus`` over the database answers the search the collector
asks (``RESULTS_PER_QUERY`` hits); its latencies and its peak RSS (``ru_maxrss``) are the figures.

With ``--compare`` (sizes up to 200,000), a second process builds today's in-memory index of the
same corpus (``LocalCorpus``): its peak RSS, and how often the database's hits are its hits.

    python -m bench.corpus_search [--passages 100000] [--queries 300] [--engines postgresql,sqlite]
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import random
import re
import resource
import shutil
import sys
import tempfile
import time
from pathlib import Path

from bench.common import DATA_ROOT, PROJECT_ROOT, Figure, Skipped, main
from bench.corpus_import import manage
from bench.server import drop_database

NAME = "corpus_search"
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9\"'(])")
TARGET_MS = {"postgresql": 200, "sqlite": 500}
TARGET_RSS_MB = 400
COMPARE_LIMIT = 200_000


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--passages", type=int, default=100_000)
    parser.add_argument("--queries", type=int, default=300)
    parser.add_argument("--engines", default="postgresql,sqlite")
    parser.add_argument("--data", type=Path, default=DATA_ROOT)
    parser.add_argument("--database", default="bench_corpus_search", help="PostgreSQL database to (re)create")
    parser.add_argument("--compare", action="store_true", help="also measure today's in-memory index")
    parser.add_argument("--worker", help=argparse.SUPPRESS)  # internal: search in this process
    parser.add_argument("--in-memory", type=Path, help=argparse.SUPPRESS)  # internal: today's index


def paragraphs(data: Path) -> list[tuple[str, list[str]]]:
    """(title, sentences) of every paragraph in the shared data."""
    found: list[tuple[str, list[str]]] = []
    for line in (data / "multihop" / "hotpotqa_train100.jsonl").open(encoding="utf-8"):
        found += [(title, [s.strip() for s in sentences]) for title, sentences in json.loads(line)["context"]]
    for name in ("2wiki_dev200.jsonl", "musique_dev200.jsonl"):
        for line in (data / "multihop" / name).open(encoding="utf-8"):
            found += [
                (p["title"], _SENTENCE_END.split(p["paragraph_text"])) for p in json.loads(line)["paragraphs"]
            ]
    for line in (data / "qa" / "squad2_dev500_contexts.jsonl").open(encoding="utf-8"):
        record = json.loads(line)
        found.append((record["title"], _SENTENCE_END.split(record["text"])))
    from researchapp.providers.fetch.extract import extract_html

    for page in sorted((data / "extraction" / "html").glob("*.html.gz")):
        title, text, _ = extract_html(gzip.decompress(page.read_bytes()).decode("utf-8", "replace"), "")
        for block in text.split("\n"):
            if len(block) > 200:
                found.append((title or page.name, _SENTENCE_END.split(block)))
    return [(title, [s for s in sentences if s]) for title, sentences in found if sentences]


def queries(data: Path, count: int) -> list[str]:
    found = []
    for path in ("multihop/hotpotqa_train100.jsonl", "multihop/2wiki_dev200.jsonl", "qa/squad2_dev500.jsonl"):
        found += [json.loads(line)["question"] for line in (data / path).open(encoding="utf-8")]
    found += [json.loads(line)["question"] for line in (data / "multihop/musique_dev200.jsonl").open()]
    random.Random(7).shuffle(found)
    return found[:count]


def write_corpus(path: Path, data: Path, passages: int) -> int:
    pool = paragraphs(data)
    chance = random.Random(21)
    with path.open("w", encoding="utf-8") as handle:
        for number in range(passages):
            title, sentences = chance.choice(pool)
            start = chance.randrange(len(sentences))
            own = sentences[start : start + chance.randint(2, 5)]
            other = chance.choice(chance.choice(pool)[1])
            text = " ".join([*own, other])
            record = {"url": f"https://passages.example/{number}", "title": title, "text": text}
            handle.write(json.dumps(record, ensure_ascii=False) + "\n")
    return len(pool)


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


def worker(args: argparse.Namespace) -> None:
    """Search the corpus named ``args.worker`` as a task's collector does; print the figures as JSON."""
    import django

    django.setup()
    from django.conf import settings

    from researchapp.models import Corpus
    from researchapp.pipeline.collector.corpus import IndexedCorpus
    from researchapp.pipeline.runner.corpus_index import DatabaseIndex

    corpus = Corpus.objects.get(name=args.worker)
    asked = queries(args.data, args.queries)
    timings, hits, database_queries = [], {}, 0
    for question in asked:
        started = time.perf_counter()
        search = IndexedCorpus(DatabaseIndex(corpus))
        found = search.search(question, max_results=settings.RESEARCH["RESULTS_PER_QUERY"])
        timings.append(time.perf_counter() - started)
        database_queries += search.index.queries
        hits[question] = [hit.url for hit in found]
    print(
        json.dumps(
            {
                "p50": percentile(timings, 0.5) * 1000,
                "p95": percentile(timings, 0.95) * 1000,
                "max": max(timings) * 1000,
                "rss": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
                "queries_per_search": database_queries / len(asked),
                "load": os.getloadavg()[0],
                "hits": hits,
            }
        )
    )


def in_memory(args: argparse.Namespace, path: Path) -> None:
    """Today's index of the same corpus, in this process: its peak RSS and its hits, as JSON."""
    import django

    django.setup()
    from django.conf import settings

    from researchapp.pipeline.collector.local import LocalCorpus
    from researchapp.providers.base import Document

    documents = [
        Document(r["url"], r["title"], r["text"].strip(), extraction="corpus")
        for r in map(json.loads, path.open(encoding="utf-8"))
    ]
    started = time.perf_counter()
    corpus = LocalCorpus(documents)
    built = time.perf_counter() - started
    limit = settings.RESEARCH["RESULTS_PER_QUERY"]
    hits = {q: [h.url for h in corpus.search(q, max_results=limit)] for q in queries(args.data, args.queries)}
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(json.dumps({"rss": rss, "built": built, "hits": hits}))


def environment(engine: str, scratch: Path, database: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "CELERY_BROKER_URL", "REDIS_URL")}
    env.update(
        DJANGO_SETTINGS_MODULE="researchapp.settings",
        RESEARCH_VAR_DIR=str(scratch / "var"),
        CELERY_BROKER_URL="memory://",
        PYTHONPATH=str(PROJECT_ROOT),
    )
    if engine == "postgresql":
        from bench.server import create_database

        env["DATABASE_URL"] = create_database(database)
    else:
        env["DATABASE_URL"] = f"sqlite:///{scratch / 'corpus.sqlite3'}"
    return env


def child(env: dict[str, str], args: argparse.Namespace, *extra: str) -> dict:
    """Run this module in a process of its own (``--worker`` or ``--in-memory``); its JSON line."""
    import subprocess

    command = [sys.executable, "-m", "bench.corpus_search", "--data", str(args.data)]
    command += ["--queries", str(args.queries), *extra]
    output = subprocess.run(command, cwd=PROJECT_ROOT, env=env, capture_output=True, text=True, check=True)
    return json.loads(output.stdout.strip().splitlines()[-1])


def agreement(ours: dict[str, list[str]], theirs: dict[str, list[str]]) -> tuple[float, float]:
    """The share of questions whose hits are today's, in order; today's hits found, on average."""
    same = sum(ours[q] == theirs[q] for q in theirs) / len(theirs)
    found = [len(set(ours[q]) & set(hits)) / len(hits) for q, hits in theirs.items() if hits]
    return same, sum(found) / max(1, len(found))


def engine_figures(engine: str, args: argparse.Namespace, scratch: Path, corpus: Path) -> list[Figure]:
    env = environment(engine, scratch, args.database)
    try:
        manage(env, "migrate", "--noinput")
        seconds, peak, output = manage(env, "corpus_import", str(corpus), "--name", "bench")
        load = os.getloadavg()[0]
        searched = child(env, args, "--worker", "bench")
    finally:
        if engine == "postgresql":
            drop_database(args.database)
    size = f"{args.passages:,} passages"
    figures = [
        Figure(
            NAME,
            f"{engine}: import of {size}",
            round(args.passages / seconds),
            "passages/s",
            note=f"{seconds:.0f}s, peak RSS {peak:.0f} MB, load average {load:.1f} at the end; "
            f"{output.strip().splitlines()[-1]}",
        ),
        Figure(
            NAME,
            f"{engine}: a sub-question's search p95 ({size})",
            round(searched["p95"], 1),
            "ms",
            target=f"<= {TARGET_MS[engine]} ms",
            met=searched["p95"] <= TARGET_MS[engine],
            note=f"p50 {searched['p50']:.1f} ms, max {searched['max']:.0f} ms, "
            f"{searched['queries_per_search']:.1f} database queries a search, {args.queries} sub-questions, "
            f"load average {searched['load']:.1f} at the end",
        ),
        Figure(
            NAME,
            f"{engine}: searching worker's peak RSS ({size})",
            round(searched["rss"]),
            "MB",
            target=f"<= {TARGET_RSS_MB} MB",
            met=searched["rss"] <= TARGET_RSS_MB,
        ),
    ]
    figures[-1].note = "ru_maxrss of the process that ran every search"
    if args.compare:
        memory = child(env, args, "--in-memory", str(corpus))
        same, found = agreement(searched["hits"], memory["hits"])
        figures += [
            Figure(
                NAME,
                f"{engine}: hits identical to today's in-memory BM25",
                round(same, 3),
                note=f"today's hits found: {found:.3f} on average",
            ),
            Figure(
                NAME,
                f"today's in-memory index of {size}: peak RSS",
                round(memory["rss"]),
                "MB",
                note=f"built in {memory['built']:.0f}s in every worker process",
            ),
        ]
    return figures


def run(args: argparse.Namespace) -> list[Figure]:
    if args.worker:
        worker(args)
        raise SystemExit(0)
    if args.in_memory:
        in_memory(args, args.in_memory)
        raise SystemExit(0)
    if not (args.data / "multihop").is_dir():
        raise Skipped(f"no shared data at {args.data}")
    args.compare = args.compare and args.passages <= COMPARE_LIMIT
    scratch = Path(tempfile.mkdtemp(prefix="bench-corpus-search-"))
    figures: list[Figure] = []
    try:
        corpus = scratch / "passages.jsonl"
        pool = write_corpus(corpus, args.data, args.passages)
        print(
            f"{args.passages:,} passages from {pool:,} paragraphs: {corpus.stat().st_size / 1e6:.0f} MB",
            flush=True,
        )
        for engine in args.engines.split(","):
            if engine == "postgresql":
                from bench.server import postgres_available

                if not postgres_available():
                    figures.append(Figure(NAME, "postgresql", "skipped", note="no PostgreSQL server"))
                    continue
            figures += engine_figures(engine, args, scratch, corpus)
            args.compare = False  # today's index is the same whatever the engine: measured once
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    return figures


if __name__ == "__main__":
    main(NAME, run, add_arguments)
