"""Conflict flag on real text: are sources that disagree flagged, and never both stated as fact?

The set is ``../shared/data/conflicts`` (AVeriTeC train, CC BY-NC 4.0: local evaluation only, never
copied into the repository). Each case folder is imported as its own corpus (``corpus_import``) and
its question researched the way a task is: in this process, without a worker, through the same
inline dispatch the ``research`` command uses (plan, collect, analyse, the evidence gate, write and
check, with every gate approved as proposed and conflicts kept as disputed), on a throwaway SQLite
database.

Scored as ``../shared/data/README.md`` says ("Conflict flag"): a positive is caught when one
``conflict`` finding links evidence (that cleared the relevance bar) from both files of its ``pair``;
any other ``conflict`` finding is a false flag. precision = caught / (caught + false flags), recall =
caught / positives; the 80 main positives with the 60 negatives, the 20 same-host positives apart,
and both by kind. Beside them: reports whose fact claims (the answer and the sections, not the
disputed findings) cite both sides of a pair the set or the desk's judges call a disagreement, tasks
that failed at writing, and how many positives had both sides retrieved at all (the part of the
recall that retrieval, not judgement, decides).

Lines alternate between the halves; thresholds are tuned on the first, the second is held back.

    python -m bench.conflicts --data ../shared/data/conflicts --half second
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import tempfile
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from bench.common import DATA_ROOT, Figure, main, require_path

NAME = "conflicts"
KINDS = ("number", "date", "entity", "negation")


@dataclass
class Outcome:
    case: str
    label: str
    kind: str
    same_host: bool
    status: str = ""
    failed_stage: str = ""
    caught: bool = False
    false_flags: int = 0
    both_retrieved: bool = False
    both_opened: bool = False
    by_other_side: bool = False  # caught with a side stored as the other side of the disagreement
    both_stated: bool = False  # both sides of a pair the desk flagged, stated as fact
    pair_stated: bool = False  # both files of the set's pair cited by statements of fact
    flags: list[dict] = field(default_factory=list)
    fact_files: list[str] = field(default_factory=list)
    cleared_files: list[str] = field(default_factory=list)


def setup_django(scratch: Path) -> None:
    """A throwaway SQLite database and var folder: the set never meets a shared database."""
    for name in ("REDIS_URL",):
        os.environ.pop(name, None)
    os.environ["DATABASE_URL"] = f"sqlite:///{scratch / 'db.sqlite3'}"
    os.environ["CELERY_BROKER_URL"] = "memory://"
    os.environ["RESEARCH_VAR_DIR"] = str(scratch / "var")
    os.environ["DEBUG"] = "false"
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "researchapp.settings")
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)


def _key(url: str) -> str:
    """How the set and the desk are matched: trailing '/' dropped, lower-cased."""
    return url.strip().rstrip("/").lower()


def research(case_dir: Path, case_id: str, question: str, engine: str):
    """Import the case folder as its own corpus and run its question to the end, in process."""
    from django.contrib.auth import get_user_model

    from researchapp.services.corpus import corpus_import
    from researchapp.services.dispatch import drain, inline
    from researchapp.services.submission import task_submit

    owner, _ = get_user_model().objects.get_or_create(username="bench")
    corpus = corpus_import(path=case_dir, name=case_id).corpus
    with inline() as queue:
        task = task_submit(
            owner=owner,
            question=question,
            corpus=corpus,
            auto_approve=True,
            search_provider="local",
            engine=engine,
        )
        drain(queue)
    task.refresh_from_db()
    return task


def judge_case(record: dict, task) -> Outcome:
    """Score one researched case (see the module's docstring)."""
    from researchapp.core.enums import FindingStatus, Stance
    from researchapp.models import Evidence, Source

    file_of = {_key(source["url"]): name for name, source in record["sources"].items()}
    rows = list(Evidence.objects.filter(task=task, clears_bar=True).select_related("source"))
    evidence_file = {row.pk: file_of.get(_key(row.source.url), "?") for row in rows}
    # Evidence stored as the other side of a disagreement, not for its own relevance.
    other_side = {row.pk for row in rows if row.paired_with_id is not None}
    pair = set(record["pair"])
    outcome = Outcome(
        record["id"],
        record["label"],
        record["kind"],
        bool(record.get("same_host")),
        status=task.status,
        failed_stage=task.failed_stage,
        both_retrieved=bool(pair)
        and pair <= {name for pk, name in evidence_file.items() if pk not in other_side},
        both_opened=bool(pair)
        and pair
        <= {file_of.get(_key(url)) for url in Source.objects.filter(task=task).values_list("url", flat=True)},
    )
    outcome.cleared_files = sorted({name for pk, name in evidence_file.items() if pk not in other_side})
    sides: list[tuple[set[str], set[str]]] = []
    for finding in task.findings.filter(status=FindingStatus.CONFLICT).prefetch_related("links"):
        links = [link for link in finding.links.all() if link.evidence_id in evidence_file]
        first = {evidence_file[link.evidence_id] for link in links if link.stance == Stance.SUPPORTS}
        second = {evidence_file[link.evidence_id] for link in links if link.stance != Stance.SUPPORTS}
        sides.append((first, second))
        files = first | second
        outcome.flags.append({"statement": finding.statement, "files": sorted(files)})
        if record["label"] == "conflict" and pair <= files:
            outcome.caught = True
            outcome.by_other_side = outcome.by_other_side or any(
                link.evidence_id in other_side for link in links
            )
        else:
            outcome.false_flags += 1
    draft = task.drafts.order_by("-version").first()
    fact_ids = [
        evidence_id
        for claim in (draft.claims if draft else [])
        if claim.get("section") != "disputed"
        for evidence_id in claim["evidence_ids"]
    ]
    stated = {evidence_file.get(evidence_id) for evidence_id in fact_ids} - {None}
    outcome.fact_files = sorted(stated)
    outcome.both_stated = any(first & stated and second & stated for first, second in sides)
    outcome.pair_stated = bool(pair) and pair <= stated
    return outcome


def precision_recall(outcomes: list[Outcome]) -> tuple[float, float, int, int, int]:
    positives = [o for o in outcomes if o.label == "conflict"]
    caught = sum(o.caught for o in positives)
    false = sum(o.false_flags for o in outcomes)
    precision = caught / (caught + false) if caught + false else 0.0
    recall = caught / len(positives) if positives else 0.0
    return precision, recall, caught, false, len(positives)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--data", type=Path, default=DATA_ROOT / "conflicts")
    parser.add_argument("--half", choices=("all", "first", "second"), default="second")
    parser.add_argument("--engine", default="extractive", help="the task's engine: extractive or openai")
    parser.add_argument("--cases", default="", help="comma-separated case ids (for a look at a few)")
    parser.add_argument("--verbose", action="store_true", help="print each case's outcome")
    parser.add_argument("--details", type=Path, help="write each case's outcome here (outside the repo)")


def _figures(outcomes: list[Outcome], half: str) -> list[Figure]:
    return _flag_figures(outcomes, half) + _kind_figures(outcomes) + _report_figures(outcomes)


def _flag_figures(outcomes: list[Outcome], half: str) -> list[Figure]:
    """Precision and recall of the flag: main positives and same-host positives, each with the negatives."""
    figures = []
    for label, group, note in (
        ("main", [o for o in outcomes if not o.same_host], "the main positives with the negatives"),
        (
            "same-host",
            [o for o in outcomes if o.same_host or o.label == "none"],
            "the same-host positives with the negatives",
        ),
    ):
        precision, recall, caught, false, positives = precision_recall(group)
        figures += [
            Figure(
                NAME,
                f"{label}: flag precision",
                round(precision, 3),
                target=">= 0.8",
                met=precision >= 0.8,
                note=f"{caught} caught, {false} false flags; {note}; {half} half (tuned on the first)",
            ),
            Figure(
                NAME,
                f"{label}: flag recall",
                round(recall, 3),
                target=">= 0.6",
                met=recall >= 0.6,
                note=f"{caught} of {positives}",
            ),
        ]
    return figures


def _kind_figures(outcomes: list[Outcome]) -> list[Figure]:
    """Recall per kind of positive, and the negatives flagged per kind."""
    positives = [o for o in outcomes if o.label == "conflict"]
    figures = []
    for kind in KINDS:
        of_kind = [o for o in positives if o.kind == kind]
        if not of_kind:
            continue
        caught = sum(o.caught for o in of_kind)
        recall = caught / len(of_kind)
        hosts = sum(o.caught for o in of_kind if o.same_host), sum(o.same_host for o in of_kind)
        figures.append(
            Figure(
                NAME,
                f"recall, {kind}",
                round(recall, 3),
                target=">= 0.5",
                met=recall >= 0.5,
                note=f"{caught} of {len(of_kind)} ({hosts[0]} of {hosts[1]} same-host); "
                f"{sum(o.false_flags for o in of_kind)} false flags on these cases",
            )
        )
    negatives = Counter(o.kind for o in outcomes if o.label == "none" and o.false_flags)
    totals = Counter(o.kind for o in outcomes if o.label == "none")
    flagged = ", ".join(f"{kind} {negatives[kind]}/{totals[kind]}" for kind in sorted(totals))
    return [*figures, Figure(NAME, "negatives flagged, by kind", flagged)]


def _report_figures(outcomes: list[Outcome]) -> list[Figure]:
    """What retrieval let through, what the reports state, and the tasks that failed at writing."""
    positives = [o for o in outcomes if o.label == "conflict"]
    retrieved = [o for o in positives if o.both_retrieved]
    stated = sum(o.both_stated for o in outcomes)
    failed = sum(o.status == "failed" and o.failed_stage == "writing" for o in outcomes)
    other = Counter(o.status for o in outcomes if o.status not in ("approved",))
    return [
        Figure(
            NAME,
            "positives with both sides retrieved",
            f"{len(retrieved)} of {len(positives)}",
            note=f"{sum(o.caught for o in retrieved)} of these caught; both sides' pages were opened in "
            f"{sum(o.both_opened for o in positives)}; {sum(o.by_other_side for o in positives)} caught "
            "with a side that only the pairing stored (the other side of a disagreement with a passage "
            "that cleared the bar)",
        ),
        Figure(
            NAME,
            "reports stating both sides as fact",
            stated,
            target="0",
            met=stated == 0,
            note="statements of fact (answer, sections) citing both sides of a conflict finding",
        ),
        Figure(
            NAME,
            "reports stating both files of the set's pair as fact",
            f"{sum(o.pair_stated for o in outcomes)} of {len(positives)}",
            note="the pairs no judge flagged: a disagreement nobody saw cannot be guarded against",
        ),
        Figure(
            NAME,
            "tasks failed at writing",
            failed,
            target="0",
            met=failed == 0,
            note=f"{len(outcomes)} tasks; not approved: {dict(other) or 'none'}",
        ),
    ]


def run(args: argparse.Namespace) -> list[Figure]:
    data = require_path(args.data)
    records = [
        json.loads(line)
        for line in require_path(data / "cases.jsonl").read_text(encoding="utf-8").splitlines()
        if line.strip()
    ]
    records = {"first": records[0::2], "second": records[1::2]}.get(args.half, records)
    if args.cases:
        wanted = set(args.cases.split(","))
        records = [record for record in records if record["id"] in wanted]
    scratch = Path(tempfile.mkdtemp(prefix="bench-conflicts-"))
    try:
        setup_django(scratch)
        outcomes = []
        for record in records:
            task = research(data / "cases" / record["id"], record["id"], record["question"], args.engine)
            outcome = judge_case(record, task)
            outcomes.append(outcome)
            if args.verbose:
                print(
                    f"{outcome.case} {outcome.kind:9} caught={outcome.caught!s:5} "
                    f"false={outcome.false_flags} "
                    f"retrieved={outcome.both_retrieved!s:5} stated_both={outcome.both_stated!s:5} "
                    f"{outcome.status}{'/' + outcome.failed_stage if outcome.failed_stage else ''}",
                    flush=True,
                )
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    if args.details:
        args.details.write_text(json.dumps([vars(o) for o in outcomes], indent=1, ensure_ascii=False))
    return _figures(outcomes, args.half)


if __name__ == "__main__":
    main(NAME, run, add_arguments)
