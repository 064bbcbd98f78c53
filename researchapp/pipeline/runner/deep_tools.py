"""Running the research loop's tools: every fact a tool finds is stored before the model sees it.

``web_search`` shows result URLs and titles only (a search API's snippet or generated answer is
never evidence); ``open_page`` and ``academic_search`` store sources and select their passages on
the sub-question as evidence, with the collector's own selection (``select_passages``);
``find_in_sources`` searches stored passages; ``calculate`` takes its numbers from stored quotes and
stores its result as a derived finding citing them. The observation names stored ids (S3, E12, F4).

Every store is an upsert keyed by URL or span, so a step that runs again after a crash (started,
never done) stores nothing twice, and a page already stored is not fetched again.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.db import transaction
from django.db.models import F

from researchapp.core.enums import FindingStatus, Stance
from researchapp.core.hashing import sha256_text
from researchapp.core.urls import normalize_url
from researchapp.models import Evidence, Finding, FindingEvidence, ResearchTask, Source, Stage, SubQuestion
from researchapp.pipeline.collector.passages import select_passages
from researchapp.pipeline.deep import tools
from researchapp.pipeline.deep.loop import observation, quote_for_model
from researchapp.pipeline.runner.academic import store_paper
from researchapp.pipeline.runner.collect import store_source
from researchapp.pipeline.runner.rows import record_warnings, source_value, subquestion_value
from researchapp.pipeline.runner.wiring import academic_providers, collector_for
from researchapp.pipeline.text.bm25 import BM25
from researchapp.pipeline.text.quantities import figure_value
from researchapp.pipeline.text.tokens import tokenize
from researchapp.pipeline.values import StageWarning
from researchapp.providers.base import ProviderError
from researchapp.providers.sandbox import Limits, run_calculation

SHOWN_PER_SOURCE = 4


@dataclass(frozen=True)
class Outcome:
    """What a step stores: the ids it produced and what the model is shown (or the error)."""

    observation: str
    result_ids: tuple[str, ...] = ()
    error: str = ""


class ToolContext:
    """One sub-question's loop: its task, round, search and fetch providers, made once."""

    def __init__(self, task: ResearchTask, subquestion: SubQuestion, round_no: int) -> None:
        self.task = task
        self.subquestion = subquestion
        self.round_no = round_no
        self._collector = None

    @property
    def collector(self):
        if self._collector is None:
            self._collector = collector_for(self.task)
        return self._collector

    def warn(self, code: str, message: str, *, query: str = "", url: str = "") -> None:
        record_warnings(
            self.task, Stage.COLLECTING, [StageWarning(code=code, message=message, query=query, url=url)]
        )


def run_tool(context: ToolContext, request: tools.ToolRequest, *, seen_urls: frozenset[str]) -> Outcome:
    """Run one checked call. A provider failure is an error outcome with a warning, never a crash."""
    try:
        if request.tool == tools.WEB_SEARCH:
            return web_search(context, request.arguments["query"])
        if request.tool == tools.OPEN_PAGE:
            return open_page(context, request.arguments["url"], seen_urls=seen_urls)
        if request.tool == tools.ACADEMIC_SEARCH:
            return academic_search(context, request.arguments["query"], request.arguments["limit"])
        if request.tool == tools.FIND_IN_SOURCES:
            return find_in_sources(context, request.arguments["query"], request.arguments["limit"])
        return calculate(context, request)
    except tools.ToolCallError as error:
        return Outcome(observation({"error": str(error)}), error=str(error))
    except ProviderError as error:
        arguments = request.arguments
        context.warn(
            error.code,
            f"{request.tool}: {error.message}",
            query=arguments.get("query", ""),
            url=arguments.get("url", ""),
        )
        return Outcome(observation({"error": error.message}), error=error.message)


def web_search(context: ToolContext, query: str) -> Outcome:
    hits = context.collector.search.search(query, max_results=settings.RESEARCH["RESULTS_PER_QUERY"])
    ResearchTask.objects.filter(pk=context.task.pk).update(searches=F("searches") + 1)
    results = [{"url": hit.url, "title": hit.title} for hit in hits]
    return Outcome(observation({"results": results, "note": "open_page to read and cite a result"}))


