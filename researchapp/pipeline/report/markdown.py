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
from researchapp.core.text import visible_text
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
from researchapp.pipeline.report.labels import (
    DISPUTED_SECTION_NOTE,
    EN,
    GAP_SECTION_NOTE,
    NO_CLAIMS_NOTE,
    STATED_ABOVE_NOTE,
    Labels,
    labels_of_title,
)

_MARKUP = re.compile(r"([\\`*_\[\]<>&!|~#$@{}])")
_URL_COLON = re.compile(r":(?=//)")
_WWW = re.compile(r"(?i)\b(www)\.")
# What would open a block if the text began a line (after the prefix written before it, it cannot,
# but a list item's content that starts with "1." or "-" opens a list inside the item).
_LEADING_BLOCK = re.compile(r"^(\d{1,9})([.)])|^([-+=])")

# The English words, as the writer stores its notes (``labels`` has every language's).
PROVENANCE_LINE = f"*{EN.provenance}*"
NO_CLAIMS_LINE = NO_CLAIMS_NOTE
DISPUTED_NOTE = DISPUTED_SECTION_NOTE
GAP_NOTE = GAP_SECTION_NOTE
STATED_ABOVE_LINE = STATED_ABOVE_NOTE


def markdown_text(text: str) -> str:
    """``text`` as one line of Markdown that renders as exactly its characters (whitespace collapsed,
    bidirectional controls and zero-width spaces left out: they would reorder or hide what is shown)."""
    line = " ".join(visible_text(text).split())
    line = _MARKUP.sub(r"\\\1", line)
    line = _URL_COLON.sub(r"\\:", line)
    line = _WWW.sub(r"\1\\.", line)
    return _LEADING_BLOCK.sub(lambda m: f"{m[1]}\\{m[2]}" if m[1] else f"\\{m[3]}", line)


def statement_markdown(statement: Statement, labels: Labels = EN) -> str:
    """The sentence and its markers; an answer's span first ("**Answer:** 4,200 euros — …")."""
    sentence = f"{markdown_text(statement.text)}{markers(statement.evidence_ids)}"
    if not statement.answer or " ".join(statement.answer.split()) == " ".join(statement.text.split()):
        return sentence
    return f"**{labels.answer_is}:** {markdown_text(statement.answer)} — {sentence}"


def decision_line(decision: Decision, labels: Labels = EN) -> str:
    line = f"- {labels.decision}: {markdown_text(labels.decision_summary(decision))}"
    return f"{line}. {labels.reason}: “{markdown_text(decision.reason)}”" if decision.reason else line


def _section_lines(section: Section, labels: Labels) -> list[str]:
    lines = ["", f"## {markdown_text(section.heading)}", ""]
    if section.answer:
        lines += [f"**{labels.answer_is}:** {markdown_text(section.answer)} *({labels.answered_above})*", ""]
    lines += [f"- {statement_markdown(statement, labels)}" for statement in section.statements]
    if section.note:
        lines.append(f"*{markdown_text(labels.note_text(section.note))}*")
    return lines


def _dispute_lines(dispute: Dispute, passage: Callable[[Passage], str], labels: Labels) -> list[str]:
    # The report's own claim about the disagreement is its heading; a picked one has none.
    heading = statement_markdown(dispute.claim) if dispute.claim else markdown_text(dispute.topic)
    lines = ["", f"### {heading}", ""]
    lines += [f"- {passage(item)}" for item in dispute.passages]
    return lines + [decision_line(dispute.decision, labels)]


def _gap_lines(gap: Gap, passage: Callable[[Passage], str], labels: Labels) -> list[str]:
    searched = "; ".join(f"“{markdown_text(query)}”" for query in gap.searched) or labels.nothing_searched
    lines = ["", f"### {INSUFFICIENT_MARK} {markdown_text(gap.statement)}", ""]
    lines.append(f"- {labels.searched}: {searched}")
    lines += [f"- {passage(item)}" for item in gap.passages] or [f"- {labels.no_close_passage}"]
    return lines + [decision_line(gap.decision, labels)]


def _hypothesis_lines(
    hypothesis: TestedHypothesis, passage: Callable[[Passage], str], labels: Labels
) -> list[str]:
    lines = ["", f"### {markdown_text(hypothesis.statement)}", ""]
    lines += [
        f"- {labels.supports_if}: {markdown_text(hypothesis.supports_if)}",
        f"- {labels.refutes_if}: {markdown_text(hypothesis.refutes_if)}",
    ]
    lines += [f"- {passage(item)}" for item in hypothesis.passages] or [
        f"- {labels.no_passage_for_hypothesis}"
    ]
    return lines + [decision_line(hypothesis.decision, labels)]


def code_block(code: str) -> list[str]:
    """``code`` as a fenced block whose fence is longer than any run of backticks in it: nothing in
    the code can close the block early, and nothing inside a block is Markdown."""
    runs = [len(run) for run in re.findall(r"`+", code)]
    fence = "`" * max(3, max(runs, default=0) + 1)
    lines = visible_text(code).replace("\r\n", "\n").replace("\r", "\n").split("\n")
    return [f"{fence}python", *lines, fence]


def _computed_lines(figure: ComputedFigure, passage: Callable[[Passage], str], labels: Labels) -> list[str]:
    result = figure_text(figure.result)
    lines = ["", f"### {markdown_text(figure.description)}: {result}", "", f"- {labels.result}: {result}"]
    lines += [
        f"- {markdown_text(item.name)} = {figure_text(item.value)} — "
        f"{passage(Passage(item.evidence_id, READ_FROM))}"
        for item in figure.inputs
    ]
    return [*lines, "", *code_block(figure.code)]


def body_markdown(
    document: Document,
    passage: Callable[[Passage], str],
    table: list[str] | None = None,
    labels: Labels | None = None,
) -> list[str]:
    """The report's body (after its title) in its language: answer, comparison table, sections,
    disputes, gaps, hypotheses, computed figures."""
    labels = labels or labels_of_title(document.title)
    lines: list[str] = []
    if document.answer:
        heading = labels.key_findings if document.answer_is_summary else labels.answer
        lines += ["", f"## {heading}", ""]
        if document.answer_is_summary:
            lines += [f"*{labels.summary_line}*", ""]
        lines += [f"- {statement_markdown(statement, labels)}" for statement in document.answer]
    if document.not_stated:
        lines += ["", f"## {labels.answer}", ""] if not document.answer else []
        lines += [f"- {labels.not_stated}: {markdown_text(text)}" for text in document.not_stated]
    if document.responses:
        lines += ["", *(f"*{labels.comment_response}: {markdown_text(text)}*" for text in document.responses)]
    if table:
        lines += ["", f"## {labels.comparison}", "", *table]
    for section in document.sections:
        lines += _section_lines(section, labels)
    if document.disputes:
        lines += ["", f"## {labels.disputed}"]
        for dispute in document.disputes:
            lines += _dispute_lines(dispute, passage, labels)
    if document.gaps:
        lines += ["", f"## {labels.to_verify} {INSUFFICIENT_MARK}"]
        for gap in document.gaps:
            lines += _gap_lines(gap, passage, labels)
    if document.hypotheses:
        lines += ["", f"## {labels.hypotheses}"]
        for hypothesis in document.hypotheses:
            lines += _hypothesis_lines(hypothesis, passage, labels)
    if document.computed:
        lines += ["", f"## {labels.computed}", "", f"*{labels.computed_line}*"]
        for figure in document.computed:
            lines += _computed_lines(figure, passage, labels)
    return lines


def role_label(role: str, labels: Labels = EN) -> str:
    return labels.role(role)
