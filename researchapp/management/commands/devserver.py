import os
import signal
import subprocess
import sys

from django.conf import settings
from django.core.management.base import BaseCommand


class Command(BaseCommand):
    help = "Run the web server, a Celery worker and the sweeper together; Ctrl-C stops all three."

    def add_arguments(self, parser):
        parser.add_argument("--host", default="127.0.0.1")
        parser.add_argument("--port", default="8000")
        parser.add_argument("--concurrency", default="4")

    def handle(self, *args, host: str, port: str, concurrency: str, **options):
        python = sys.executable
        # Links in the worker's emails point at this server unless SITE_URL says otherwise.
        env = {"SITE_URL": f"http://{host}:{port}", **os.environ}
        worker = subprocess.Popen(
            [
                python,
                "-m",
                "celery",
                "-A",
                "researchapp",
                "worker",
                "--pool=threads",
                f"--concurrency={concurrency}",
                "--loglevel=INFO",
                "--without-gossip",
                "--without-mingle",
            ],
            env=env,
        )
        # The same sweep Celery beat runs in production: the outbox relay and expired stage leases.
        sweeper = subprocess.Popen(
            [python, "manage.py", "sweep", "--every", str(settings.RESEARCH["SWEEP_SECONDS"])],
            env=env,
        )
        web = subprocess.Popen([python, "manage.py", "runserver", f"{host}:{port}", "--noreload"], env=env)
        self.stdout.write(
            self.style.SUCCESS(
                f"\nResearch desk: http://{host}:{port}/\n"
                f"  accounts: analyst / demo, researcher / demo (embedded profile)\n"
                f"  database: {settings.DATABASES['default']['NAME']}\n"
                f"  broker:   {settings.CELERY_BROKER_URL}\n"
                "  Ctrl-C stops the web server, the worker and the sweeper.\n"
            )
        )
        try:
            while all(process.poll() is None for process in (web, worker, sweeper)):
                try:
                    web.wait(timeout=1)
                except subprocess.TimeoutExpired:
                    pass
        except KeyboardInterrupt:
            pass
        finally:
            for process in (web, worker, sweeper):
                if process.poll() is None:
                    process.send_signal(signal.SIGTERM)
            for process in (web, worker, sweeper):
                try:
                    process.wait(timeout=15)
                except subprocess.TimeoutExpired:
                    process.kill()
        self.stdout.write("stopped.")
