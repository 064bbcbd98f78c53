"""The production settings path: secrets from the environment, and Django's deploy checks pass."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from django.conf import settings

ROOT = Path(__file__).resolve().parent.parent


def manage(*args: str, **env: str) -> subprocess.CompletedProcess:
    environment = {
        k: v
        for k, v in os.environ.items()
        if k not in ("SECRET_KEY", "ALLOWED_HOSTS", "DJANGO_ALLOW_ASYNC_UNSAFE")
    }
    environment.update(DJANGO_SETTINGS_MODULE="researchapp.settings_production", **env)
    return subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=ROOT,
        env=environment,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_it_passes_the_deploy_checks_with_no_warning():
    result = manage(
        "check",
        "--deploy",
        "--fail-level",
        "WARNING",
        SECRET_KEY="x" * 20 + "-production-secret-key-of-enough-length-and-variety-9a8b7c6d",
        ALLOWED_HOSTS="desk.example.org",
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "no issues" in result.stdout


def test_it_refuses_to_start_without_a_secret_key():
    result = manage("check", ALLOWED_HOSTS="desk.example.org")
    assert result.returncode != 0
    assert "SECRET_KEY must be set" in result.stderr


def test_it_never_creates_demo_accounts_in_production():
    result = manage("demo_setup", SECRET_KEY="s" * 60, ALLOWED_HOSTS="desk.example.org")
    assert result.returncode != 0
    assert "only in the embedded profile" in result.stderr


def compose_command() -> list[str] | None:
    """`docker compose` where the CLI has the plugin, else Debian's docker-compose (v1); no engine needed."""
    plugin = shutil.which("docker") and subprocess.run(
        ["docker", "compose", "version"], capture_output=True, timeout=30
    )
    if plugin and plugin.returncode == 0:
        return ["docker", "compose"]
    return ["docker-compose"] if shutil.which("docker-compose") else None


def test_it_ships_a_docker_compose_file_the_compose_cli_accepts():
    command = compose_command()
    if command is None:
        pytest.skip("no docker compose CLI here (.ci/run installs one)")
    result = subprocess.run(
        [*command, "-f", "docker-compose.yml", "config"],
        cwd=ROOT,
        env={**os.environ, "SECRET_KEY": "compose-config-check"},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
    # the services production needs, the sweeper's beat among them, and a health check that can pass
    for service in ("web:", "beat:", "postgres:", "redis:", "migrate:"):
        assert service in result.stdout
    assert "researchapp.settings_production" in result.stdout and "/healthz" in result.stdout
    # one worker per queue of the settings, each consuming its own queue (the default one with collection)
    queues = {queue.name for queue in settings.CELERY_TASK_QUEUES}
    consumed = re.findall(r"celery -A researchapp worker -Q (\S+)", result.stdout)
    assert len(consumed) == len(queues) - 1
    assert sorted(q for listed in consumed for q in listed.split(",")) == sorted(queues)
    # web, the workers and beat wait for the one migration; beat has a health check; only the model
    # collection worker (deep mode's loop and its calculations run there) may make the sandbox's namespaces
    assert result.stdout.count("service_completed_successfully") == 2 + len(consumed)
    assert "celerybeat-schedule*" in result.stdout
    assert result.stdout.count("seccomp=unconfined") == 1


def test_the_image_runs_as_a_user_of_its_own_and_gunicorn_outlasts_a_pdf():
    dockerfile = (ROOT / "Dockerfile").read_text()
    compose = (ROOT / "docker-compose.yml").read_text()
    user = re.findall(r"^USER (\S+)$", dockerfile, re.MULTILINE)
    assert user and user[-1] not in ("root", "0")
    assert "migrate" not in re.search(r"^  web:\n(.*?)\n\n", compose, re.DOTALL | re.MULTILINE).group(1)
    timeout = int(re.search(r"gunicorn .*--timeout (\d+)", compose).group(1))
    assert timeout > settings.RESEARCH["PDF_SECONDS"]  # a PDF is stopped by the desk, with a message
