"""The house rules that no linter checks: files and functions stay small, and imports sit at the top
of a module except the one the Celery pattern needs (``services/dispatch.py``, documented in
``.importlinter``) and Django's signal wiring in ``AppConfig.ready()``."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("researchapp", "reviews")
MAX_LINES = 400
MAX_FUNCTION_LINES = 60  # from its ``def`` to its last line, docstring included
# module → the one function-level import it may hold, and why it is there (.importlinter says the same)
ALLOWED_LOCAL_IMPORTS = {
    "researchapp/services/dispatch.py": {"researchapp.tasks"},
    # Django's own pattern: an app connects its signal receivers in AppConfig.ready().
    "reviews/apps.py": {"reviews.signals"},
}


def code_files(packages: tuple[str, ...] = PACKAGES) -> list[Path]:
    return sorted(
        path
        for package in packages
        for path in (ROOT / package).rglob("*.py")
        if "migrations" not in path.parts
    )


def long_functions(path: Path, root: Path = ROOT) -> dict[str, int]:
    """``file::function`` → its length, for every function (or method) of ``path`` over the cap."""
    name = str(path.relative_to(root))
    return {
        f"{name}::{node.name}": length
        for node in ast.walk(ast.parse(path.read_text(), filename=str(path)))
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
        and (length := node.end_lineno - node.lineno + 1) > MAX_FUNCTION_LINES
    }


def local_imports(path: Path) -> set[str]:
    """Modules imported inside a function or method of ``path``."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            for inner in ast.walk(node):
                if isinstance(inner, ast.Import):
                    found.update(alias.name for alias in inner.names)
                elif isinstance(inner, ast.ImportFrom):
                    module = "." * inner.level + (inner.module or "")
                    found.update(f"{module}.{alias.name}" for alias in inner.names)
    return found


def test_the_rules_see_the_code():
    files = code_files()
    assert len(files) > 100 and ROOT / "researchapp/services/dispatch.py" in files
    assert local_imports(ROOT / "researchapp/services/dispatch.py") == {"researchapp.tasks"}


def test_no_module_is_longer_than_400_lines():
    long = {
        str(path.relative_to(ROOT)): count
        for path in code_files()
        if (count := len(path.read_text().splitlines())) > MAX_LINES
    }
    assert long == {}


def test_no_function_is_longer_than_60_lines(tmp_path):
    # given every function of the app and of the benchmarks (tests and migrations aside)
    long: dict[str, int] = {}
    for path in code_files((*PACKAGES, "bench")):
        long |= long_functions(path)

    # then none is over the cap
    assert long == {}

    # and the rule counts a function's lines from its def to its end
    sample = tmp_path / "sample.py"
    sample.write_text("def long():\n" + "    x = 1\n" * 60 + "\n\ndef short():\n    return 1\n")
    assert long_functions(sample, tmp_path) == {"sample.py::long": 61}


def test_no_function_imports_a_module_except_the_documented_one():
    found = {
        str(path.relative_to(ROOT)): imports
        for path in code_files()
        if (imports := local_imports(path)) != ALLOWED_LOCAL_IMPORTS.get(str(path.relative_to(ROOT)), set())
    }
    assert found == {}
