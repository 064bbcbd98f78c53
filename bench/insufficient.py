"""Insufficient-evidence detection on real claims: does the flag [证据不足] go up when it should?

Each claim is checked against its own cited article and nothing else. The article's sentences are
joined with newlines (each sentence a line, as an extractor's output has; spans kept), the claim is
the sub-question (``SubQuestion(id=1, text=claim, queries=(claim,))``), ``select_passages`` picks
passages with a task's default ``max_passages`` (8), and ``analyse_extractive`` analyses them. The
claim is flagged when the analysis yields only ``insufficient`` findings (nothing supported, no
conflict), which is what shows as [证据不足] to an analyst.

Figures: precision and recall of the flag with ``not_supported`` as the positive class
(``partially_supported`` and ``supported`` claims that get flagged are false positives), the flag
rate per label, and, for ``supported`` claims, sentence recall: a sentence that any annotator
marked as supporting (union over annotators) is covered when at least half of its characters lie
in selected passages.

    python -m bench.insufficient --data ../shared/data/claims/wice_dev.jsonl
"""

from __future__ import annotations

import argparse
import json
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from bench.common import DATA_ROOT, Figure, main, require_path
from bench.evidence_recall import _covered

NAME = "insufficient"
POSITIVE = "not_supported"


def article(sentences: list[str], joiner: str) -> tuple[str, list[tuple[int, int]]]:
    text, spans = "", []
    for sentence in sentences:
        sentence = sentence.strip()
        if text:
            text += joiner
        spans.append((len(text), len(text) + len(sentence)))
        text += sentence
    return text, spans


def judge(record: dict, *, max_passages: int, joiner: str):
    """(flagged?, selected passages, sentence spans) for one claim."""
    from researchapp.core.enums import FindingStatus
    from researchapp.pipeline.analyser.extractive import analyse_extractive
    from researchapp.pipeline.collector.clusters import density
    from researchapp.pipeline.collector.passages import select_passages
    from researchapp.pipeline.values import Evidence, Source, SubQuestion

    text, spans = article(record["evidence"], joiner)
    source = Source(
        id=1,
        url="https://claims.invalid/article",
        title="",
        text=text,
        host="claims.invalid",
        density=density(text),
        cluster="c1",
    )
    claim = " ".join(record["claim"].split())
    subquestion = SubQuestion(id=1, text=claim, queries=(claim,))
    passages = select_passages(subquestion, [source], max_passages=max_passages, question=claim)
    evidence = [
        Evidence(
            id=i + 1,
            source_id=1,
            subquestion_id=1,
            start=p.start,
            end=p.end,
            quote=p.quote,
            score=p.score,
            source_url=source.url,
            source_title=source.title,
            cluster=source.cluster,
        )
        for i, p in enumerate(passages)
    ]
    findings = analyse_extractive(subquestion, evidence)
    flagged = all(finding.status == FindingStatus.INSUFFICIENT for finding in findings)
    return flagged, passages, spans


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--data", type=Path, default=DATA_ROOT / "claims" / "wice_dev.jsonl")
    parser.add_argument("--max-passages", type=int, default=8)
    parser.add_argument(
        "--join",
        choices=("newline", "space"),
        default="newline",
        help="how the article's sentences are joined into one text",
    )
    parser.add_argument("--limit", type=int, default=None)
    parser.add_argument(
        "--half",
        choices=("all", "first", "second"),
        default="all",
        help="first: the half thresholds were tuned on (even lines); second: the held-back half (odd lines)",
    )


@dataclass
class Tally:
    """What the claims came to: per label, how many and how many flagged; for ``supported`` claims,
    the annotated sentences and those the passages cover; passages and their characters in all."""

    labels: Counter[str] = field(default_factory=Counter)
    flagged: Counter[str] = field(default_factory=Counter)
    gold_sentences: int = 0
    covered_sentences: int = 0
    passages: int = 0
    chars: int = 0

    def add(self, record: dict, flagged: bool, passages: list, spans: list[tuple[int, int]]) -> None:
        label = record["label"]
        self.labels[label] += 1
        self.flagged[label] += flagged
        self.passages += len(passages)
        self.chars += sum(len(p.quote) for p in passages)
        if label != "supported":
            return
        wanted = {i for annotator in record.get("supporting_sentences", []) for i in annotator}
        selected = [(p.start, p.end) for p in passages]
        for index in wanted:
            if 0 <= index < len(spans) and spans[index][1] > spans[index][0]:
                self.gold_sentences += 1
                start, end = spans[index]
                self.covered_sentences += _covered((start, end), selected) * 2 >= end - start


def figures_of(tally: Tally, claims: int, half: str) -> list[Figure]:
    labels, flagged = tally.labels, tally.flagged
    true_positive = flagged[POSITIVE]
    flagged_total = sum(flagged.values())
    precision = true_positive / flagged_total if flagged_total else 0.0
    recall = true_positive / labels[POSITIVE] if labels[POSITIVE] else 0.0
    return [
        Figure(NAME, "claims", claims, note=", ".join(f"{k} {v}" for k, v in sorted(labels.items()))),
        Figure(
            NAME,
            "[证据不足] precision (not_supported)",
            round(precision, 4),
            target=">= 0.8 at recall >= 0.6",
            met=precision >= 0.8 and recall >= 0.6,
            note=f"{half} half of the file (even lines were the tuning half)",
        ),
        Figure(
            NAME, "[证据不足] recall (not_supported)", round(recall, 4), target=">= 0.6", met=recall >= 0.6
        ),
        *(
            Figure(
                NAME,
                f"flag rate, {label}",
                round(flagged[label] / labels[label], 4),
                note=f"{flagged[label]} of {labels[label]}",
            )
            for label in sorted(labels)
        ),
        Figure(
            NAME,
            "supported: sentence recall (union of annotators)",
            round(tally.covered_sentences / tally.gold_sentences, 4) if tally.gold_sentences else None,
            note=f"{tally.covered_sentences} of {tally.gold_sentences} sentences",
        ),
        Figure(NAME, "passages/claim", round(tally.passages / max(claims, 1), 2)),
        Figure(NAME, "passage chars/claim", round(tally.chars / max(claims, 1))),
    ]


def run(args: argparse.Namespace) -> list[Figure]:
    joiner = "\n" if args.join == "newline" else " "
    with require_path(args.data).open(encoding="utf-8") as lines:
        records = [json.loads(line) for line in lines if line.strip()][: args.limit]
    records = {"first": records[0::2], "second": records[1::2]}.get(args.half, records)
    tally = Tally()
    for record in records:
        tally.add(record, *judge(record, max_passages=args.max_passages, joiner=joiner))
    return figures_of(tally, len(records), args.half)


if __name__ == "__main__":
    main(NAME, run, add_arguments)
