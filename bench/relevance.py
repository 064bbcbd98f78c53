"""Relevance: does the desk answer what its corpus answers, and say "[证据不足]" for what it does not?

The corpus is the 120 real pages of ``../shared/data/extraction`` (their hand-checked article text,
one local-corpus document each). ``bench/fixtures/relevance_questions.jsonl`` holds questions
written for this benchmark: 20 whose answer one page states (with the answer's words), and 20
near misses whose subject is in a page but whose asked-for fact is not ("the population of
Braunau am Inn", where a page tells of the house in Braunau where Hitler was born).

Each question goes through what a task runs, in process: the validated extractive plan, the
answerability probe per sub-question, collection over the corpus (search, open, select passages
with relevance and bridge hops), extractive analysis of what cleared the bar, and the extractive
writer. The "not answerable" call is "every finding is [证据不足]"; precision and recall of that
call are reported, with the probe's own call ("no sub-question covered") beside it, and for
answerable questions whether the report's direct answer (its first section) states the answer.

Thresholds were tuned on the first half (even lines); ``--half second`` is the held-back half.

    python -m bench.relevance --data ../shared/data/extraction --half second
"""

from __future__ import annotations

import argparse
import json
from dataclasses import dataclass
from pathlib import Path

from bench.common import DATA_ROOT, PROJECT_ROOT, Figure, main, require_path

NAME = "relevance"
QUESTIONS = PROJECT_ROOT / "bench" / "fixtures" / "relevance_questions.jsonl"


@dataclass
class Outcome:
    question: str
    answerable: bool
    called_unanswerable: bool
    probe_unanswerable: bool
    answer_stated: bool
    answer_text: str


def corpus_documents(folder: Path):
    from researchapp.providers.base import Document

    truth = json.loads(require_path(folder / "ground-truth.json").read_text(encoding="utf-8"))
    return [
        Document(url=record["url"], title="", text=record["articleBody"], extraction="corpus")
        for _, record in sorted(truth.items())
        if record.get("articleBody", "").strip()
    ]


def run_question(question: str, corpus) -> tuple[list, list, object]:
    """(probe coverage per sub-question, findings, draft) for one question, as a task would
    (``bench.task_run``: plan, probe, collect, select, analyse, write)."""
    from bench.task_run import run_task

    run = run_task(question, corpus)
    return run.coverage, run.findings, run.draft


def evidence_of(evidence_id: int, subquestion_id: int, passage, cluster: str):
    """A selected passage as the analysis sees a stored one (source ids kept apart per sub-question)."""
    from researchapp.pipeline.values import Evidence

    return Evidence(
        id=evidence_id,
        source_id=passage.source_id + 1000 * subquestion_id,
        subquestion_id=subquestion_id,
        start=passage.start,
        end=passage.end,
        quote=passage.quote,
        score=passage.score,
        cluster=cluster,
        relevance=passage.relevance,
        question_relevance=passage.question_relevance,
        matched_terms=passage.matched_terms,
        clears_bar=passage.clears_bar,
    )


def judge(record: dict, corpus) -> Outcome:
    from researchapp.core.enums import FindingStatus

    coverage, findings, draft = run_question(record["question"], corpus)
    answer = " ".join(claim.text for claim in draft.claims if claim.section == "answer") if draft else ""
    expected = record.get("answer", "")
    return Outcome(
        question=record["question"],
        answerable=bool(record["answerable"]),
        called_unanswerable=all(f.status is FindingStatus.INSUFFICIENT for f in findings),
        probe_unanswerable=not any(c.covered for c in coverage),
        answer_stated=bool(expected) and expected.lower() in answer.lower(),
        answer_text=answer,
    )


def precision_recall(outcomes: list[Outcome], called) -> tuple[float, float]:
    positives = [o for o in outcomes if not o.answerable]
    flagged = [o for o in outcomes if called(o)]
    true_positive = sum(1 for o in flagged if not o.answerable)
    precision = true_positive / len(flagged) if flagged else 0.0
    recall = true_positive / len(positives) if positives else 0.0
    return precision, recall


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--data", type=Path, default=DATA_ROOT / "extraction")
    parser.add_argument("--questions", type=Path, default=QUESTIONS)
    parser.add_argument("--half", choices=("all", "first", "second"), default="second")
    parser.add_argument("--verbose", action="store_true", help="print each question's outcome")


def run(args: argparse.Namespace) -> list[Figure]:
    from researchapp.pipeline.collector.local import LocalCorpus

    corpus = LocalCorpus(corpus_documents(args.data))
    records = [
        json.loads(line) for line in args.questions.read_text(encoding="utf-8").splitlines() if line.strip()
    ]
    # Lines alternate in each half so both hold answerable and unanswerable questions.
    records = {"first": records[0::2], "second": records[1::2]}.get(args.half, records)
    outcomes = [judge(record, corpus) for record in records]
    if args.verbose:
        for o in outcomes:
            mark = "ok " if o.called_unanswerable != o.answerable else "BAD"
            calls = f"called_unanswerable={o.called_unanswerable} probe={o.probe_unanswerable}"
            print(f"{mark} answerable={o.answerable} {calls} stated={o.answer_stated} | {o.question}")
    precision, recall = precision_recall(outcomes, lambda o: o.called_unanswerable)
    probe_precision, probe_recall = precision_recall(outcomes, lambda o: o.probe_unanswerable)
    answerable = [o for o in outcomes if o.answerable]
    stated = sum(o.answer_stated for o in answerable)
    unanswerable = len(outcomes) - len(answerable)
    return [
        Figure(
            NAME,
            "questions",
            len(outcomes),
            note=f"{len(answerable)} answerable, {unanswerable} not; {args.half} half (tuned on the first)",
        ),
        Figure(
            NAME, "'not answerable' precision", round(precision, 4), target=">= 0.9", met=precision >= 0.9
        ),
        Figure(NAME, "'not answerable' recall", round(recall, 4), target=">= 0.9", met=recall >= 0.9),
        Figure(
            NAME,
            "probe's call: precision / recall",
            f"{probe_precision:.2f} / {probe_recall:.2f}",
            note="no sub-question covered at the plan gate",
        ),
        Figure(
            NAME,
            "answerable: answer stated in the report's first section",
            f"{stated} of {len(answerable)}",
            note="the expected words in the direct answer's claims",
        ),
    ]


if __name__ == "__main__":
    main(NAME, run, add_arguments)
