"""One extractive task run in process, stage by stage, as the worker runs it, without a database.

The question quality benchmarks (manual QA, SQuAD 2.0) ask what the desk's report says, which
depends on every stage: the validated extractive plan (with the dimension probe a comparison gets),
the answerability probe per sub-question, collection over a local corpus (search, open, the bridge
searches of the second hop, sources kept once per URL across the task and clustered), passage
selection with relevance, hops and the closest passages, extractive analysis of what cleared the
bar (the closest passages linked to a [证据不足] item), an evidence gate that decides nothing
(an unreviewed conflict is reported as disputed, an insufficient item as a gap), and the writer
with the mechanical checker, revised with the check's issues up to the task's limit. A draft that
still fails its checks is what the worker reports as ``quality_failed``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace

from researchapp.core.enums import FindingStatus, Resolution
from researchapp.core.urls import normalize_url
from researchapp.pipeline.analyser.extractive import ExtractiveAnalyser
from researchapp.pipeline.analyser.facets import gate_facets
from researchapp.pipeline.checker.mechanical import check_draft
from researchapp.pipeline.collector.clusters import cluster_sources, density
from researchapp.pipeline.collector.dimensions import probe_dimensions
from researchapp.pipeline.collector.hops import bridge_queries, select_with_hops
from researchapp.pipeline.collector.passages import select_passages
from researchapp.pipeline.collector.probe import Coverage, probe
from researchapp.pipeline.collector.search import collect
from researchapp.pipeline.collector.splitting import heading_of
from researchapp.pipeline.planner.checks import validated_plan
from researchapp.pipeline.planner.extractive import plan_extractive
from researchapp.pipeline.values import (
    Brief,
    CheckIssue,
    Draft,
    Evidence,
    EvidenceLink,
    Ledger,
    ReviewedFinding,
    Source,
    SubQuestion,
    UsageLog,
)
from researchapp.pipeline.writer.extractive import ExtractiveWriter

# The settings a task runs with by default (``settings.RESEARCH``).
RESULTS_PER_QUERY = 5
MAX_SOURCES = 8
MAX_PASSAGES = 8
MAX_REVISIONS = 2
CLOSEST_PASSAGES = 3
CLOSEST_LINKS = 3


@dataclass
class TaskRun:
    """What one task produced: its plan, the probe's calls, evidence, findings and last draft."""

    question: str
    subquestions: list[SubQuestion] = field(default_factory=list)
    coverage: list[Coverage] = field(default_factory=list)
    sources: dict[int, Source] = field(default_factory=dict)
    evidence: list[Evidence] = field(default_factory=list)
    findings: list[ReviewedFinding] = field(default_factory=list)
    draft: Draft | None = None
    issues: list[CheckIssue] = field(default_factory=list)
    error: str = ""
    common: frozenset[str] = frozenset()  # what most of the corpus's documents hold

    @property
    def failed(self) -> bool:
        return bool(self.error or self.issues)

    def source_url(self, evidence_id: int) -> str:
        item = next((e for e in self.evidence if e.id == evidence_id), None)
        return item.source_url if item else ""


class _Sources:
    """The task's sources: one per normalised URL, ids in the order they were first stored."""

    def __init__(self) -> None:
        self.by_url: dict[str, Source] = {}

    def store(self, documents) -> list[Source]:
        stored = []
        for document in documents:
            key = normalize_url(document.url)
            if key not in self.by_url:
                self.by_url[key] = Source(
                    len(self.by_url) + 1,
                    document.url,
                    document.title,
                    document.text,
                    host=key,
                    density=density(document.text),
                    cluster=f"s{len(self.by_url) + 1}",
                )
            stored.append(self.by_url[key])
        return stored

    def clustered(self, sources: Sequence[Source]) -> list[Source]:
        clusters = cluster_sources(list(self.by_url.values()))
        return [replace(s, cluster=clusters.get(s.id, (s.cluster, True))[0]) for s in sources]


def plan_task(question: str, corpus) -> list[SubQuestion]:
    """The validated extractive plan; a comparison's from the dimensions its sources discuss."""
    dimensions = probe_dimensions(question, search=corpus, fetcher=corpus, max_queries=3)
    template = plan_extractive(question, dimensions=dimensions)
    plan = validated_plan(template, template, question=question, common=corpus.common_terms)
    return [
        SubQuestion(id=i + 1, text=sq.text, queries=sq.queries, order=i)
        for i, sq in enumerate(plan.subquestions)
    ]


def collect_subquestion(run: TaskRun, subquestion: SubQuestion, corpus, sources: _Sources) -> list[Source]:
    """Search and open its queries' pages, then the second hop's (``bridge_queries``)."""
    found = collect(
        subquestion,
        search=corpus,
        fetcher=corpus,
        max_results=RESULTS_PER_QUERY,
        max_sources=MAX_SOURCES,
        concurrency=1,
    )
    own = sources.store(found.documents)
    first = select_passages(subquestion, own, question=run.question)
    queries = bridge_queries(subquestion, first, question=run.question)
    if queries:
        hop = collect(
            replace(subquestion, queries=queries),
            search=corpus,
            fetcher=corpus,
            max_results=RESULTS_PER_QUERY,
            max_sources=MAX_SOURCES,
            concurrency=1,
        )
        own += [s for s in sources.store(hop.documents) if s not in own]
    return own


