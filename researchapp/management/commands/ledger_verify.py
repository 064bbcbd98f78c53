from django.core.management.base import BaseCommand, CommandError

from researchapp.core.hashing import sha256_text
from researchapp.models import Evidence, ReportDraft, Source
from researchapp.pipeline.report import MARKER_LIKE, marker_ids
from researchapp.pipeline.report.document import document_from_json


def marker_problems(draft: ReportDraft) -> list[str]:
    """Every citation marker of the stored report is one of its claims' evidence ids, and no claim's
    text holds a marker of its own (markers are drawn from evidence ids, never written in text)."""
    problems = []
    cited = set(draft.cited_evidence_ids)
    for claim in draft.claims:
        if MARKER_LIKE.search(claim["text"]):
            problems.append(
                f"report {draft.pk}: the text of claim “{claim['text'][:80]}” holds a citation marker"
            )
    for stray in sorted(set(marker_ids(draft.markdown)) - cited):
        problems.append(f"report {draft.pk}: its text carries [E{stray}], which none of its claims cites")
    document = document_from_json(draft.document) if draft.document else None
    for stray in sorted(set(document.cited_ids() if document else ()) - cited):
        problems.append(f"report {draft.pk}: its structure cites E{stray}, which none of its claims cites")
    return problems


class Command(BaseCommand):
    help = (
        "Check every stored quote against its source snapshot, and every citation marker of every approved "
        "report against its claims; exit non-zero on any problem."
    )

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
        # Every report an analyst saw or may see; a draft that failed its checks was refused already.
        shown = ReportDraft.objects.exclude(status=ReportDraft.Status.FAILED_CHECKS)
        for draft in shown if task is None else shown.filter(task_id=task):
            problems += marker_problems(draft)
        for problem in problems:
            self.stderr.write(problem)
        if problems:
            raise CommandError(f"{len(problems)} problem(s) in the ledger ({checked} quotes checked)")
        self.stdout.write(f"ledger ok: {checked} quotes match their snapshots")
