"""Manual QA: does the report answer what a real manual states, and say [证据不足] for what it does not?

``qa/docs_questions.jsonl`` (50 questions over the SQLite 3.40 and Git 2.39 manuals as Debian ships
them, written for this project over pages nobody here wrote) is scored as ``../shared/data/README.md``
says. The corpus of a question is its manual's folder, one source per page, each page's text taken
by the project's one extraction path (``extract_html``, as ``corpus_import`` does). Each question
goes through what a task runs, in process (``bench.task_run``: plan with validation and probe,
collection with relevance and hops, analysis, the writer and its checker with revisions).

- *answered* (answerable questions): one of the report's own statements (its claims, not the
  closest passages quoted under a [证据不足] item, not a dispute's neutral line) contains one of
  ``answers`` (case-insensitive) and cites a quote from one of ``pages``;
- *honest* (unanswerable questions): every finding is [证据不足];
- the cost: answerable questions whose every finding is [证据不足];
- *failed*: the draft still fails its checks after the revisions (``quality_failed``) or a stage raised.

Even lines are the tuning half, odd lines the held-back half (``--half second``), which counts.

    python -m bench.docs_qa --data ../shared/data/qa --half second
"""

from __future__ import annotations

import argparse
import json
from collections import defaultdict
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from bench.common import DATA_ROOT, Figure, main, require_path

NAME = "docs_qa"
DISPUTED = "disputed"


@dataclass
class Outcome:
    record: dict
    answered: bool
    all_insufficient: bool
    failed: str
    stated: str  # the report's own statements, for --verbose

    @property
    def honest(self) -> bool:
        return self.all_insufficient and not self.failed


SEARCH = {"in": "memory"}  # --search: "database" imports each manual and searches it there


@cache
def manual_corpus(folder: Path):
    """The manual's pages as a local corpus: ``corpus://<manual>/<page>``, as ``corpus_import`` names them."""
    if SEARCH["in"] == "database":
        return database_corpus(folder)
    from researchapp.pipeline.collector.local import LocalCorpus
    from researchapp.providers.base import Document
    from researchapp.providers.fetch.extract import extract_html

    documents = []
    for page in sorted(require_path(folder).glob("*.html")):
        title, text, published = extract_html(page.read_text(encoding="utf-8"), "")
        if text.strip():
            url = f"corpus://{folder.name}/{page.name}"
            documents.append(Document(url, title or page.stem, text, published, extraction="corpus"))
    return LocalCorpus(documents)


def database_corpus(folder: Path):
    """The manual imported by ``corpus_import`` into a scratch SQLite database and searched there,
    as a task searches it (``IndexedCorpus``: FTS5 candidates re-ranked by BM25)."""
    from bench.docs_zh import setup_django

    if not SEARCH.get("ready"):
        setup_django()
        SEARCH["ready"] = "yes"
    from researchapp.models import Corpus
    from researchapp.pipeline.collector.corpus import IndexedCorpus
    from researchapp.pipeline.runner.corpus_index import DatabaseIndex
    from researchapp.services.corpus import corpus_import

    corpus_import(path=require_path(folder), name=folder.name)
    return IndexedCorpus(DatabaseIndex(Corpus.objects.get(name=folder.name)))


def page_of(url: str) -> str:
    return url.rsplit("/", 1)[-1]


def judge(record: dict, data: Path) -> Outcome:
    from bench.task_run import run_task
    from researchapp.core.enums import FindingStatus

    run = run_task(record["question"], manual_corpus(data / "docs" / record["manual"]))
    pages = set(record.get("pages", ()))
    answers = [answer.lower() for answer in record.get("answers", ())]
    statements = [claim for claim in (run.draft.claims if run.draft else ()) if claim.section != DISPUTED]
    answered = any(
        any(answer in claim.text.lower() for answer in answers)
        and any(page_of(run.source_url(i)) in pages for i in claim.evidence_ids)
        for claim in statements
    )
    failed = run.error or ("; ".join(issue.message for issue in run.issues[:2]) if run.issues else "")
    return Outcome(
        record,
        answered and not failed,
        bool(run.findings) and all(f.status is FindingStatus.INSUFFICIENT for f in run.findings),
        failed,
        " | ".join(claim.text for claim in statements),
    )


