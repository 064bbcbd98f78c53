"""Multi-hop paragraph recall on MuSiQue and 2WikiMultihopQA dev, beside plain BM25 as the data defines it.

Each question's own paragraphs are its corpus (one source per paragraph); the planner and evidence
selection run as in a task (``bench.evidence_recall.handed_on``: the plan's sub-questions, passages
with relevance and hops, at most ``--cap`` (12) passages handed on), and a supporting paragraph is
found when a handed-on passage lies in it. Recall is computed per question and averaged, as
``../shared/data/README.md`` reports plain BM25 (the question as query over the paragraphs' title
and text, lower-cased word tokens, k1 1.5, b 0.75): MuSiQue @2 0.373, @5 0.551, @12 0.790; 2Wiki
@2 0.578, @5 0.790, @12 1.0 (ten paragraphs). The target is BM25 at 12 + 0.10 on MuSiQue.

Even lines are the tuning half, odd lines the held-back half (``--half second``), which counts.

    python -m bench.multihop_recall --data ../shared/data/multihop/musique_dev200.jsonl --half second
"""

from __future__ import annotations

import argparse
import re
from pathlib import Path

from bench.common import DATA_ROOT, Figure, main
from bench.evidence_recall import Corpus, evaluate, load_corpora

NAME = "multihop_recall"
DEPTHS = (2, 5, 12)
_WORD = re.compile(r"\w+")
MARGIN = 0.10


def bm25_recall(corpora: list[Corpus], depth: int) -> float:
    """Plain BM25 over each question's paragraphs, the supporting share of the top ``depth``, averaged."""
    from researchapp.pipeline.text.bm25 import BM25

    total = 0.0
    for corpus in corpora:
        index = BM25([_WORD.findall(f"{title} {text}".lower()) for title, text in corpus.texts])
        scores = index.scores(_WORD.findall(corpus.question.lower()))
        top = sorted(range(len(scores)), key=lambda i: (-scores[i], i))[:depth]
        gold = [source for source, _ in corpus.gold]
        total += sum(1 for source in gold if source in top) / len(gold) if gold else 1.0
    return total / len(corpora) if corpora else 0.0


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--data", type=Path, default=DATA_ROOT / "multihop" / "musique_dev200.jsonl")
    parser.add_argument("--half", choices=("all", "first", "second"), default="second")
    parser.add_argument("--cap", type=int, default=12, help="passages handed on per question, at most")
    parser.add_argument("--max-passages", type=int, default=8, help="a task's passages per sub-question")
    parser.add_argument("--limit", type=int, default=None)


def run(args: argparse.Namespace) -> list[Figure]:
    half = {"first": "even", "second": "odd"}.get(args.half, "all")
    corpora = load_corpora(args.data, args.limit, half=half)
    if not corpora or corpora[0].level != "paragraph":
        raise SystemExit(f"{args.data}: no MuSiQue-shaped records")
    baseline = {depth: bm25_recall(corpora, depth) for depth in DEPTHS}
    tally = evaluate(corpora, add_question=False, max_passages=args.max_passages, cap=args.cap)
    recall = tally.mean_recall
    musique = "musique" in args.data.name
    target = baseline[12] + MARGIN
    figures = [
        Figure(
            NAME,
            "questions",
            len(corpora),
            note=f"{args.data.name}, {sum(len(c.gold) for c in corpora)} supporting paragraphs; {args.half} "
            "half (even lines tune, odd lines are held back)",
        ),
        *(
            Figure(NAME, f"[plain BM25] paragraph recall @{depth}", round(baseline[depth], 4))
            for depth in DEPTHS
        ),
        Figure(
            NAME,
            f"[plan] paragraph recall, <= {args.cap} passages",
            round(recall, 4),
            target=f">= BM25@12 + {MARGIN:.2f} = {target:.3f}" if musique else "",
            met=(recall >= target) if musique else None,
            note=f"micro (found/gold) {tally.found / max(tally.gold, 1):.4f}",
        ),
        Figure(NAME, "[plan] passages/question", round(tally.passages / tally.questions, 2)),
        Figure(NAME, "[plan] passage chars/question", round(tally.chars / tally.questions)),
    ]
    return figures


if __name__ == "__main__":
    main(NAME, run, add_arguments)
