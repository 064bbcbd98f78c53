#!/usr/bin/env python3
"""The Docker build context, as `docker build .` would send it, computed from .dockerignore without
an engine; `--check` fails if anything that must never be in the image is in it.

Docker's rules (moby's patternmatcher, which `docker build` uses): one pattern a line, `#` comments,
leading and trailing space and a leading `/` dropped, paths cleaned; `*` and `?` never cross a `/`,
`**` crosses any number of folders; a pattern matches a path or any folder above it; the last
pattern that matches decides, and `!` makes it an exception (the path is sent). Patterns are
anchored at the context's root: `*.pyc` is a root file only, `**/*.pyc` is any.

Usage: build_context.py [--check] [ROOT]   (ROOT defaults to the repository; stdlib only)
"""

from __future__ import annotations

import os
import posixpath
import re
import sys
from collections.abc import Iterator
from pathlib import Path

# Never in an image, whatever .dockerignore says (checked by path, independently of its patterns):
# secrets, the embedded profile's state, the virtualenv, version control, caches.
NEVER = (
    (re.compile(r"(^|/)\.env(\.[^/]*)?$"), "a .env file (secrets)"),
    (re.compile(r"^var/"), "var/ (the embedded database, broker and cache)"),
    (re.compile(r"\.sqlite3(-[a-z]+)?$"), "a SQLite database"),
    (re.compile(r"^\.venv(/|$)"), ".venv (the developer's virtualenv)"),
    (re.compile(r"^\.git(/|$)"), ".git (version control)"),
    (re.compile(r"(^|/)__pycache__/|\.py[co]$"), "a Python cache"),
    (re.compile(r"^\.(pytest|ruff|mypy|import_linter)_cache/"), "a tool's cache"),
)


def patterns(dockerignore: Path) -> list[tuple[bool, re.Pattern[str]]]:
    """(is an exception, regex) for every pattern, in order."""
    found = []
    lines = dockerignore.read_text(encoding="utf-8").splitlines() if dockerignore.exists() else []
    for line in lines:
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        exception = line.startswith("!")
        line = line[1:].strip() if exception else line
        line = posixpath.normpath(line.lstrip("/"))
        if line not in (".", ""):
            found.append((exception, re.compile(_regex(line))))
    return found


def _regex(pattern: str) -> str:
    out, index = "^", 0
    while index < len(pattern):
        char = pattern[index]
        if pattern.startswith("**", index):
            index += 2
            if pattern.startswith("/", index):  # "**/" : any number of folders, none included
                index += 1
                out += "(.*/)?"
            else:
                out += ".*"
            continue
        if char == "*":
            out += "[^/]*"
        elif char == "?":
            out += "[^/]"
        elif char == "[":
            end = pattern.find("]", index + 1)
            if end < 0:
                out += re.escape(char)
            else:
                body = pattern[index + 1 : end].replace("\\", "\\\\")
                out += "[" + ("^" + body[1:] if body.startswith("^") else body) + "]"
                index = end
        elif char == "\\" and index + 1 < len(pattern):
            index += 1
            out += re.escape(pattern[index])
        else:
            out += re.escape(char)
        index += 1
    return out + "$"


def excluded(path: str, rules: list[tuple[bool, re.Pattern[str]]]) -> bool:
    """Whether ``path`` (relative, with /) is left out: the last rule matching it or a parent decides."""
    parents = [path]
    while "/" in parents[-1]:
        parents.append(parents[-1].rsplit("/", 1)[0])
    verdict = False
    for exception, regex in rules:
        if any(regex.match(candidate) for candidate in parents):
            verdict = not exception
    return verdict


# Sent whatever .dockerignore says: the builder reads them.
ALWAYS_SENT = (".dockerignore", "Dockerfile")


def context(root: Path) -> Iterator[str]:
    """Every file (and symbolic link) `docker build` would send, relative to ``root``."""
    rules = patterns(root / ".dockerignore")
    yield from (name for name in ALWAYS_SENT if (root / name).exists() and excluded(name, rules))
    for folder, subfolders, files in os.walk(root):
        here = Path(folder).relative_to(root).as_posix()
        here = "" if here == "." else here + "/"
        # A folder left out is not walked unless an exception could bring something in it back.
        if not any(exception for exception, _ in rules):
            subfolders[:] = [name for name in subfolders if not excluded(here + name, rules)]
        for name in files + [name for name in subfolders if (Path(folder) / name).is_symlink()]:
            if not excluded(here + name, rules):
                yield here + name


def problems(root: Path) -> list[str]:
    return [f"{path}: {why}" for path in context(root) for regex, why in NEVER if regex.search(path)]


def main(argv: list[str]) -> int:
    check = "--check" in argv
    args = [arg for arg in argv if arg != "--check"]
    root = Path(args[0]) if args else Path(__file__).resolve().parent.parent
    if not check:
        print("\n".join(sorted(context(root))))
        return 0
    found = problems(root)
    for line in found:
        print(f"in the Docker build context: {line}", file=sys.stderr)
    print(f"Docker build context: {'refused' if found else 'clean'} ({sum(1 for _ in context(root))} files)")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
