from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from researchapp.services.corpus import corpus_import


class Command(BaseCommand):
    help = "Import a folder of .html/.md/.txt files, or a JSONL file of {url, title, text|html, published?}."

    def add_arguments(self, parser):
        parser.add_argument("path", type=Path)
        parser.add_argument("--name", help="corpus name (default: the path)")
        parser.add_argument("--invented", action="store_true", help="mark the corpus as invented demo text")

    def handle(self, *args, path: Path, name: str | None, invented: bool, **options):
        try:
            report = corpus_import(path=path, name=name, invented=invented)
        except FileNotFoundError as error:
            raise CommandError(str(error)) from error
        for _, reason in report.skipped:
            self.stderr.write(f"skipped {reason}")
        self.stdout.write(
            f"corpus {report.corpus.name!r}: {report.imported} imported, {report.unchanged} unchanged, "
            f"{len(report.skipped)} skipped"
        )
