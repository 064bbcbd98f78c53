"""The report as every format renders it: one model, built from a draft's stored structure and the ledger.

Nothing here is markup. Text stays text (the page and the PDF escape it through Django's templates,
the Markdown export through ``markdown_text``); citations are evidence ids, drawn from the stored
structure; a link is made only from a stored source URL whose scheme is http or https.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from urllib.parse import urlsplit

from django.db.models import QuerySet

from researchapp.core.enums import INSUFFICIENT_MARK, Intent
from researchapp.exports.method import Method, method_of
from researchapp.models import Evidence, ReportDraft, ResearchTask, Source
from researchapp.pipeline.report import paper_reference
from researchapp.pipeline.report.document import (
    READ_FROM,
    Decision,
    Document,
    Passage,
    Statement,
    document_from_claims,
    document_from_json,
    figure_text,
)
from researchapp.pipeline.report.labels import DEMO_NOTICE, Labels, labels_for, report_language
from researchapp.pipeline.report.table import Comparison, comparison

_UNSAFE_IN_URL = frozenset(" \t\r\n\"'<>\\`")


def safe_link(url: str) -> str:
    """``url`` if it is an http(s) address a link may point at; "" for anything else."""
    if not url or any(char in _UNSAFE_IN_URL or ord(char) < 32 for char in url):
        return ""
    parts = urlsplit(url)
    return url if parts.scheme in ("http", "https") and parts.hostname else ""


@dataclass(frozen=True)
class Reference:
    """A source, numbered in the order the report first cites it."""

    number: int
    title: str
    host: str
    url: str
    link: str  # ``url`` if it may be a link, else ""
    accessed: datetime
    sha256: str
    # A paper's reference (academic sources): empty for a web page.
    doi: str = ""
    authors: tuple[str, ...] = ()
    venue: str = ""
    year: int | None = None

    @property
    def is_paper(self) -> bool:
        return bool(self.doi or self.authors or self.venue or self.year)

    @property
    def byline(self) -> str:
        """ "Lima, Zhang, Okafor et al. · Journal of Photovoltaics · 2023": who, where, when."""
        return paper_reference(self.authors, self.venue, self.year)

    @property
    def doi_link(self) -> str:
        return safe_link(f"https://doi.org/{self.doi}") if self.doi else ""


@dataclass(frozen=True)
class Quote:
    """A quoted passage of the ledger: ``snapshot[start:end] == text``, cut from ``reference``."""

    evidence_id: int
    text: str
    start: int
    end: int
    sha256: str
    relevance: float
    reference: Reference


@dataclass(frozen=True)
class Sentence:
    """A sentence the report asserts, with its citations; ``anchor`` is where comments attach."""

    anchor: str
    text: str
    cites: tuple[int, ...]
    answer: str = ""  # the words that answer, shown first when they are not the whole sentence

    @property
    def shows_answer(self) -> bool:
        return bool(self.answer) and " ".join(self.answer.split()) != " ".join(self.text.split())


@dataclass(frozen=True)
class Shown:
    """A passage quoted in full in a record; a computed figure's input cites it (``cites``: its
    evidence id, a marker linking to the appendix)."""

    label: str
    quote: Quote | None
    cites: tuple[int, ...] = ()


@dataclass(frozen=True)
class Record:
    """A dispute or a gap as shown: heading (the report's claim, if any), passages, decision."""

    kind: str  # "dispute" or "gap"
    anchor: str
    heading: Sentence
    passages: tuple[Shown, ...]
    decision: Decision
    searched: tuple[str, ...] = ()
    supports_if: str = ""  # a hypothesis: what would support it, and what would refute it
    refutes_if: str = ""
    result: str = ""  # a computed figure: its result and the code that computed it; its passages
    code: str = ""  # are its inputs ("forecast = 26 — read from E12") with their quotes
    decision_text: str = ""  # ``decision.summary`` in the report's language


@dataclass(frozen=True)
class Block:
    """One sub-question's section."""

    anchor: str
    heading: str
    sentences: tuple[Sentence, ...]
    note: str
    answer: str = ""  # the answer the opening states, which the section opens with


@dataclass(frozen=True)
class Report:
    task: ResearchTask
    draft: ReportDraft
    document: Document
    notice: str
    answer: tuple[Sentence, ...]
    table: Comparison | None
    table_rows: tuple[tuple[str, tuple[tuple[Sentence, ...], ...]], ...]
    blocks: tuple[Block, ...]
    disputes: tuple[Record, ...]
    gaps: tuple[Record, ...]
    hypotheses: tuple[Record, ...]
    computed: tuple[Record, ...]
    method: Method
    references: tuple[Reference, ...]
    appendix: tuple[Quote, ...]  # every cited quote (computed figures' inputs too), in reading order
    quotes: dict[int, Quote]

    @property
    def title(self) -> str:
        return self.document.title

    @property
    def insufficient_mark(self) -> str:
        return INSUFFICIENT_MARK

    @property
    def language(self) -> str:
        """The document's language tag: Simplified Chinese for a question in Chinese (the font's
        regional forms follow it), English otherwise."""
        return report_language(self.title)

    @property
    def labels(self) -> Labels:
        """The report's own headings and labels in its language (the page chrome stays in the UI's)."""
        return labels_for(self.language)

    def contents(self) -> list[tuple[str, str]]:
        """(anchor, heading) of every section, in order: the table of contents."""
        words = self.labels
        entries = []
        if self.answer or self.document.not_stated:
            entries.append(
                ("answer", words.key_findings if self.document.answer_is_summary else words.answer)
            )
        if self.table:
            entries.append(("comparison", words.comparison))
        entries += [(block.anchor, block.heading) for block in self.blocks]
        if self.disputes:
            entries.append(("disputed", words.disputed))
        if self.gaps:
            entries.append(("to-verify", f"{words.to_verify} {INSUFFICIENT_MARK}"))
        if self.hypotheses:
            entries.append(("hypotheses", words.hypotheses))
        if self.computed:
            entries.append(("computed", words.computed))
        return entries + [
            ("method", words.method),
            ("references", words.references),
            ("appendix", words.appendix_short),
        ]

    def sentences(self) -> list[Sentence]:
        """Every sentence a comment can attach to, in reading order."""
        found = [s for block in self.blocks for s in block.sentences]
        records = (*self.disputes, *self.gaps, *self.hypotheses, *self.computed)
        return [*self.answer, *found, *(record.heading for record in records)]


class _Anchors:
    """Anchors in reading order ("s1", "s2", …): stable for one version, shown next to each sentence."""

    def __init__(self) -> None:
        self.count = 0

    def sentence(self, text: str, cites: tuple[int, ...] = (), answer: str = "") -> Sentence:
        self.count += 1
        return Sentence(f"s{self.count}", text, cites, answer)

    def of(self, statement: Statement) -> Sentence:
        return self.sentence(statement.text, statement.evidence_ids, statement.answer)


def _evidence_rows(task: ResearchTask, ids: list[int]) -> dict[int, Evidence]:
    rows = Evidence.objects.filter(task=task, pk__in=ids).select_related("source").defer("source__text")
    return {row.pk: row for row in rows}


def _quotes(rows: dict[int, Evidence], order: list[int]) -> tuple[dict[int, Quote], list[Reference]]:
    """Quotes for every row; references numbered by first citation in ``order``, then the rest."""
    references: dict[int, Reference] = {}
    quotes: dict[int, Quote] = {}
    for evidence_id in [*order, *sorted(rows)]:
        row = rows.get(evidence_id)
        if row is None or evidence_id in quotes:
            continue
        source: Source = row.source
        if source.pk not in references:
            references[source.pk] = Reference(
                number=len(references) + 1,
                title=source.title or source.host or source.url,
                host=source.host,
                url=source.url,
                link=safe_link(source.url),
                accessed=source.fetched_at,
                sha256=source.sha256,
                doi=source.doi,
                authors=tuple(str(name) for name in source.authors or ()),
                venue=source.venue,
                year=source.year,
            )
        quotes[evidence_id] = Quote(
            evidence_id=row.pk,
            text=row.quote,
            start=row.start,
            end=row.end,
            sha256=row.snapshot_sha256,
            relevance=row.relevance,
            reference=references[source.pk],
        )
    return quotes, list(references.values())


def approval_text(report: Report, text: Callable[[str], str] = str) -> str:
    """Who approved the draft and when, or its status, in the report's language (``text`` escapes the
    words that come from people for the format, Markdown; a template escapes its own)."""
    draft, words = report.draft, report.labels
    if not draft.approved_at:
        return words.not_approved.format(status=text(draft.get_status_display()))
    who = draft.approved_by.get_username() if draft.approved_by else words.auto_approval
    return words.approved_by.format(who=text(who), when=f"{draft.approved_at:%Y-%m-%d %H:%M}")


def document_of(draft: ReportDraft, task: ResearchTask | None = None) -> Document:
    """The draft's stored structure (``task``: its task, already loaded)."""
    if draft.document:
        return document_from_json(draft.document)
    # A draft stored before documents were: its claims, in the sections they name.
    task = task or draft.task
    plan = task.plans.approved().latest_version()
    headings = {sq.pk: sq.text for sq in plan.subquestions.all()} if plan else {}
    return document_from_claims(task.question, draft.claims, headings)


def report_of(draft: ReportDraft, tasks: QuerySet[ResearchTask] | None = None) -> Report:
    """The report of ``draft``, ready for any format (a fixed number of queries, whatever its size).

    1. The stored structure; 2. the quoted ledger rows, references numbered in reading order;
    3. sentences with their anchors; disputes, gaps, hypotheses and computed figures with their
    passages; 4. the method.
    """
    task = (tasks or ResearchTask.objects).select_related("corpus").get(pk=draft.task_id)
    document = document_of(draft, task)
    labels = labels_for(report_language(document.title))
    # Computed figures cite the passages their inputs were read from, after the sentences' citations.
    cited = list(dict.fromkeys([*document.cited_ids(), *document.computed_ids()]))
    quotes, references = _quotes(_evidence_rows(task, [*cited, *document.quoted_ids()]), cited)
    anchors = _Anchors()

    def shown(passage: Passage) -> Shown:
        return Shown(f"{labels.role(passage.role)} E{passage.evidence_id}", quotes.get(passage.evidence_id))

    answer = tuple(map(anchors.of, document.answer))
    blocks = tuple(
        Block(
            f"sq{s.subquestion_id}",
            s.heading,
            tuple(map(anchors.of, s.statements)),
            labels.note_text(s.note),
            s.answer,
        )
        for s in document.sections
    )
    by_text = {sentence.text: sentence for block in blocks for sentence in block.sentences}
    plan_intent = task.plans.approved().values_list("intent", flat=True).first()
    table = comparison(task.question, document) if plan_intent == Intent.COMPARATIVE else None
    table_rows = tuple(
        (row.dimension, tuple(tuple(by_text[s.text] for s in cell) for cell in row.cells))
        for row in (table.rows if table else ())
    )
    disputes = tuple(
        Record(
            kind="dispute",
            anchor=f"dispute-{number}",
            heading=anchors.of(d.claim) if d.claim else anchors.sentence(d.topic),
            passages=tuple(map(shown, d.passages)),
            decision=d.decision,
            decision_text=labels.decision_summary(d.decision),
        )
        for number, d in enumerate(document.disputes, start=1)
    )
    gaps = tuple(
        Record(
            kind="gap",
            anchor=f"gap-{number}",
            heading=anchors.sentence(g.statement),
            passages=tuple(map(shown, g.passages)),
            decision=g.decision,
            decision_text=labels.decision_summary(g.decision),
            searched=g.searched,
        )
        for number, g in enumerate(document.gaps, start=1)
    )
    hypotheses = tuple(
        Record(
            kind="hypothesis",
            anchor=f"hypothesis-{number}",
            heading=anchors.sentence(h.statement),
            passages=tuple(map(shown, h.passages)),
            decision=h.decision,
            decision_text=labels.decision_summary(h.decision),
            supports_if=h.supports_if,
            refutes_if=h.refutes_if,
        )
        for number, h in enumerate(document.hypotheses, start=1)
    )
    computed = tuple(
        Record(
            kind="computed",
            anchor=f"computed-{number}",
            heading=anchors.sentence(f"{c.description}: {figure_text(c.result)}"),
            passages=tuple(
                Shown(
                    f"{i.name} = {figure_text(i.value)} — {labels.role(READ_FROM).lower()}",
                    quotes.get(i.evidence_id),
                    (i.evidence_id,),
                )
                for i in c.inputs
            ),
            decision=Decision(),
            result=figure_text(c.result),
            code=c.code,
        )
        for number, c in enumerate(document.computed, start=1)
    )
    return Report(
        task=task,
        draft=draft,
        document=document,
        notice=labels.note_text(DEMO_NOTICE) if task.corpus and task.corpus.invented else "",
        answer=answer,
        table=table,
        table_rows=table_rows,
        blocks=blocks,
        disputes=disputes,
        gaps=gaps,
        hypotheses=hypotheses,
        computed=computed,
        method=method_of(task, draft),
        references=tuple(references),
        appendix=tuple(quotes[i] for i in cited if i in quotes),
        quotes=quotes,
    )
