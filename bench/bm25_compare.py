"""The hand-written BM25 against ``bm25s`` (a well-kept library), on the passages a task ranks.

STYLE.md asks for a library where it measures at least as well. For each question of the multi-hop
sets (HotpotQA's own paragraphs, and the MuSiQue-style set built from them) the question's sources
are cut into passages exactly as the evidence stage cuts them (title, headings and passage
tokens), indexed by both implementations, and queried with the question's tokens:

- recall of the gold units in the top 8 passages (the plain-BM25 baseline of ``bench.evidence_recall``),
- whether both rank the passages the same (bm25s's "lucene" method leaves out BM25's (k1 + 1) factor,
  so its scores are the hand-written ones times a constant),
- time to index and score, per question and in all, as a task does it: one small index per
  sub-question's sources, a handful of queries each.

``bm25s`` is not a dependency of the project: ``pip install bm25s`` into the environment to run this.

    python -m bench.bm25_compare --data ../shared/data/multihop/hotpotqa_train100.jsonl
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from bench.common import DATA_ROOT, Figure, Skipped, main
from bench.evidence_recall import Tally, load_corpora, sources_for

NAME = "bm25_compare"
TOP = 8


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--data", type=Path, default=DATA_ROOT / "multihop" / "hotpotqa_train100.jsonl")
    parser.add_argument("--repeat", type=int, default=5, help="index-and-score runs per question, for timing")


def _top(candidates, scores: list[float]) -> list:
    """The top passages by score (none that scored nothing), as the evidence stage picks them."""
    from researchapp.pipeline.values import Passage

    ranked = sorted(range(len(scores)), key=lambda i: (-scores[i], i))
    return [
        Passage(c.source.id, c.start, c.end, c.quote, scores[i])
        for i in ranked[:TOP]
        if scores[i] > 0
        for c in (candidates[i],)
    ]


def _compare(style: str, args: argparse.Namespace, bm25s) -> list[Figure]:
    """Both implementations on every question of one set: recall, same order, time per question."""
    from researchapp.pipeline.collector.passages import PassagePool
    from researchapp.pipeline.text.bm25 import BM25
    from researchapp.pipeline.text.tokens import tokenize

    corpora = load_corpora(args.data, style=style)
    tallies = {"hand-written": Tally(), "bm25s": Tally()}
    seconds = {"hand-written": 0.0, "bm25s": 0.0}
    same_order = passages = 0
    for corpus in corpora:
        candidates = PassagePool(sources_for(corpus)).candidates
        documents = [list(candidate.tokens) for candidate in candidates]
        passages += len(documents)
        query = tokenize(corpus.question)
        started = time.perf_counter()
        for _ in range(args.repeat):
            ours = BM25(documents).scores(query)
        seconds["hand-written"] += (time.perf_counter() - started) / args.repeat
        started = time.perf_counter()
        for _ in range(args.repeat):
            library = bm25s.BM25(method="lucene", k1=1.5, b=0.75)
            library.index(documents, show_progress=False)
            theirs = library.get_scores(query).tolist()
        seconds["bm25s"] += (time.perf_counter() - started) / args.repeat
        tallies["hand-written"].add(corpus, _top(candidates, ours))
        tallies["bm25s"].add(corpus, _top(candidates, theirs))
        order = [sorted(range(len(s)), key=lambda i: (-round(s[i], 5), i))[:TOP] for s in (ours, theirs)]
        same_order += order[0] == order[1]
    level = corpora[0].level
    return [
        *(
            Figure(
                NAME,
                f"[{style}] {label}: {level} recall, question as query, top {TOP}",
                round(tally.found / max(tally.gold, 1), 4),
            )
            for label, tally in tallies.items()
        ),
        Figure(NAME, f"[{style}] same top {TOP} in the same order", f"{same_order} of {len(corpora)}"),
        *(
            Figure(
                NAME,
                f"[{style}] {label}: index + score, per question",
                round(1000 * seconds[label] / len(corpora), 3),
                unit="ms",
                note=f"{passages / len(corpora):.0f} passages a question; mean of {args.repeat} runs",
            )
            for label in seconds
        ),
    ]


def run(args: argparse.Namespace) -> list[Figure]:
    try:
        import bm25s
    except ImportError:
        raise Skipped("skipped: bm25s is not installed (pip install bm25s)") from None
    figures = [figure for style in ("native", "musique") for figure in _compare(style, args, bm25s)]
    return figures + _large(args, bm25s)


def _large(args: argparse.Namespace, bm25s) -> list[Figure]:
    """One index over every passage of the 120 extraction pages (a local corpus's size), 40 queries."""
    from bench.relevance import QUESTIONS, corpus_documents
    from researchapp.pipeline.collector.passages import PassagePool
    from researchapp.pipeline.text.bm25 import BM25
    from researchapp.pipeline.text.tokens import tokenize
    from researchapp.pipeline.values import Source

    folder = args.data.parent.parent / "extraction"
    if not folder.exists():
        return []
    sources = [Source(i + 1, d.url, d.title, d.text) for i, d in enumerate(corpus_documents(folder))]
    documents = [list(c.tokens) for c in PassagePool(sources).candidates]
    queries = [tokenize(line) for line in QUESTIONS.read_text(encoding="utf-8").splitlines() if line.strip()]
    timings = {}
    started = time.perf_counter()
    index = BM25(documents)
    built = time.perf_counter()
    ours = [index.scores(q) for q in queries]
    timings["hand-written"] = (built - started, time.perf_counter() - built)
    started = time.perf_counter()
    library = bm25s.BM25(method="lucene", k1=1.5, b=0.75)
    library.index(documents, show_progress=False)
    built = time.perf_counter()
    theirs = [library.get_scores(q) for q in queries]
    timings["bm25s"] = (built - started, time.perf_counter() - built)
    same = sum(
        sorted(range(len(a)), key=lambda i: (-round(a[i], 5), i))[:TOP]
        == sorted(range(len(b)), key=lambda i: (-round(float(b[i]) * 2.5, 5), i))[:TOP]
        for a, b in zip(ours, theirs, strict=True)
    )
    return [
        Figure(NAME, "[120 pages] same top 8 in the same order", f"{same} of {len(queries)}"),
        *(
            Figure(
                NAME,
                f"[120 pages] {label}: index / {len(queries)} queries",
                f"{1000 * index_s:.0f} / {1000 * query_s:.0f} ms",
                note=f"{len(documents)} passages",
            )
            for label, (index_s, query_s) in timings.items()
        ),
    ]


if __name__ == "__main__":
    main(NAME, run, add_arguments)
