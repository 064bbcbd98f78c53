import json
import sys
from pathlib import Path

from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError

from researchapp.exports.ledger import task_export
from researchapp.models import ResearchTask
from researchapp.services.corpus import corpus_import
from researchapp.services.dispatch import drain, inline
from researchapp.services.submission import task_submit


class Command(BaseCommand):
    help = "Run one research task to the end in this process, without the browser or a worker."

    def add_arguments(self, parser):
        parser.add_argument("question")
        parser.add_argument("--corpus", type=Path, help="a folder of .html/.md/.txt files or a .jsonl file")
        parser.add_argument(
            "--auto-approve",
            action="store_true",
            help="approve every gate as proposed; keep conflicts as disputed",
        )
        parser.add_argument("--json", type=Path, dest="json_out", help="write the task's ledger here")
        parser.add_argument(
            "--with-snapshots", action="store_true", help="include each source's extracted text"
        )
        parser.add_argument("--depth", choices=["quick", "deep"], default="quick")
        parser.add_argument("--user", default="cli", help="the task's owner (created if missing)")

    def handle(self, *args, question, corpus, auto_approve, json_out, with_snapshots, depth, user, **options):
        owner, created = get_user_model().objects.get_or_create(username=user)
        if created:
            owner.set_unusable_password()
            owner.save()
        corpus_row = None
        if corpus is not None:
            try:
                report = corpus_import(path=corpus)
            except FileNotFoundError as error:
                raise CommandError(str(error)) from error
            for _, reason in report.skipped:
                self.stderr.write(f"warning: skipped {reason}")
            if not report.corpus.documents.exists():
                raise CommandError(f"{corpus}: no usable documents in the corpus")
            corpus_row = report.corpus
        with inline() as queue:
            try:
                task = task_submit(
                    owner=owner,
                    question=question,
                    depth=depth,
                    corpus=corpus_row,
                    auto_approve=auto_approve,
                    search_provider="local" if corpus_row else None,
                    quota=False,  # the server's own command line, not a person's submission
                )
            except ValidationError as error:
                raise CommandError(" ".join(error.messages)) from error
            drain(queue)
        task.refresh_from_db()
        data = task_export(task, with_snapshots=with_snapshots)
        if json_out:
            json_out.write_text(json.dumps(data, ensure_ascii=False, indent=2, default=str), encoding="utf-8")
        for warning in data["warnings"]:
            url = warning.get("url", "")
            where = f" ({url})" if url and url not in warning["message"] else ""
            self.stderr.write(f"warning: {warning['message']}{where}")
        self.stdout.write(
            f"task {task.pk}: {task.get_status_display()} — {len(data['sources'])} sources, "
            f"{len(data['evidence'])} quotes, {len(data['findings'])} findings"
        )
        if task.status == ResearchTask.Status.FAILED:
            self.stderr.write(f"failed while {task.failed_stage}: {task.failure_reason}")
            sys.exit(1)
        if task.is_awaiting_review:
            self.stdout.write("waiting for a reviewer (use --auto-approve to approve every gate as proposed)")
