"""Evidence recall: do the planner and the evidence stage hand on the passages that hold the answer?

Each question's own paragraphs are its whole corpus (one source per title for HotpotQA, one per
paragraph for MuSiQue). The question goes through what a task runs: ``plan_extractive`` gives the
sub-questions, and ``select_passages`` picks passages for each, over sources whose density is
computed by the collect stage's own ``density``. The passages of all sub-questions are united,
deduplicated and capped at ``--cap`` (12) per question by score: that is what is handed on.

Found, HotpotQA (sentence level): a gold supporting sentence is found when at least half of its
characters lie inside selected passages; "strict" recall asks for the whole sentence.
Found, MuSiQue (paragraph level): a supporting paragraph is found when a selected passage lies in it.

Two variants are reported: "plan" (only the plan's sub-questions, as a task does) and
"plan+question" (the question itself added as one more sub-question).

    python -m bench.evidence_recall --data ../shared/data/multihop/hotpotqa_train100.jsonl
    python -m bench.evidence_recall --data bench/fixtures/musique_sample.jsonl
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from bench import musique_style
from bench.common import DATA_ROOT, Figure, main, require_path

NAME = "evidence_recall"
Span = tuple[int, int]


@dataclass
class Corpus:
    """One question's sources, and where each gold unit (sentence or paragraph) sits in them."""

    question: str
    texts: list[tuple[str, str]] = field(default_factory=list)  # (title, text) per source
    gold: list[tuple[int, Span]] = field(default_factory=list)  # (source index, span)
    level: str = "sentence"


def _join(sentences: Sequence[str]) -> tuple[str, list[Span]]:
    """Sentences joined with one space; HotpotQA's own leading spaces are dropped first."""
    text, spans = "", []
    for sentence in sentences:
        sentence = sentence.strip()
        if text and sentence:
            text += " "
        spans.append((len(text), len(text) + len(sentence)))
        text += sentence
    return text, spans


def hotpot_corpus(record: dict) -> Corpus:
    corpus = Corpus(record["question"], level="sentence")
    wanted = {(title, index) for title, index in record.get("supporting_facts", [])}
    for title, sentences in record["context"]:
        text, spans = _join(sentences)
        source_index = len(corpus.texts)
        corpus.texts.append((title, text))
        corpus.gold += [
            (source_index, spans[i])
            for i in range(len(spans))
            if (title, i) in wanted and spans[i][1] > spans[i][0]
        ]
    return corpus


def musique_corpus(record: dict) -> Corpus:
    corpus = Corpus(record["question"], level="paragraph")
    for paragraph in record["paragraphs"]:
        text = paragraph["paragraph_text"].strip()
        corpus.texts.append((paragraph.get("title", ""), text))
        if paragraph.get("is_supporting"):
            corpus.gold.append((len(corpus.texts) - 1, (0, len(text))))
    return corpus


def load_corpora(
    path: Path, limit: int | None = None, *, style: str = "native", half: str = "all"
) -> list[Corpus]:
    """HotpotQA or MuSiQue records, told apart by their keys.

    ``style="musique"`` turns HotpotQA records into MuSiQue-style ones (``bench.musique_style``);
    ``half`` keeps the first or the second half of the file (thresholds are tuned on the first,
    the second is held back and reported).
    """
    corpora = []
    with require_path(path).open(encoding="utf-8") as lines:
        records = [json.loads(line) for line in lines if line.strip()]
    if style == "musique" and records and "context" in records[0]:
        records = musique_style.build(records)
    middle = len(records) // 2
    halves = {
        "first": records[:middle],
        "second": records[middle:],
        "even": records[0::2],
        "odd": records[1::2],
    }
    records = halves.get(half, records)
    for record in records:
        if "paragraphs" in record:
            corpora.append(musique_corpus(record))
        elif "context" in record and "supporting_facts" in record:
            corpora.append(hotpot_corpus(record))
        else:
            raise SystemExit(f"{path}: a record with neither HotpotQA nor MuSiQue keys: {sorted(record)}")
        if limit and len(corpora) >= limit:
            break
    return corpora


