"""The layers hold: ``lint-imports`` passes on the tree and fails on a deliberate upward import."""

from __future__ import annotations

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
