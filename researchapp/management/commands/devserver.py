import os
import signal
import subprocess
import sys

from django.conf import settings
from django.core.management.base import BaseCommand


class Command(BaseCommand):
    help = "Run the web server and a Celery worker together; Ctrl-C stops both."

    def add_arguments(self, parser):
        parser.add_argument("--host", default="127.0.0.1")
        parser.add_argument("--port", default="8000")
        parser.add_argument("--concurrency", default="4")

    def handle(self, *args, host: str, port: str, concurrency: str, **options):
        python = sys.executable
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
            env=os.environ.copy(),
        )
        web = subprocess.Popen(
            [python, "manage.py", "runserver", f"{host}:{port}", "--noreload"], env=os.environ.copy()
        )
        self.stdout.write(
            self.style.SUCCESS(
                f"\nResearch desk: http://{host}:{port}/\n"
                f"  accounts: analyst / demo, researcher / demo (embedded profile)\n"
                f"  database: {settings.DATABASES['default']['NAME']}\n"
                f"  broker:   {settings.CELERY_BROKER_URL}\n"
                "  Ctrl-C stops the web server and the worker.\n"
            )
        )
        try:
            while web.poll() is None and worker.poll() is None:
                try:
                    web.wait(timeout=1)
                except subprocess.TimeoutExpired:
                    pass
        except KeyboardInterrupt:
            pass
        finally:
            for process in (web, worker):
                if process.poll() is None:
                    process.send_signal(signal.SIGTERM)
            for process in (web, worker):
                try:
                    process.wait(timeout=15)
                except subprocess.TimeoutExpired:
                    process.kill()
        self.stdout.write("stopped.")
