"""Markdown export: the report model written as Markdown, every outside text escaped where it is written.

Citation markers ``[E12]`` are links, by reference definitions at the end, to the cited source
(http and https sources only); references are numbered in reading order; the appendix holds every
cited quote in full.
"""

from __future__ import annotations

from researchapp.exports.references import Quote, Reference
from researchapp.exports.report import Report, approval_text, report_of
from researchapp.models import ReportDraft
from researchapp.pipeline.report.document import Passage
from researchapp.pipeline.report.labels import Labels
from researchapp.pipeline.report.markdown import body_markdown, markdown_text
from researchapp.pipeline.report.table import table_markdown

SNAPSHOT_SLICE = "snapshot[start:end]"  # code in the ledger line, in every language


def _named(reference: Reference) -> str:
    title = markdown_text(reference.title)
    return f"[{title}](<{reference.link}>)" if reference.link else title


def _where(reference: Reference, words: Labels) -> str:
    """A paper's authors, venue, year and DOI; a corpus document's corpus and the address it claims
    (text, never a link); a web page's host."""
    if reference.corpus:
        return f"{markdown_text(reference.corpus)} — {words.claimed_address}: {markdown_text(reference.url)}"
    if not reference.is_paper:
        return markdown_text(reference.host)
    parts = [markdown_text(reference.byline)] if reference.byline else []
    if reference.doi:
        doi = markdown_text(reference.doi)
        parts.append(f"DOI [{doi}](<{reference.doi_link}>)" if reference.doi_link else f"DOI {doi}")
    return " — ".join(parts)


def _source(reference: Reference) -> str:
    return f"[{reference.number}] {_named(reference)}"


def _quote(quote: Quote) -> str:
    return f"“{markdown_text(quote.text)}” — {_source(quote.reference)}"


def report_markdown(report: Report) -> str:
    """1. Title block and notice; 2. the body as the writer structured it (with the comparison
    table); 3. method; 4. numbered references; 5. appendix; 6. the markers' link definitions."""
    method, draft, words = report.method, report.draft, report.labels
    lines = [f"# {markdown_text(report.title)}", ""]
    if report.notice:
        lines += [f"> **{words.invented_sources}** {markdown_text(report.notice)}", ""]
    status = approval_text(report, markdown_text)
    lines.append(words.title_line.format(task=report.task.pk, version=draft.version, status=status))

    def passage(item: Passage) -> str:
        quote = report.quotes.get(item.evidence_id)
        shown = _quote(quote) if quote else f"({words.not_in_ledger})"
        return f"{words.role(item.role)} E{item.evidence_id}: {shown}"

    table = table_markdown(report.table) if report.table else None
    lines += body_markdown(report.document, passage, table, labels=words)
    models = f" ({markdown_text(', '.join(method.models))})" if method.models else ""
    lines += [
        "",
        f"## {words.method}",
        "",
        f"- {words.sources_opened}: {method.sources_opened}; "
        f"{words.independent_sources.lower()}: {method.independent_sources}",
        f"- {words.rounds}: {method.rounds}; {words.search.lower()}: {markdown_text(method.search)}",
        f"- {words.engine}: {markdown_text(method.engine)}{models}; {words.tokens.lower()}: "
        f"{method.tokens_in} / {method.tokens_out}",
        *(f"- {markdown_text(note)}" for note in method.notes),
        "",
        words.ledger_line.replace(SNAPSHOT_SLICE, f"`{SNAPSHOT_SLICE}`"),
        "",
        f"## {words.references}",
        "",
    ]
    for ref in report.references:
        lines.append(
            f"{ref.number}. {_named(ref)} — {_where(ref, words)} — "
            f"{words.accessed} {ref.accessed:%Y-%m-%d} — sha256 `{ref.sha256}`"
        )
    lines += ["", f"## {words.appendix}", ""]
    for quote in report.appendix:
        lines += [
            f"**E{quote.evidence_id}** — {words.characters} {quote.start}–{quote.end}, {words.relevance} "
            f"{quote.relevance:.2f}: {_quote(quote)}",
            "",
        ]
    links = [f"[E{q.evidence_id}]: <{q.reference.link}>" for q in report.appendix if q.reference.link]
    return "\n".join([*lines, *links]).rstrip() + "\n"


def render_markdown(draft: ReportDraft) -> str:
    return report_markdown(report_of(draft))