# --- selecting, the way a task does -------------------------------------------------------------


def subquestions_for(question: str, *, add_question: bool, sources=()):
    """The plan's sub-questions, a comparison's from the dimensions ``sources`` discuss (as a task's
    dimension probe finds them in its corpus)."""
    from researchapp.pipeline.collector.dimensions import discussed_dimensions
    from researchapp.pipeline.planner.extractive import plan_extractive
    from researchapp.pipeline.values import SubQuestion

    plan = plan_extractive(question, dimensions=discussed_dimensions(question, sources) if sources else None)
    subquestions = [
        SubQuestion(id=i + 1, text=sq.text, queries=sq.queries, order=i)
        for i, sq in enumerate(plan.subquestions)
    ]
    if add_question:
        subquestions.append(
            SubQuestion(id=len(subquestions) + 1, text=question, queries=(question,), order=len(subquestions))
        )
    return subquestions


def sources_for(corpus: Corpus):
    from researchapp.pipeline.collector.clusters import density
    from researchapp.pipeline.values import Source

    return [
        Source(
            id=i + 1,
            url=f"https://bench.invalid/{i + 1}",
            title=title,
            text=text,
            host=f"s{i + 1}",
            density=density(text),
            cluster=f"s{i + 1}",
        )
        for i, (title, text) in enumerate(corpus.texts)
    ]


def handed_on(corpus: Corpus, *, add_question: bool, max_passages: int, cap: int):
    """The union of every sub-question's passages, each once, the best ``cap`` by score."""
    from researchapp.pipeline.collector.hops import select_with_hops

    sources = sources_for(corpus)
    best: dict[tuple[int, int, int], object] = {}
    for subquestion in subquestions_for(corpus.question, add_question=add_question, sources=sources):
        for passage in select_with_hops(
            subquestion, sources, max_passages=max_passages, question=corpus.question
        ):
            key = (passage.source_id, passage.start, passage.end)
            if key not in best or passage.score > best[key].score:
                best[key] = passage
    return sorted(best.values(), key=lambda p: -p.score)[:cap]


def plain_bm25(corpus: Corpus, *, limit: int):
    """The baseline to beat: BM25 over the same passages, the question as the only query, top ``limit``."""
    from researchapp.pipeline.collector.splitting import passages_with_headings
    from researchapp.pipeline.text.bm25 import BM25
    from researchapp.pipeline.text.tokens import tokenize
    from researchapp.pipeline.values import Passage

    cut = [
        (source, start, end)
        for source in sources_for(corpus)
        for (start, end), _ in passages_with_headings(source.text)
    ]
    index = BM25([tokenize(f"{source.title} {source.text[start:end]}") for source, start, end in cut])
    return [
        Passage(cut[i][0].id, cut[i][1], cut[i][2], cut[i][0].text[cut[i][1] : cut[i][2]], score)
        for i, score in index.top(tokenize(corpus.question), limit)
    ]


def _covered(span: Span, passages: Sequence[Span]) -> int:
    """Characters of ``span`` inside the union of ``passages``."""
    start, end = span
    points = sorted((max(start, s), min(end, e)) for s, e in passages if s < end and e > start)
    covered, reach = 0, start
    for s, e in points:
        s = max(s, reach)
        if e > s:
            covered += e - s
            reach = e
    return covered


@dataclass
class Tally:
    gold: int = 0
    found: int = 0
    found_strict: int = 0
    passages: int = 0
    chars: int = 0
    questions: int = 0
    shares: float = 0.0  # the sum of each question's own recall: its mean is the README's figure

    def add(self, corpus: Corpus, passages) -> None:
        self.questions += 1
        before = self.found
        self.passages += len(passages)
        self.chars += sum(len(p.quote) for p in passages)
        by_source: dict[int, list[Span]] = {}
        for p in passages:
            by_source.setdefault(p.source_id - 1, []).append((p.start, p.end))
        for source_index, span in corpus.gold:
            spans = by_source.get(source_index, [])
            self.gold += 1
            if corpus.level == "paragraph":
                hit = bool(spans)
                self.found += hit
                self.found_strict += hit
                continue
            covered = _covered(span, spans)
            self.found += covered * 2 >= span[1] - span[0]
            self.found_strict += covered == span[1] - span[0]
        self.shares += (self.found - before) / len(corpus.gold) if corpus.gold else 1.0

    @property
    def mean_recall(self) -> float:
        """Recall per question, averaged over questions (how the data's README reports BM25)."""
        return self.shares / self.questions if self.questions else 0.0


