"""Report structure → Markdown. Other people's text is escaped where it is written, so that Markdown
structure (headings, lists, links, images, tables, HTML) comes only from the lines written here.

Every piece of text becomes one line: a newline in a title or a quote cannot start a heading, a
list or a quote block. Markup characters are backslash-escaped; so are the ``://`` and ``www.`` that
would let a GitHub-flavoured renderer turn a URL in a quote into a link. Citation markers are
written from evidence ids (``markers``), never taken from text.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from researchapp.core.enums import INSUFFICIENT_MARK
from researchapp.pipeline.report import markers
from researchapp.pipeline.report.document import (
    READ_FROM,
    ComputedFigure,
    Decision,
    Dispute,
    Document,
    Gap,
    Passage,
    Section,
    Statement,
    TestedHypothesis,
    figure_text,
)

_MARKUP = re.compile(r"([\\`*_\[\]<>&!|~#$@{}])")
_URL_COLON = re.compile(r":(?=//)")
_WWW = re.compile(r"(?i)\b(www)\.")
# What would open a block if the text began a line (after the prefix written before it, it cannot,
# but a list item's content that starts with "1." or "-" opens a list inside the item).
_LEADING_BLOCK = re.compile(r"^(\d{1,9})([.)])|^([-+=])")

ANSWER_HEADING = "## Answer"
SUMMARY_HEADING = "## Key findings"
TABLE_HEADING = "## Comparison"
DISPUTED_HEADING = "## Disputed findings"
GAPS_HEADING = "## To verify [证据不足]"
HYPOTHESES_HEADING = "## Hypotheses tested"
NO_PASSAGE_FOR_HYPOTHESIS = "No passage found on either side yet."
COMPUTED_HEADING = "## Computed figures"
COMPUTED_LINE = (
    "Computed in a sandbox from numbers of the quoted passages; each input was checked against its quote."
)
PROVENANCE_LINE = (
    "*This report was written from verbatim quotes of stored sources: every [E…] marker points at "
    "a quoted passage listed under References.*"
)
NO_CLAIMS_LINE = "No supported finding for this sub-question."
DISPUTED_NOTE = "Sources disagree on this sub-question: see Disputed findings."
GAP_NOTE = "Too little evidence to state anything: see To verify."
STATED_ABOVE_LINE = "What the sources say on this sub-question is stated in an earlier section."
SUMMARY_LINE = "The first finding of each section below."
NOTHING_SEARCHED = "no search recorded"
NO_CLOSE_PASSAGE = "No passage came close."
ROLE_LABELS = {
    "supports": "Says so",
    "contradicts": "Disagrees",
    "kept": "Kept",
    "set aside": "Set aside",
    "closest": "Closest passage",
    "for": "For",
    "against": "Against",
    READ_FROM: "Read from",
}


def markdown_text(text: str) -> str:
    """``text`` as one line of Markdown that renders as exactly its characters (whitespace collapsed)."""
    line = " ".join(text.split())
    line = _MARKUP.sub(r"\\\1", line)
    line = _URL_COLON.sub(r"\\:", line)
    line = _WWW.sub(r"\1\\.", line)
    return _LEADING_BLOCK.sub(lambda m: f"{m[1]}\\{m[2]}" if m[1] else f"\\{m[3]}", line)


def statement_markdown(statement: Statement) -> str:
    return f"{markdown_text(statement.text)}{markers(statement.evidence_ids)}"


def decision_line(decision: Decision) -> str:
    line = f"- Decision: {markdown_text(decision.summary)}"
    return f"{line}. Reason: “{markdown_text(decision.reason)}”" if decision.reason else line


def _section_lines(section: Section) -> list[str]:
    lines = ["", f"## {markdown_text(section.heading)}", ""]
    lines += [f"- {statement_markdown(statement)}" for statement in section.statements]
    if section.note:
        lines.append(f"*{markdown_text(section.note)}*")
    return lines


def _dispute_lines(dispute: Dispute, passage: Callable[[Passage], str]) -> list[str]:
    # The report's own claim about the disagreement is its heading; a picked one has none.
    heading = statement_markdown(dispute.claim) if dispute.claim else markdown_text(dispute.topic)
    lines = ["", f"### {heading}", ""]
    lines += [f"- {passage(item)}" for item in dispute.passages]
    return lines + [decision_line(dispute.decision)]


def _gap_lines(gap: Gap, passage: Callable[[Passage], str]) -> list[str]:
    searched = "; ".join(f"“{markdown_text(query)}”" for query in gap.searched) or NOTHING_SEARCHED
    lines = ["", f"### {INSUFFICIENT_MARK} {markdown_text(gap.statement)}", "", f"- Searched: {searched}"]
    lines += [f"- {passage(item)}" for item in gap.passages] or [f"- {NO_CLOSE_PASSAGE}"]
    return lines + [decision_line(gap.decision)]


def _hypothesis_lines(hypothesis: TestedHypothesis, passage: Callable[[Passage], str]) -> list[str]:
    lines = ["", f"### {markdown_text(hypothesis.statement)}", ""]
    lines += [
        f"- Would support it: {markdown_text(hypothesis.supports_if)}",
        f"- Would refute it: {markdown_text(hypothesis.refutes_if)}",
    ]
    lines += [f"- {passage(item)}" for item in hypothesis.passages] or [f"- {NO_PASSAGE_FOR_HYPOTHESIS}"]
    return lines + [decision_line(hypothesis.decision)]


def code_block(code: str) -> list[str]:
    """``code`` as a fenced block whose fence is longer than any run of backticks in it: nothing in
    the code can close the block early, and nothing inside a block is Markdown."""
    runs = [len(run) for run in re.findall(r"`+", code)]
    fence = "`" * max(3, max(runs, default=0) + 1)
    return [f"{fence}python", *code.replace("\r\n", "\n").replace("\r", "\n").split("\n"), fence]


def _computed_lines(figure: ComputedFigure, passage: Callable[[Passage], str]) -> list[str]:
    result = figure_text(figure.result)
    lines = ["", f"### {markdown_text(figure.description)}: {result}", "", f"- Result: {result}"]
    lines += [
        f"- {markdown_text(item.name)} = {figure_text(item.value)} — "
        f"{passage(Passage(item.evidence_id, READ_FROM))}"
        for item in figure.inputs
    ]
    return [*lines, "", *code_block(figure.code)]


def body_markdown(
    document: Document, passage: Callable[[Passage], str], table: list[str] | None = None
) -> list[str]:
    """The report's body (after its title): answer, comparison table, sections, disputes, gaps,
    hypotheses, computed figures."""
    lines: list[str] = []
    if document.answer:
        lines += ["", SUMMARY_HEADING if document.answer_is_summary else ANSWER_HEADING, ""]
        if document.answer_is_summary:
            lines += [f"*{SUMMARY_LINE}*", ""]
        lines += [f"- {statement_markdown(statement)}" for statement in document.answer]
    if table:
        lines += ["", TABLE_HEADING, "", *table]
    for section in document.sections:
        lines += _section_lines(section)
    if document.disputes:
        lines += ["", DISPUTED_HEADING]
        for dispute in document.disputes:
            lines += _dispute_lines(dispute, passage)
    if document.gaps:
        lines += ["", GAPS_HEADING]
        for gap in document.gaps:
            lines += _gap_lines(gap, passage)
    if document.hypotheses:
        lines += ["", HYPOTHESES_HEADING]
        for hypothesis in document.hypotheses:
            lines += _hypothesis_lines(hypothesis, passage)
    if document.computed:
        lines += ["", COMPUTED_HEADING, "", f"*{COMPUTED_LINE}*"]
        for figure in document.computed:
            lines += _computed_lines(figure, passage)
    return lines


def role_label(role: str) -> str:
    return ROLE_LABELS.get(role, role.capitalize())
