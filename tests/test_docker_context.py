"""The Docker image's build context (`.ci/build_context.py`, which CI runs): computed from .dockerignore
as `docker build` would, it holds the app and none of the secrets, local state, virtualenv, version
control or caches a working copy has."""

from __future__ import annotations

import importlib.util
import shutil
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
spec = importlib.util.spec_from_file_location("build_context", ROOT / ".ci" / "build_context.py")
build_context = importlib.util.module_from_spec(spec)
spec.loader.exec_module(build_context)

# What a developer's working copy holds besides the code, each of which must stay out of the image.
LEFT_OUT = [
    ".env",
    ".env.production",
    "deploy/.env",
    "var/db.sqlite3",
    "var/broker/queue/1.msg",
    "backup.sqlite3",
    ".venv/bin/python",
    ".git/config",
    "researchapp/__pycache__/views.cpython-312.pyc",
    "tests/__pycache__/conftest.cpython-312.pyc",
    ".pytest_cache/v/cache/lastfailed",
    ".ruff_cache/0.1/x",
    ".import_linter_cache/x.json",
]
KEPT = ["manage.py", "requirements.txt", "researchapp/views.py", "templates/base.html", "Dockerfile"]


@pytest.fixture
def working_copy(tmp_path) -> Path:
    shutil.copy(ROOT / ".dockerignore", tmp_path / ".dockerignore")
    for name in LEFT_OUT + KEPT:
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text("x")
    return tmp_path


def test_the_context_holds_the_app_and_nothing_a_working_copy_should_keep_to_itself(working_copy):
    sent = set(build_context.context(working_copy))
    assert set(KEPT) <= sent
    assert sent.isdisjoint(LEFT_OUT)
    assert build_context.problems(working_copy) == []


def test_the_check_fails_without_the_dockerignore(working_copy):
    # (so a .dockerignore that lost a line fails CI)
    (working_copy / ".dockerignore").unlink()
    found = build_context.problems(working_copy)
    assert any(line.startswith(".env: a .env file") for line in found)
    assert any(line.startswith("var/db.sqlite3: var/") for line in found)
    assert any(line.startswith(".git/config: .git") for line in found)
    assert build_context.main(["--check", str(working_copy)]) == 1


def test_this_checkout_builds_a_clean_context():
    assert build_context.problems(ROOT) == []


@pytest.mark.parametrize(
    ("pattern", "path", "left_out"),
    [
        ("*.pyc", "a.pyc", True),
        ("*.pyc", "pkg/a.pyc", False),  # anchored at the root, as Docker matches
        ("**/*.pyc", "pkg/deep/a.pyc", True),
        ("var", "var/db.sqlite3", True),  # a folder's pattern covers what is in it
        ("/var", "var/x", True),
        ("doc?", "docs/x", True),
        ("[a-c]at", "bat", True),
    ],
)
def test_it_matches_as_docker_does(tmp_path, pattern, path, left_out):
    (tmp_path / ".dockerignore").write_text(f"{pattern}\n")
    assert build_context.excluded(path, build_context.patterns(tmp_path / ".dockerignore")) is left_out


def test_an_exception_brings_a_path_back(tmp_path):
    (tmp_path / ".dockerignore").write_text("docs\n!docs/keep.md\n")
    rules = build_context.patterns(tmp_path / ".dockerignore")
    assert build_context.excluded("docs/drop.md", rules) and not build_context.excluded("docs/keep.md", rules)
