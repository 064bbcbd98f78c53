"""An import-linter contract type for what the built-in ``forbidden`` cannot say: part of an outside package.

import-linter sees an outside package only whole (``django``), so ``forbidden`` can forbid all of
Django but not ``django.db`` alone while ``django.conf`` stays allowed. This contract reads the import
statements grimp recorded instead (``.importlinter`` registers it as ``forbidden_external_submodules``;
``lint-imports`` finds it because it puts the folder it runs in on ``sys.path``).
"""

from __future__ import annotations

import re

from grimp import ImportGraph
from importlinter import Contract, ContractCheck, fields, output

FROM_IMPORT = re.compile(r"^\s*from\s+([\w.]+)\s+import\s+(.*)$")
PLAIN_IMPORT = re.compile(r"^\s*import\s+(.*)$")


def modules_named(statement: str) -> set[str]:
    """Every module an import statement may bind: ``from django import db`` names ``django.db``."""
    statement = statement.split("#")[0].rstrip()
    if found := FROM_IMPORT.match(statement):
        package, names = found.groups()
        bound = (part.split(" as ")[0].strip(" ()\\") for part in names.split(","))
        return {package} | {f"{package}.{name}" for name in bound if name.isidentifier()}
    if found := PLAIN_IMPORT.match(statement):
        return {part.split(" as ")[0].strip() for part in found.group(1).split(",")}
    return set()


class ForbiddenExternalSubmodules(Contract):
    """No module in ``source_modules`` (or below them) imports any of ``forbidden_modules`` directly."""

    type_name = "forbidden_external_submodules"

    source_modules = fields.ListField(subfield=fields.ModuleField())
    forbidden_modules = fields.ListField(subfield=fields.StringField())

    def check(self, graph: ImportGraph, verbose: bool) -> ContractCheck:
        forbidden = tuple(self.forbidden_modules)
        roots = {name.split(".")[0] for name in forbidden}
        broken = []
        for source in self.source_modules:
            for importer in sorted({source.name} | graph.find_descendants(source.name)):
                for imported in sorted(graph.find_modules_directly_imported_by(importer) & roots):
                    for line in graph.get_import_details(importer=importer, imported=imported):
                        named = modules_named(line["line_contents"])
                        if any(m == f or m.startswith(f + ".") for m in named for f in forbidden):
                            broken.append({"importer": importer, **line})
        return ContractCheck(kept=not broken, metadata={"imports": broken})

    def render_broken_contract(self, check: ContractCheck) -> None:
        for line in check.metadata["imports"]:
            output.print_error(
                f"{line['importer']} (l. {line['line_number']}): {line['line_contents'].strip()}", bold=False
            )
            output.new_line()
