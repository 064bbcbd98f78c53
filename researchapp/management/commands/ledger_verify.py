from django.core.management.base import BaseCommand, CommandError

from researchapp.core.hashing import sha256_text
from researchapp.models import Evidence, ReportDraft, Source


class Command(BaseCommand):
    help = "Check every stored quote against its source snapshot; exit non-zero on any mismatch."

    def add_arguments(self, parser):
        parser.add_argument("--task", type=int, help="only this task")

    def handle(self, *args, task: int | None = None, **options):
        sources = Source.objects.all() if task is None else Source.objects.filter(task_id=task)
        problems: list[str] = []
        digests: dict[int, str] = {}
        for source in sources.only("id", "text", "sha256").iterator(chunk_size=200):
            digest = sha256_text(source.text)
            digests[source.pk] = digest
            if digest != source.sha256:
                problems.append(
                    f"source {source.pk}: snapshot hashes to {digest[:12]}, stored {source.sha256[:12]}"
                )
        evidence = Evidence.objects.all() if task is None else Evidence.objects.filter(task_id=task)
        checked = 0
        for row in (
            evidence.select_related("source")
            .only("id", "start", "end", "quote", "snapshot_sha256", "source__id", "source__text")
            .iterator(chunk_size=500)
        ):
            checked += 1
            if row.source.text[row.start : row.end] != row.quote:
                problems.append(
                    f"E{row.pk}: quote differs from source {row.source_id}[{row.start}:{row.end}]"
                )
            elif digests.get(row.source_id, row.snapshot_sha256) != row.snapshot_sha256:
                problems.append(f"E{row.pk}: quoted from a snapshot that no longer hashes the same")
        drafts = ReportDraft.objects.filter(status=ReportDraft.Status.APPROVED)
        if task is not None:
            drafts = drafts.filter(task_id=task)
        known = set(evidence.values_list("id", flat=True))
        for draft in drafts:
            for missing in sorted(set(draft.cited_evidence_ids) - known):
                problems.append(f"report {draft.pk}: cites E{missing}, which does not exist")
        for problem in problems:
            self.stderr.write(problem)
        if problems:
            raise CommandError(f"{len(problems)} problem(s) in the ledger ({checked} quotes checked)")
        self.stdout.write(f"ledger ok: {checked} quotes match their snapshots")
