"""SQuAD 2.0: is the sentence that answers handed on, and is "not answerable" said when it is true?

The 87 paragraphs of ``qa/squad2_dev500_contexts.jsonl`` (two whole Wikipedia articles) are the
corpus, one source per ``context_id``; each question of ``qa/squad2_dev500.jsonl`` is asked on its
own and goes through what a task runs up to its findings (``bench.task_run``: plan with validation
and probe, collection with relevance and hops, analysis). Scored as ``../shared/data/README.md`` says:

- *answer-sentence recall* (answerable questions): the question's context is split into sentences;
  the answer sentences are those holding one of ``answers``; the question counts when a passage
  handed on covers one of them whole. At most ``--cap`` (5) passages are handed on: the passages
  the findings stand on first (what the report states), then the rest of the evidence by score;
- *"not answerable"*: every finding is [证据不足]; its recall over the ``is_impossible`` questions
  and its precision, with how often it is said of answerable questions beside them.

Even lines are the tuning half, odd lines the held-back half (``--half second``), which counts.

    python -m bench.squad2 --data ../shared/data/qa --half second
"""

from __future__ import annotations

import argparse
import json
from dataclasses import dataclass
from pathlib import Path

from bench.common import DATA_ROOT, Figure, main, require_path

NAME = "squad2"


@dataclass
class Outcome:
    record: dict
    called_unanswerable: bool
    covered: bool  # a handed-on passage covers an answer sentence (answerable questions)
    passages: int
    failed: str


def url_of(context_id: str) -> str:
    """A paragraph's URL: ``Normans#00`` -> ``corpus://squad2/Normans/00``.

    The fragment must become a path segment: URL normalisation drops fragments (one page, one
    source), which would fold an article's paragraphs into its first one.
    """
    return "corpus://squad2/" + context_id.replace("#", "/")


def corpus_of(path: Path):
    from researchapp.pipeline.collector.local import LocalCorpus
    from researchapp.providers.base import Document

    documents = [
        Document(url_of(c["context_id"]), c["title"], c["text"], extraction="corpus")
        for c in map(json.loads, require_path(path).read_text(encoding="utf-8").splitlines())
    ]
    return LocalCorpus(documents), {d.url: d.text for d in documents}


def handed_on(run, cap: int) -> list:
    """The passages the findings stand on, then the rest of the evidence by score, ``cap`` at most."""
    from researchapp.core.enums import FindingStatus

    cited = [
        link.evidence_id
        for finding in run.findings
        if finding.status is not FindingStatus.INSUFFICIENT
        for link in finding.links
    ]
    clearing = sorted((e for e in run.evidence if e.clears_bar), key=lambda e: (-e.score, e.id))
    by_id = {e.id: e for e in run.evidence}
    ordered = [by_id[i] for i in dict.fromkeys(cited) if i in by_id] + clearing
    seen, chosen = set(), []
    for item in ordered:
        key = (item.source_url, item.start, item.end)
        if key not in seen:
            seen.add(key)
            chosen.append(item)
    return chosen[:cap]


def answer_spans(text: str, answers: list[str]) -> list[tuple[int, int]]:
    from researchapp.pipeline.text.sentences import split_sentences

    return [
        (start, end)
        for start, end in split_sentences(text)
        if any(answer and answer.lower() in text[start:end].lower() for answer in answers)
    ]


def judge(record: dict, corpus, texts: dict[str, str], cap: int) -> Outcome:
    from bench.task_run import run_task
    from researchapp.core.enums import FindingStatus

    run = run_task(record["question"], corpus, write=False)
    passages = handed_on(run, cap)
    url = url_of(record["context_id"])
    wanted = answer_spans(texts[url], record.get("answers", [])) if not record["is_impossible"] else []
    covered = any(
        item.source_url == url and item.start <= start and end <= item.end
        for item in passages
        for start, end in wanted
    )
    return Outcome(
        record,
        bool(run.findings) and all(f.status is FindingStatus.INSUFFICIENT for f in run.findings),
        covered,
        len(passages),
        run.error,
    )


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--data", type=Path, default=DATA_ROOT / "qa")
    parser.add_argument(
        "--half",
        choices=("all", "first", "second"),
        default="second",
        help="first: the tuning half (even lines); second: the held-back half (odd lines)",
    )
    parser.add_argument("--cap", type=int, default=5, help="passages handed on per question, at most")
    parser.add_argument("--limit", type=int, default=None)
    parser.add_argument("--verbose", action="store_true", help="print each miss")


def run(args: argparse.Namespace) -> list[Figure]:
    corpus, texts = corpus_of(args.data / "squad2_dev500_contexts.jsonl")
    lines = require_path(args.data / "squad2_dev500.jsonl").read_text(encoding="utf-8").splitlines()
    records = [json.loads(line) for line in lines if line.strip()]
    records = {"first": records[0::2], "second": records[1::2]}.get(args.half, records)[: args.limit]
    outcomes = [judge(record, corpus, texts, args.cap) for record in records]
    answerable = [o for o in outcomes if not o.record["is_impossible"]]
    impossible = [o for o in outcomes if o.record["is_impossible"]]
    if args.verbose:
        for o in outcomes:
            wrong = (not o.covered) if not o.record["is_impossible"] else not o.called_unanswerable
            if wrong:
                kind = "impossible" if o.record["is_impossible"] else "answerable"
                print(f"MISS {kind} unanswerable={o.called_unanswerable} | {o.record['question']}")
    covered = sum(o.covered for o in answerable)
    true_calls = sum(o.called_unanswerable for o in impossible)
    false_calls = sum(o.called_unanswerable for o in answerable)
    recall = true_calls / len(impossible) if impossible else 0.0
    precision = true_calls / (true_calls + false_calls) if true_calls + false_calls else 0.0
    failed = sum(bool(o.failed) for o in outcomes)
    return [
        Figure(
            NAME,
            "questions",
            len(outcomes),
            note=f"{len(answerable)} answerable, {len(impossible)} is_impossible; {args.half} half "
            "(even lines tune, odd lines are held back)",
        ),
        Figure(
            NAME,
            f"answer-sentence recall, <= {args.cap} passages",
            round(covered / len(answerable), 4) if answerable else None,
            target=">= 0.9",
            met=bool(answerable) and covered >= 0.9 * len(answerable),
            note=f"{covered} of {len(answerable)}; plain BM25's top 5 paragraphs hold it for 0.945",
        ),
        Figure(
            NAME,
            "passages handed on/question",
            round(sum(o.passages for o in outcomes) / max(len(outcomes), 1), 2),
        ),
        Figure(
            NAME,
            "'not answerable' recall",
            round(recall, 4),
            target=">= 0.6",
            met=recall >= 0.6,
            note=f"{true_calls} of {len(impossible)}",
        ),
        Figure(
            NAME,
            "'not answerable' precision",
            round(precision, 4),
            target=">= 0.8",
            met=precision >= 0.8,
            note=f"said of {false_calls} of {len(answerable)} answerable questions",
        ),
        Figure(NAME, "tasks failed", failed, target="0", met=failed == 0),
    ]


if __name__ == "__main__":
    main(NAME, run, add_arguments)
