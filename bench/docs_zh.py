"""Chinese questions over English manuals: are the passages found, and does the report answer?

The 8 Chinese questions of ``qa/docs_questions.jsonl`` (language ``zh``, English answer strings)
each run as a whole task over their manual (``qa/docs/<manual>/``, one source per page), as
``manage.py research --auto-approve`` runs one: extractive engine, SQLite, in this process.

- **retrieval**: a passage that cleared the relevance bar (evidence, not a closest passage of a
  ``[证据不足]`` item) comes from one of the question's ``pages`` and holds one of its answers
  (case-insensitive), at the task's default passage count (``RESEARCH_MAX_PASSAGES``, 8).
- **answered** (the data README's manual QA rule): one of the report's own statements holds an
  answer and cites a quote from one of ``pages``.

Halves are alternate questions in file order (first: 1st, 3rd, ...; second: 2nd, 4th, ...).

    python -m bench.docs_zh --data ../shared/data/qa/docs_questions.jsonl
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
from dataclasses import dataclass
from pathlib import Path

from bench.common import DATA_ROOT, Figure, main, require_path

NAME = "docs_zh"
TARGET_ANSWERED = 0.8


@dataclass
class Outcome:
    id: str
    half: str
    retrieved: bool
    answered: bool
    queries: list[str]
    statement: str


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--data", type=Path, default=DATA_ROOT / "qa" / "docs_questions.jsonl")
    parser.add_argument("--limit", type=int, default=0, help="only the first N Chinese questions")


def load_questions(path: Path, limit: int = 0) -> list[dict]:
    with require_path(path).open(encoding="utf-8") as lines:
        records = [json.loads(line) for line in lines if line.strip()]
    chinese = [record for record in records if record.get("language") == "zh" and record.get("answerable")]
    for position, record in enumerate(chinese):
        record["half"] = "first" if position % 2 == 0 else "second"
    return chinese[:limit] if limit else chinese


def setup_django() -> None:
    """A scratch SQLite database and var folder: the embedded profile, nothing shared."""
    folder = tempfile.mkdtemp(prefix="bench-docs-zh-")
    for name in ("CELERY_BROKER_URL", "REDIS_URL"):
        os.environ.pop(name, None)
    os.environ["DATABASE_URL"] = f"sqlite:///{folder}/db.sqlite3"
    os.environ["RESEARCH_VAR_DIR"] = folder
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "researchapp.settings")
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)


def run_task(question: str, corpus):
    """One task to its report, every gate approved as proposed (as ``research --auto-approve``)."""
    from django.contrib.auth import get_user_model

    from researchapp.services.dispatch import drain, inline
    from researchapp.services.submission import task_submit

    owner, _ = get_user_model().objects.get_or_create(username="bench")
    with inline() as queue:
        task = task_submit(
            owner=owner,
            question=question,
            depth="quick",
            corpus=corpus,
            auto_approve=True,
            search_provider="local",
        )
        drain(queue)
    task.refresh_from_db()
    return task


def _from_pages(url: str, pages: list[str]) -> bool:
    return any(url.rstrip("/").endswith("/" + page) for page in pages)


def _holds(text: str, answers: list[str]) -> bool:
    return any(answer.lower() in text.lower() for answer in answers)


def score(task, record: dict) -> Outcome:
    """Retrieval from the stored evidence, answered from the latest report's own statements."""
    from researchapp.models import Evidence

    evidence = {item.pk: item for item in Evidence.objects.filter(task=task).select_related("source")}
    retrieved = any(
        item.clears_bar
        and _from_pages(item.source.url, record["pages"])
        and _holds(item.quote, record["answers"])
        for item in evidence.values()
    )
    draft = task.drafts.order_by("-version").first()
    statement = ""
    for claim in draft.claims if draft else []:
        cited = [evidence[i] for i in claim.get("evidence_ids", []) if i in evidence]
        if _holds(claim.get("text", ""), record["answers"]) and any(
            _from_pages(item.source.url, record["pages"]) for item in cited
        ):
            statement = claim["text"]
            break
    plan = task.plans.latest_version()
    queries = [query for sq in plan.subquestions.order_by("order") for query in sq.queries] if plan else []
    return Outcome(record["id"], record["half"], retrieved, bool(statement), queries, statement)


def _manual_corpus(manual: str, data: Path, corpora: dict):
    from researchapp.services.corpus import corpus_import

    if manual not in corpora:
        corpora[manual] = corpus_import(path=data.parent / "docs" / manual).corpus
    return corpora[manual]


def _share(outcomes: list[Outcome], attribute: str) -> float:
    return round(sum(getattr(o, attribute) for o in outcomes) / len(outcomes), 3) if outcomes else 0.0


def run(args: argparse.Namespace) -> list[Figure]:
    records = load_questions(args.data, args.limit)
    setup_django()
    corpora: dict = {}
    outcomes = []
    for record in records:
        task = run_task(record["question"], _manual_corpus(record["manual"], args.data, corpora))
        outcome = score(task, record)
        outcomes.append(outcome)
        print(
            f"{outcome.id} ({outcome.half}): retrieved={outcome.retrieved} answered={outcome.answered} "
            f"status={task.status} {task.failure_reason[:120]}\n  queries: {outcome.queries[:2]}\n"
            f"  statement: {outcome.statement[:160]}",
            flush=True,
        )
    figures = []
    for half in ("first", "second"):
        part = [o for o in outcomes if o.half == half]
        note = f"{len(part)} questions" + (" (tuned)" if half == "first" else " (held back)")
        figures.append(Figure(NAME, f"retrieval, {half} half", _share(part, "retrieved"), note=note))
        answered = _share(part, "answered")
        figures.append(
            Figure(NAME, f"answered, {half} half", answered, target=f">= {TARGET_ANSWERED}",
                   met=answered >= TARGET_ANSWERED if half == "second" else None)
        )  # fmt: skip
    figures.append(Figure(NAME, "retrieval, all", _share(outcomes, "retrieved")))
    figures.append(Figure(NAME, "answered, all", _share(outcomes, "answered")))
    return figures


if __name__ == "__main__":
    main(NAME, run, add_arguments)
