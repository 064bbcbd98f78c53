import time

from django.conf import settings
from django.core.management.base import BaseCommand
from django.db import DatabaseError, close_old_connections

from researchapp.services.sweeper import sweep


class Command(BaseCommand):
    help = (
        "Relay the job outbox and re-run stages whose worker died (Celery beat does this in production). "
        "With --every, keep sweeping until stopped."
    )

    def add_arguments(self, parser):
        parser.add_argument("--every", type=float, help="seconds between sweeps (default: sweep once)")

    def handle(self, *args, every: float | None, **options):
        while True:
            try:
                report = sweep()
            except DatabaseError as error:  # the database is down: say so and sweep again later
                if every is None:
                    raise
                self.stderr.write(f"sweep failed: {error}")
            else:
                if every is None or report.restarted or report.failed or report.resent or report.relayed:
                    self.stdout.write(
                        f"sweep: {report.relayed} sent, {len(report.restarted)} restarted, "
                        f"{report.resent} sent again unstarted, {len(report.failed)} tasks failed"
                    )
            if every is None:
                return
            close_old_connections()
            time.sleep(every or settings.RESEARCH["SWEEP_SECONDS"])
