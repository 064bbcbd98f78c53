"""Exports at size: how long an approved report takes to become Markdown and PDF, how large the PDF is,
and how much memory the PDF renderer (a child process) needs, for 20 and 200 citations, in English
and in Chinese.

1. A throwaway SQLite database in a temporary folder, migrated.
2. For each size and language, an approved report whose every fact is a quote of a stored source.
3. Markdown and PDF exports, timed (the PDF three times: the first also cuts the font face once).

    python -m bench.exports [--sizes 20,200]
"""

from __future__ import annotations

import argparse
import os
import resource
import tempfile
import time

from bench.common import Figure, main

NAME = "exports"
FACTS = {
    "en": "Reading {i}: the tide rose {i} centimetres at the Marrowby gauge.",
    "zh": "第{i}次读数：马罗比潮位站记录的潮位上升了{i}厘米。",
}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--sizes", default="20,200", help="citations per report, comma-separated")


def setup_django() -> None:
    folder = tempfile.mkdtemp(prefix="bench-exports-")
    os.environ["DATABASE_URL"] = f"sqlite:///{folder}/db.sqlite3"
    os.environ["RESEARCH_VAR_DIR"] = folder
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "researchapp.settings")
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)


def approved_report(language: str, size: int):
    """An approved report of ``size`` cited facts in one section, each its own quote."""
    from django.contrib.auth import get_user_model
    from django.utils import timezone

    from researchapp.models import Evidence, Plan, ReportDraft, ResearchTask, Source, SubQuestion
    from researchapp.pipeline.report.document import Document, Section, Statement, document_json

    owner, _ = get_user_model().objects.get_or_create(username="bench")
    task = ResearchTask.objects.create(
        question=f"Tide readings ({language}, {size})",
        owner=owner,
        status="approved",
        search_provider="local",
        engine="extractive",
    )
    plan = Plan.objects.create(task=task, version=1, intent="descriptive", status="approved")
    subquestion = SubQuestion.objects.create(plan=plan, text="What did the gauge read?", queries=["gauge"])
    facts = [FACTS[language].format(i=i) for i in range(size)]
    statements = []
    for first in range(0, size, 25):
        chunk = facts[first : first + 25]
        source = Source.objects.create(
            task=task, url=f"https://s{first}.example/", title=f"Gauge log {first}", text=" ".join(chunk)
        )
        start = 0
        for fact in chunk:
            row = Evidence.objects.create(
                task=task,
                source=source,
                subquestion=subquestion,
                start=start,
                end=start + len(fact),
                quote=fact,
            )
            statements.append(Statement(fact, (row.pk,)))
            start += len(fact) + 1
    document = Document(
        title=task.question, sections=(Section(subquestion.pk, subquestion.text, tuple(statements)),)
    )
    claims = [
        {"text": s.text, "evidence_ids": list(s.evidence_ids), "section": str(subquestion.pk)}
        for s in statements
    ]
    return ReportDraft.objects.create(
        task=task,
        version=1,
        markdown="",
        claims=claims,
        document=document_json(document),
        status="approved",
        approved_by=owner,
        approved_at=timezone.now(),
    )


def run(args: argparse.Namespace) -> list[Figure]:
    setup_django()
    from researchapp.exports.markdown import render_markdown
    from researchapp.exports.pdf import render_pdf

    figures = []
    for size in (int(part) for part in args.sizes.split(",")):
        for language in FACTS:
            draft = approved_report(language, size)
            started = time.perf_counter()
            markdown = render_markdown(draft)
            markdown_ms = (time.perf_counter() - started) * 1000
            timings = []
            for _ in range(3):
                started = time.perf_counter()
                pdf = render_pdf(draft)
                timings.append(time.perf_counter() - started)
            label = f"{size} citations, {language}"
            figures += [
                Figure(
                    NAME,
                    f"Markdown export ({label})",
                    round(markdown_ms, 1),
                    "ms",
                    note=f"{len(markdown):,} chars",
                ),
                Figure(
                    NAME,
                    f"PDF export, median of 3 ({label})",
                    round(sorted(timings)[1], 2),
                    "s",
                    note=f"first {timings[0]:.2f} s; {len(pdf):,} bytes",
                ),
            ]
    # ru_maxrss of children: the largest renderer process so far, in KiB on Linux.
    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    figures.append(Figure(NAME, "PDF renderer peak memory (largest child)", round(peak), "MiB"))
    return figures


if __name__ == "__main__":
    main(NAME, run, add_arguments)