def records_of(path: Path, half: str) -> list[dict]:
    records = [
        json.loads(line)
        for line in require_path(path).read_text(encoding="utf-8").splitlines()
        if line.strip()
    ]
    return {"first": records[0::2], "second": records[1::2]}.get(half, records)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--data", type=Path, default=DATA_ROOT / "qa")
    parser.add_argument(
        "--half",
        choices=("all", "first", "second"),
        default="second",
        help="first: the tuning half (even lines); second: the held-back half (odd lines)",
    )
    parser.add_argument("--only", default="", help="comma-separated question ids")
    parser.add_argument("--verbose", action="store_true", help="print each question's outcome")
    parser.add_argument(
        "--search",
        choices=("memory", "database"),
        default="memory",
        help="database: import each manual and search it in the database, as a task does",
    )


def _rate(part: int, whole: int) -> float | None:
    return round(part / whole, 4) if whole else None


def print_outcomes(outcomes: list[Outcome]) -> None:
    for o in outcomes:
        r = o.record
        mark = ("ok " if o.answered else "MISS") if r["answerable"] else ("ok " if o.honest else "LIED")
        print(f"{mark} {r['id']} [{r['kind']}/{r['language']}] {r['question']}")
        print(f"     failed: {o.failed}" if o.failed else f"     stated: {o.stated[:400]}")


def kind_figures(answerable: list[Outcome]) -> list[Figure]:
    """The answered rate of each kind of question."""
    figures = []
    by_kind: dict[str, list[Outcome]] = defaultdict(list)
    for o in answerable:
        by_kind[o.record["kind"]].append(o)
    for kind, own in sorted(by_kind.items()):
        hits = sum(o.answered for o in own)
        figures.append(Figure(NAME, f"answered, {kind}", _rate(hits, len(own)), note=f"{hits} of {len(own)}"))
    return figures


def honesty_figures(
    answerable: list[Outcome], unanswerable: list[Outcome], outcomes: list[Outcome]
) -> list[Figure]:
    """Unanswerable questions kept as [证据不足], the cost on answerable ones, and failed tasks."""
    honest = sum(o.honest for o in unanswerable)
    cost = sum(o.all_insufficient for o in answerable)
    failed = sum(bool(o.failed) for o in outcomes)
    figures: list[Figure] = []
    figures += [
        Figure(
            NAME,
            "unanswerable kept as [证据不足] (honest)",
            _rate(honest, len(unanswerable)),
            target=">= 0.9",
            met=honest >= 0.9 * len(unanswerable),
            note=f"{honest} of {len(unanswerable)}",
        ),
        Figure(
            NAME,
            "answerable called [证据不足] (the cost)",
            _rate(cost, len(answerable)),
            note=f"{cost} of {len(answerable)}",
        ),
        Figure(NAME, "tasks failed", failed, target="0", met=failed == 0),
    ]
    return figures


def run(args: argparse.Namespace) -> list[Figure]:
    SEARCH["in"] = args.search
    records = records_of(args.data / "docs_questions.jsonl", args.half)
    if args.only:
        records = [r for r in records if r["id"] in set(args.only.split(","))]
    outcomes = [judge(record, args.data) for record in records]
    if args.verbose:
        print_outcomes(outcomes)
    answerable = [o for o in outcomes if o.record["answerable"]]
    unanswerable = [o for o in outcomes if not o.record["answerable"]]
    answered = sum(o.answered for o in answerable)
    half = f"{args.half} half (even lines tune, odd lines are held back)"
    figures = [
        Figure(
            NAME,
            "questions",
            len(outcomes),
            note=f"{len(answerable)} answerable, {len(unanswerable)} not; {half}",
        ),
        Figure(
            NAME,
            "answered (fact in the report's own statements, citing its page)",
            _rate(answered, len(answerable)),
            target=">= 0.9",
            met=answered >= 0.9 * len(answerable),
            note=f"{answered} of {len(answerable)}",
        ),
    ]
    for language in ("en", "zh"):
        own = [o for o in answerable if o.record["language"] == language]
        hits = sum(o.answered for o in own)
        target = ">= 0.8" if language == "zh" else ""
        met = (hits >= 0.8 * len(own)) if language == "zh" and own else None
        figures.append(
            Figure(
                NAME,
                f"answered, {language}",
                _rate(hits, len(own)),
                target=target,
                met=met,
                note=f"{hits} of {len(own)}",
            )
        )
    figures += kind_figures(answerable)
    figures += honesty_figures(answerable, unanswerable, outcomes)
    return figures


if __name__ == "__main__":
    main(NAME, run, add_arguments)
