"""The report as every format renders it: one model, built from a draft's stored structure and the ledger.

Nothing here is markup. Text stays text (the page and the PDF escape it through Django's templates,
the Markdown export through ``markdown_text``); citations are evidence ids, drawn from the stored
structure; quotes and their numbered references come from ``exports.references``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace

from django.db.models import QuerySet

from researchapp.core.enums import INSUFFICIENT_MARK, Intent
from researchapp.exports.method import Method, method_of
from researchapp.exports.references import Quote, Reference, evidence_rows, quotes_and_references
from researchapp.models import ReportDraft, ResearchTask
from researchapp.pipeline.report.document import (
    READ_FROM,
    ComputedFigure,
    Decision,
    Dispute,
    Document,
    Gap,
    Passage,
    Statement,
    TestedHypothesis,
    document_from_claims,
    document_from_json,
    figure_text,
)
from researchapp.pipeline.report.labels import DEMO_NOTICE, Labels, labels_for, report_language
from researchapp.pipeline.report.table import Comparison, comparison


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


@dataclass(frozen=True)
class _Records:
    """Disputes, gaps, hypotheses and computed figures as shown. Each heading takes the next anchor,
    so they are made in reading order."""

    anchors: _Anchors
    labels: Labels
    quotes: dict[int, Quote]

    def _shown(self, passage: Passage) -> Shown:
        return Shown(
            f"{self.labels.role(passage.role)} E{passage.evidence_id}", self.quotes.get(passage.evidence_id)
        )

    def _record(
        self, kind: str, number: int, heading: Sentence, of: Dispute | Gap | TestedHypothesis, **more
    ) -> Record:
        passages = tuple(map(self._shown, of.passages))
        summary = self.labels.decision_summary(of.decision)
        return Record(kind, f"{kind}-{number}", heading, passages, of.decision, decision_text=summary, **more)

    def disputes(self, disputes: tuple[Dispute, ...]) -> tuple[Record, ...]:
        return tuple(
            self._record(
                "dispute", n, self.anchors.of(d.claim) if d.claim else self.anchors.sentence(d.topic), d
            )
            for n, d in enumerate(disputes, start=1)
        )

    def gaps(self, gaps: tuple[Gap, ...]) -> tuple[Record, ...]:
        return tuple(
            self._record("gap", n, self.anchors.sentence(g.statement), g, searched=g.searched)
            for n, g in enumerate(gaps, start=1)
        )

    def hypotheses(self, hypotheses: tuple[TestedHypothesis, ...]) -> tuple[Record, ...]:
        return tuple(
            self._record(
                "hypothesis",
                n,
                self.anchors.sentence(h.statement),
                h,
                supports_if=h.supports_if,
                refutes_if=h.refutes_if,
            )
            for n, h in enumerate(hypotheses, start=1)
        )

    def computed(self, figures: tuple[ComputedFigure, ...]) -> tuple[Record, ...]:
        read_from = self.labels.role(READ_FROM).lower()
        return tuple(
            Record(
                kind="computed",
                anchor=f"computed-{n}",
                heading=self.anchors.sentence(f"{c.description}: {figure_text(c.result)}"),
                passages=tuple(
                    Shown(
                        f"{i.name} = {figure_text(i.value)} — {read_from}",
                        self.quotes.get(i.evidence_id),
                        (i.evidence_id,),
                    )
                    for i in c.inputs
                ),
                decision=Decision(),
                result=figure_text(c.result),
                code=c.code,
            )
            for n, c in enumerate(figures, start=1)
        )


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
    corpus = f"corpus://{task.corpus.name if task.corpus else 'local'}"
    rows = evidence_rows(task, [*cited, *document.quoted_ids()])
    quotes, references = quotes_and_references(rows, cited, corpus)
    anchors = _Anchors()
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
    records = _Records(anchors, labels, quotes)  # after the sections' sentences, in reading order
    disputes = records.disputes(document.disputes)
    gaps = records.gaps(document.gaps)
    hypotheses = records.hypotheses(document.hypotheses)
    computed = records.computed(document.computed)
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
        method=_named(method_of(task, draft), labels),
        references=tuple(references),
        appendix=tuple(quotes[i] for i in cited if i in quotes),
        quotes=quotes,
    )


def _named(method: Method, labels: Labels) -> Method:
    """The method with its engine and search named in the report's language."""
    return replace(method, engine=labels.engine_name(method.engine), search=labels.engine_name(method.search))
