"""README's "Where the code lives" is a map a newcomer follows: every file it names exists, and every
``file.py::name`` it names is defined in that file (a function, a class, or a method of one)."""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# `researchapp/views.py::task_submit`, `stages.py::stage_plan`, `wiring.py::writer_for`, `templates/x.html`
REFERENCE = re.compile(r"`([\w./{},-]+\.(?:py|html))(?:::(\w+))?`")
PACKAGES = ("researchapp", "reviews")


def map_section() -> str:
    text = (ROOT / "README.md").read_text()
    start = text.index("## Where the code lives")
    end = text.find("\n## ", start + 1)
    return text[start : end if end != -1 else len(text)]


def candidates(name: str) -> list[Path]:
    """The files a reference can mean: a path from the root, from a package, or a file name that
    stands for the one module of that name (``stages.py``)."""
    direct = [base / name for base in (ROOT, *(ROOT / package for package in PACKAGES))]
    found = [path for path in direct if path.is_file()]
    if found:
        return found
    if "/" not in name:
        return [path for package in PACKAGES for path in (ROOT / package).rglob(name)]
    # `pipeline/runner/plan.py` is researchapp's; `selectors/plans.py` may sit in either app
    return [
        path
        for package in PACKAGES
        for path in (ROOT / package).rglob(name)
        if path.as_posix().endswith(name)
    ]


def defined_names(path: Path) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names.add(node.name)
        elif isinstance(node, ast.Assign):
            names.update(target.id for target in node.targets if isinstance(target, ast.Name))
    return names


def references() -> list[tuple[str, str | None]]:
    found = []
    for file_name, member in REFERENCE.findall(map_section()):
        if "{" in file_name:  # `fetch/{client,guard,extract}.py`
            stem, inner = file_name.split("{", 1)
            names, rest = inner.split("}", 1)
            found += [(f"{stem}{part}{rest}", member or None) for part in names.split(",")]
        else:
            found.append((file_name, member or None))
    return found


def test_the_map_names_code():
    assert len(references()) > 60


def test_every_file_and_function_the_map_names_exists():
    missing = []
    for file_name, member in references():
        if file_name.endswith(".html"):
            if not (ROOT / file_name).is_file() and not (ROOT / "templates" / file_name).is_file():
                missing.append(file_name)
            continue
        paths = candidates(file_name)
        if not paths:
            missing.append(file_name)
        elif member and not any(member in defined_names(path) for path in paths):
            missing.append(f"{file_name}::{member}")
    assert missing == []