def open_page(context: ToolContext, url: str, *, seen_urls: frozenset[str]) -> Outcome:
    """Open a URL a search of this loop returned (or a stored source): a page is stored once, and a
    page already stored is not fetched again."""
    task = context.task
    key = normalize_url(url)
    source = Source.objects.filter(task=task, normalized_url=key).first()
    if source is None:
        if key not in seen_urls:
            raise tools.ToolCallError(f"{url} is not a result of this sub-question's searches")
        document = context.collector.fetcher.fetch(url)
        ResearchTask.objects.filter(pk=task.pk).update(pages_opened=F("pages_opened") + 1)
        source = store_source(task, document, provider=context.collector.name, round_no=context.round_no)
    return _source_outcome(context, [source])


def academic_search(context: ToolContext, query: str, limit: int) -> Outcome:
    """Each academic provider in turn; one that fails (429, 500) is a warning, nothing in its place."""
    stored: list[Source] = []
    failures = []
    for provider in academic_providers():
        try:
            papers = provider.search(query, limit=limit)
        except ProviderError as error:
            context.warn(error.code, f"academic search ({provider.name}): {error.message}", query=query)
            failures.append(f"{provider.name}: {error.message}")
            continue
        stored += [
            store_paper(context.task, paper, subquestion=context.subquestion, round=context.round_no)
            for paper in papers
            if paper.text.strip()  # a paper without text has nothing to quote: not stored
        ]
    if not stored:
        message = "; ".join(failures) or "no papers found"
        return Outcome(observation({"results": [], "errors": failures}), error=message if failures else "")
    return _source_outcome(context, stored, failures=failures)


def _source_outcome(
    context: ToolContext, sources: list[Source], *, failures: list[str] | None = None
) -> Outcome:
    """Link the sources to the sub-question, store each one's passages on it as evidence, show those."""
    unique = list({source.pk: source for source in sources}.values())
    context.subquestion.sources.add(*unique)
    shown = {source.pk: store_source_evidence(context, source) for source in unique}
    payload = [
        {"source": f"S{s.pk}", "title": s.title, "url": s.url,
         "evidence": [quote_for_model(row.pk, row.quote) for row in shown[s.pk]]}
        for s in unique
    ]  # fmt: skip
    ids = [f"S{s.pk}" for s in unique] + [f"E{row.pk}" for rows in shown.values() for row in rows]
    body: dict[str, Any] = {"sources": payload}
    if failures:
        body["errors"] = list(failures)
    return Outcome(observation(body), result_ids=tuple(ids))


def store_source_evidence(context: ToolContext, source: Source) -> list[Evidence]:
    """The source's own best passages on the sub-question that clear the relevance bar, upserted
    by span (the collector's selection, ``select_passages``, over this one source)."""
    passages = select_passages(
        subquestion_value(context.subquestion, round_no=context.round_no),
        [source_value(source)],
        question=context.task.question,
        max_passages=SHOWN_PER_SOURCE,
    )
    stored = []
    for passage in passages:
        if not passage.clears_bar:
            continue
        judged = {
            "score": passage.score,
            "relevance": passage.relevance,
            "clears_bar": True,
            "question_relevance": passage.question_relevance,
            "matched_terms": list(passage.matched_terms),
        }
        created = {"task": context.task, "quote": passage.quote, "round": context.round_no, **judged}
        row, _ = Evidence.objects.update_or_create(
            source=source, subquestion=context.subquestion, start=passage.start, end=passage.end,
            create_defaults=created, defaults=judged,
        )  # fmt: skip
        stored.append(row)
    return stored