def evidence_for(run: TaskRun, subquestion: SubQuestion, sources: Sequence[Source]) -> list[Evidence]:
    passages = select_with_hops(
        subquestion,
        sources,
        question=run.question,
        max_passages=MAX_PASSAGES,
        closest=CLOSEST_PASSAGES,
        common=run.common,
    )
    by_id = {source.id: source for source in sources}
    items = []
    for passage in passages:
        source = by_id[passage.source_id]
        items.append(
            Evidence(
                id=len(run.evidence) + len(items) + 1,
                source_id=source.id,
                subquestion_id=subquestion.id,
                start=passage.start,
                end=passage.end,
                quote=passage.quote,
                score=passage.score,
                source_url=source.url,
                source_title=source.title,
                cluster=source.cluster,
                relevance=passage.relevance,
                question_relevance=passage.question_relevance,
                matched_terms=passage.matched_terms,
                clears_bar=passage.clears_bar,
                heading=heading_of(source.title, source.text, passage.start),
            )
        )
    return items


def analyse_all(run: TaskRun, analyser) -> None:
    """Every sub-question's findings, a factual question's facets only if it is answered."""
    proposed = {
        sq.id: analyser.analyse(
            sq,
            [e for e in run.evidence if e.subquestion_id == sq.id and e.clears_bar],
            usage=UsageLog(),
            question=run.question,
            common=run.common,
        )
        for sq in run.subquestions
    }
    for sq_id, findings in gate_facets(run.question, run.subquestions, proposed).items():
        subquestion = next(sq for sq in run.subquestions if sq.id == sq_id)
        store(run, subquestion, [e for e in run.evidence if e.subquestion_id == sq_id], findings)


def store(run: TaskRun, subquestion: SubQuestion, evidence: Sequence[Evidence], proposed) -> None:
    """Findings of what cleared the bar; a [证据不足] item links the closest passages."""
    supporting = {link.evidence_id for finding in proposed for link in finding.links}
    closest = sorted(
        (e for e in evidence if e.id not in supporting), key=lambda e: (-e.relevance, -e.score, e.id)
    )[:CLOSEST_LINKS]
    by_id = {e.id: e for e in evidence}
    for finding in proposed:
        links = finding.links
        if finding.status is FindingStatus.INSUFFICIENT and not links:
            links = tuple(EvidenceLink(e.id) for e in closest)
        run.findings.append(
            ReviewedFinding(
                id=len(run.findings) + 1,
                subquestion_id=subquestion.id,
                status=finding.status,
                statement=finding.statement,
                confidence=finding.confidence,
                resolution=Resolution.NONE,
                links=links,
                evidence=tuple(by_id[link.evidence_id] for link in links if link.evidence_id in by_id),
                searched=subquestion.queries,
                answer=finding.answer,
            )
        )


def write_and_check(run: TaskRun, writer) -> None:
    """Draft, check, revise with every issue so far, up to the task's limit (as ``run_write``)."""
    brief = Brief(run.question, tuple(run.subquestions), tuple(run.findings))
    ledger = Ledger(
        evidence={e.id: e for e in run.evidence},
        snapshots={source.id: source.text for source in run.sources.values()},
    )
    feedback: list[CheckIssue] = []
    for _revision in range(MAX_REVISIONS + 1):
        run.draft = writer.write(replace(brief, feedback=tuple(feedback)), usage=UsageLog())
        run.issues = check_draft(run.draft, brief, ledger)
        if not run.issues:
            return
        feedback += run.issues


def run_task(question: str, corpus, *, analyser=None, writer=None, write: bool = True) -> TaskRun:
    """Plan, probe, collect, select, analyse and (``write``) write one question over ``corpus``
    (a ``LocalCorpus``)."""
    run = TaskRun(question, common=corpus.common_terms)
    analyser = analyser or ExtractiveAnalyser()
    writer = writer or ExtractiveWriter()
    sources = _Sources()
    try:
        run.subquestions = plan_task(question, corpus)
        run.coverage = [
            probe(sq, question=question, search=corpus, fetcher=corpus) for sq in run.subquestions
        ]
        own = {sq.id: collect_subquestion(run, sq, corpus, sources) for sq in run.subquestions}
        for subquestion in run.subquestions:
            run.evidence += evidence_for(run, subquestion, sources.clustered(own[subquestion.id]))
        analyse_all(run, analyser)
        run.sources = {source.id: source for source in sources.by_url.values()}
        if write:
            write_and_check(run, writer)
    except Exception as error:  # noqa: BLE001 - a task that raises is a failed task, counted as such
        run.error = f"{type(error).__name__}: {error}"
    return run