def evaluate(corpora: Sequence[Corpus], *, add_question: bool, max_passages: int, cap: int) -> Tally:
    tally = Tally()
    for corpus in corpora:
        tally.add(corpus, handed_on(corpus, add_question=add_question, max_passages=max_passages, cap=cap))
    return tally


def evaluate_baseline(corpora: Sequence[Corpus], *, limit: int) -> Tally:
    tally = Tally()
    for corpus in corpora:
        tally.add(corpus, plain_bm25(corpus, limit=limit))
    return tally


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--data", type=Path, default=DATA_ROOT / "multihop" / "hotpotqa_train100.jsonl")
    parser.add_argument(
        "--max-passages",
        type=int,
        default=8,
        help="select_passages' max_passages per sub-question (a task's default: 8)",
    )
    parser.add_argument("--cap", type=int, default=12, help="passages handed on per question, at most")
    parser.add_argument("--limit", type=int, default=None)
    parser.add_argument(
        "--target",
        type=float,
        default=None,
        help="recall to reach (default: 0.95 for HotpotQA's sentences, 0.85 for MuSiQue's paragraphs)",
    )
    parser.add_argument(
        "--style",
        choices=("native", "musique"),
        default="native",
        help="musique: turn HotpotQA records into MuSiQue-style ones (20 paragraphs, hard distractors)",
    )
    parser.add_argument(
        "--half",
        choices=("all", "first", "second"),
        default="all",
        help="first: the half thresholds were tuned on; second: the held-back half",
    )


def run(args: argparse.Namespace) -> list[Figure]:
    corpora = load_corpora(args.data, args.limit, style=args.style, half=args.half)
    if not corpora:
        raise SystemExit(f"{args.data}: no records")
    level = corpora[0].level
    figures = [
        Figure(
            NAME,
            "questions",
            len(corpora),
            note=f"{level}-level gold, {sum(len(c.gold) for c in corpora)} units; {args.style} style, "
            f"{args.half} of the file",
        )
    ]
    baseline = evaluate_baseline(corpora, limit=args.max_passages)
    figures.append(
        Figure(
            NAME,
            f"[plain BM25, question as query, top {args.max_passages}] {level} recall",
            round(baseline.found / max(baseline.gold, 1), 4),
            note="the one-shot baseline the pipeline must beat",
        )
    )
    target = args.target if args.target is not None else (0.95 if level == "sentence" else 0.85)
    for label, add_question in (("plan", False), ("plan+question", True)):
        tally = evaluate(corpora, add_question=add_question, max_passages=args.max_passages, cap=args.cap)
        recall = tally.found / tally.gold if tally.gold else 0.0
        mean_passages = tally.passages / tally.questions
        task_variant = not add_question
        figures += [
            Figure(
                NAME,
                f"[{label}] {level} recall",
                round(recall, 4),
                target=f">= {target:.2f} with <= 12 passages" if task_variant else "",
                met=(recall >= target and mean_passages <= 12) if task_variant else None,
            ),
            *(
                [
                    Figure(
                        NAME,
                        f"[{label}] {level} recall, whole sentence inside",
                        round(tally.found_strict / max(tally.gold, 1), 4),
                    )
                ]
                if level == "sentence"
                else []
            ),
            Figure(NAME, f"[{label}] passages/question", round(mean_passages, 2)),
            Figure(NAME, f"[{label}] passage chars/question", round(tally.chars / tally.questions)),
        ]
    return figures


if __name__ == "__main__":
    main(NAME, run, add_arguments)