def find_in_sources(context: ToolContext, query: str, limit: int) -> Outcome:
    """BM25 over the passages this task has stored; a passage stored for another sub-question is
    stored for this one too (the same span), so it can be cited here."""
    rows = list(Evidence.objects.filter(task=context.task).select_related("source").order_by("pk"))
    if not rows:
        return Outcome(observation({"results": [], "note": "nothing is stored yet"}))
    index = BM25([tokenize(row.quote) for row in rows])
    found = []
    for position, _ in index.top(tokenize(query), limit):
        row = rows[position]
        if row.subquestion_id != context.subquestion.pk:
            row, _ = Evidence.objects.get_or_create(
                source=row.source, subquestion=context.subquestion, start=row.start, end=row.end,
                defaults={"task": context.task, "quote": row.quote, "round": context.round_no,
                          "relevance": row.relevance, "question_relevance": row.question_relevance,
                          "matched_terms": row.matched_terms, "clears_bar": row.clears_bar,
                          "score": row.score},
            )  # fmt: skip
        found.append(row)
    unique = list({row.pk: row for row in found}.values())
    return Outcome(
        observation({"results": [quote_for_model(row.pk, row.quote) for row in unique]}),
        result_ids=tuple(f"E{row.pk}" for row in unique),
    )


def calculate(context: ToolContext, request: tools.ToolRequest) -> Outcome:
    """Numbers from stored quotes → the sandbox → a derived finding citing those quotes.

    1. Every input must be stored evidence of this task holding that many numbers (no typed-in values).
    2. Run the code in the sandbox with the values bound to their names.
    3. Store the result as a supported, derived finding of the sub-question linking each input.
    """
    inputs = request.inputs
    rows = Evidence.objects.filter(task=context.task, pk__in=[item.evidence_id for item in inputs])
    by_id = {row.pk: row for row in rows}
    values: dict[str, float] = {}
    for item in inputs:
        row = by_id.get(item.evidence_id)
        if row is None:
            raise tools.ToolCallError(f"E{item.evidence_id} is not stored evidence of this task")
        value = figure_value(row.quote, item.number)
        if value is None:
            raise tools.ToolCallError(f"E{item.evidence_id} has no number {item.number}")
        values[item.name] = value
    outcome = run_calculation(request.arguments["code"], values, limits=sandbox_limits())
    if not outcome.ok:
        return Outcome(observation({"error": outcome.error, "stdout": outcome.stdout}), error=outcome.error)
    finding = store_derived_finding(
        context, request, values, outcome.value, [by_id[i.evidence_id] for i in inputs]
    )
    ids = (f"F{finding.pk}", *dict.fromkeys(f"E{item.evidence_id}" for item in inputs))
    return Outcome(
        observation({"result": outcome.value, "finding": f"F{finding.pk}", "inputs": values}), result_ids=ids
    )


def store_derived_finding(
    context: ToolContext,
    request: tools.ToolRequest,
    values: dict[str, float],
    result: Any,
    cited: list[Evidence],
) -> Finding:
    description = request.arguments.get("description") or "Computed figure"
    names = ", ".join(f"{name} = {value:g} (E{item.evidence_id})" for (name, value), item in
                      zip(values.items(), request.inputs, strict=True))  # fmt: skip
    statement = f"{description}: {result} — computed from {names}."
    key = tools.DERIVED_KEY + sha256_text(request.signature)[:16]  # the same call, the same finding
    # What the report shows and the checker re-reads: each input's value is its quote's figure.
    calculation = {
        "description": description,
        "code": request.arguments["code"],
        "result": result,
        "inputs": [
            {"name": item.name, "evidence_id": item.evidence_id, "number": item.number, "value": value}
            for item, value in zip(request.inputs, values.values(), strict=True)
        ],
    }
    with transaction.atomic():
        finding, _ = Finding.objects.get_or_create(
            subquestion=context.subquestion,
            key=key,
            defaults={"task": context.task, "round": context.round_no,
                      "status": FindingStatus.SUPPORTED.value, "statement": statement[:2000],
                      "confidence": "medium", "calculation": calculation},
        )  # fmt: skip
        for row in cited:
            FindingEvidence.objects.get_or_create(
                finding=finding, evidence=row, defaults={"stance": Stance.SUPPORTS.value}
            )
    return finding


def sandbox_limits() -> Limits:
    """The sandbox's limits (``providers.sandbox``): its defaults."""
    return Limits()
