"""The layers hold: ``lint-imports`` passes on the tree and fails on a deliberate upward import, and
every module of the code is in some layer of ``.importlinter``."""

from __future__ import annotations

import configparser
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
LINT_IMPORTS = Path(sys.executable).with_name("lint-imports")

pytestmark = pytest.mark.skipif(not LINT_IMPORTS.exists(), reason="import-linter is not installed")


def lint_imports(tree: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(LINT_IMPORTS), "--no-cache"], cwd=tree, capture_output=True, text=True, timeout=120
    )


def copy_of_the_code(tmp_path: Path) -> Path:
    for package in ("researchapp", "reviews"):
        shutil.copytree(ROOT / package, tmp_path / package, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(ROOT / ".importlinter", tmp_path / ".importlinter")
    # the contract type that forbids django.db (lint-imports imports it from the folder it runs in)
    (tmp_path / "tests").mkdir()
    for name in ("__init__.py", "import_contracts.py"):
        shutil.copy(ROOT / "tests" / name, tmp_path / "tests" / name)
    return tmp_path


def test_it_keeps_every_contract_on_the_tree_as_it_is(tmp_path):
    result = lint_imports(copy_of_the_code(tmp_path))
    assert result.returncode == 0, result.stdout + result.stderr
    assert "0 broken" in result.stdout


@pytest.mark.parametrize(
    ("module", "upward_import", "contract"),
    [
        ("researchapp/models/evidence.py", "from researchapp.services import submission", "Models import no"),
        (
            "researchapp/pipeline/text/tokens.py",
            "from researchapp.pipeline.runner import rows",
            "Entry points",
        ),
        ("researchapp/providers/base.py", "from researchapp.pipeline import values", "Entry points"),
        ("researchapp/selectors.py", "from researchapp.services import stages", "Reads and exports"),
        ("researchapp/views.py", "from reviews import services", "never the reverse"),
        ("researchapp/web.py", "from reviews import selectors", "never the reverse"),
        ("reviews/selectors/queues.py", "from reviews import services", "Reads and exports"),
        ("reviews/selectors/passages.py", "from researchapp.services import plan_gate", "Reads and exports"),
        ("researchapp/web.py", "from researchapp import views", "Entry points"),
        (
            "researchapp/services/rounds.py",
            "from researchapp.services import plan_gate",
            "Services without cycles",
        ),
        ("researchapp/pipeline/analyser/extractive.py", "from django.db import models", "are pure"),
        (
            "researchapp/providers/base.py",
            "from researchapp.models import Source",
            "Providers are transports",
        ),
        (
            "researchapp/providers/search/tavily.py",
            "from researchapp.pipeline.runner import rows",
            "Providers are transports",
        ),
        (
            "researchapp/providers/fetch/client.py",
            "from django.db import connection",
            "never touch the database",
        ),
        ("researchapp/providers/registry.py", "from django import db", "never touch the database"),
        ("researchapp/core/hashing.py", "from django.conf import settings", "and core are pure"),
        # Only runner.wiring builds stages and providers: a runner module that reached past it
        # would pick its own implementation or model again.
        (
            "researchapp/pipeline/runner/collect.py",
            "from researchapp.providers import registry",
            "One wiring place",
        ),
        ("researchapp/providers/cache.py", "from researchapp.providers import registry", "One wiring place"),
    ],
)
def test_it_fails_on_a_deliberate_upward_import(tmp_path, module, upward_import, contract):
    # given a copy of the code with one import that runs the wrong way
    tree = copy_of_the_code(tmp_path)
    path = tree / module
    path.write_text(path.read_text() + f"\n{upward_import}  # noqa\n")
    # when the layers are checked
    result = lint_imports(tree)
    # then the check fails and names the broken contract
    assert result.returncode != 0
    broken = result.stdout.split("Broken contracts", 1)[-1]
    assert contract in broken.replace("\n", " "), result.stdout


def layered_modules(config: Path) -> set[str]:
    """Every module named in a layer of a ``layers`` contract, but the root packages (the whole app
    as one layer of another contract says nothing about the modules inside it)."""
    parser = configparser.ConfigParser()
    parser.read(config)
    named = {
        part.strip(" ()")
        for section in parser.sections()
        if parser[section].get("type") == "layers"
        for line in parser[section]["layers"].splitlines()
        for part in re.split(r"[|:]", line)
        if part.strip()
    }
    return named - {"researchapp", "reviews"}


def modules_of_the_code(tree: Path) -> list[str]:
    found = []
    for package in ("researchapp", "reviews"):
        for path in sorted((tree / package).rglob("*.py")):
            parts = path.relative_to(tree).with_suffix("").parts
            found.append(".".join(parts[:-1] if parts[-1] == "__init__" else parts))
    return found


def outside_every_layer(modules: list[str], layered: set[str]) -> list[str]:
    """Modules in no layer. A package that only holds layers (``researchapp.pipeline``) is not one."""
    containers = {
        ".".join(name.split(".")[:depth]) for name in layered for depth in range(1, name.count(".") + 1)
    }
    return [
        module
        for module in modules
        if module not in containers
        and not any(module == name or module.startswith(name + ".") for name in layered)
    ]


def test_every_module_of_the_code_is_in_a_layer(tmp_path):
    # given the layers .importlinter names, and the modules of the code
    layered = layered_modules(ROOT / ".importlinter")
    modules = modules_of_the_code(ROOT)
    assert "researchapp.services.stage_harness" in modules and "reviews.services" in modules

    # when each module looks for its layer, then each finds one
    assert outside_every_layer(modules, layered) == []

    # and a module added without a layer is named
    stray = tmp_path / "researchapp" / "pipeline" / "stray.py"
    stray.parent.mkdir(parents=True)
    stray.write_text("")
    assert outside_every_layer(modules_of_the_code(tmp_path), layered) == ["researchapp.pipeline.stray"]
