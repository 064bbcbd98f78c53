"""The comparison table of a comparative question: rows are dimensions, columns are options.

Each cell holds the report's own cited sentences of that dimension's section that name that option;
nothing is written for the table that the sections do not already state and cite.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from researchapp.pipeline.report.document import Document, Section, Statement
from researchapp.pipeline.report.markdown import markdown_text, statement_markdown
from researchapp.pipeline.text.question import read_question
from researchapp.pipeline.text.tokens import tokenize

# "How do A and B differ in cost?" → "cost"; "A和B在价格方面有何不同" → "价格"
_DIMENSION = (
    re.compile(r"\bdiffer(?:s|ent)?\s+(?:in|on|for|regarding)\s+(?P<d>.+?)\s*[?？.]?$", re.IGNORECASE),
    re.compile(r"在(?P<d>.+?)(?:方面|上)"),
)
EMPTY_CELL = "—"


@dataclass(frozen=True)
class Row:
    dimension: str
    subquestion_id: int
    cells: tuple[tuple[Statement, ...], ...]  # one per option, in the options' order


@dataclass(frozen=True)
class Comparison:
    options: tuple[str, ...]
    rows: tuple[Row, ...]


def dimension_of(section: Section) -> str:
    for pattern in _DIMENSION:
        match = pattern.search(section.heading)
        if match:
            return match.group("d").strip()
    return section.heading


def _distinct_terms(options: tuple[str, ...]) -> list[set[str]]:
    """Each option's terms that the other options do not share ("Kestrel sodium-ion home battery"
    vs "Osprey LFP home battery": {kestrel, sodium, ion} and {osprey, lfp})."""
    terms = [set(tokenize(option)) for option in options]
    return [
        own - set().union(*(other for j, other in enumerate(terms) if j != i)) for i, own in enumerate(terms)
    ]


def comparison(question: str, document: Document) -> Comparison | None:
    """The table, if the question compares two or more options and some section names one."""
    options = read_question(question).options
    if len(options) < 2:
        return None
    option_terms = _distinct_terms(options)
    rows = []
    for section in document.sections:
        said = [set(tokenize(statement.text)) for statement in section.statements]
        cells = tuple(
            tuple(s for s, words in zip(section.statements, said, strict=True) if terms & words)
            for terms in option_terms
        )
        if any(cells):
            rows.append(Row(dimension_of(section), section.subquestion_id, cells))
    return Comparison(options, tuple(rows)) if rows else None


def table_markdown(table: Comparison) -> list[str]:
    header = "| Dimension | " + " | ".join(markdown_text(option) for option in table.options) + " |"
    lines = [header, "|---" * (len(table.options) + 1) + "|"]
    for row in table.rows:
        cells = [" ".join(statement_markdown(s) for s in cell) or EMPTY_CELL for cell in row.cells]
        lines.append(f"| {markdown_text(row.dimension)} | " + " | ".join(cells) + " |")
    return lines
