"""The collect stage's inputs and outputs: sources stored once per URL, evidence once per span."""

from __future__ import annotations

from dataclasses import replace

from django.conf import settings
from django.db import IntegrityError, transaction
from django.db.models import F, QuerySet

from researchapp.core.messages import gettext_noop, message
from researchapp.core.urls import normalize_url
from researchapp.models import Event, Evidence, ResearchTask, Source, Stage, SubQuestion
from researchapp.pipeline.collector import Collector
from researchapp.pipeline.collector.answering import with_answer_passages
from researchapp.pipeline.collector.clusters import cluster_sources, density
from researchapp.pipeline.collector.hops import bridge_queries, select_with_hops
from researchapp.pipeline.collector.other_side import other_side_queries
from researchapp.pipeline.collector.passages import PassagePool, select_passages
from researchapp.pipeline.runner.progress import ProgressRecorder
from researchapp.pipeline.runner.rows import record_warnings, source_value, subquestion_value
from researchapp.pipeline.runner.wiring import collector_for, local_corpus
from researchapp.pipeline.text.answer_type import common_terms
from researchapp.pipeline.text.salience import asked_of
from researchapp.pipeline.values import CollectResult
from researchapp.providers.base import Document

# Passages stored for a sub-question nothing answers: the closest ones, shown as what was found.
CLOSEST_PASSAGES = 3
MIN_SOURCES_FOR_COMMON = 5  # fewer pages than this say little about what is common on the web


def corpus_common_terms(task: ResearchTask) -> frozenset[str]:
    """What most documents of the task's local corpus hold; nothing is known of the web's yet."""
    return local_corpus(task).common_terms if task.search_provider == "local" else frozenset()


def common_terms_of(task: ResearchTask) -> frozenset[str]:
    """The terms most documents of the task's corpus hold (a manual's product name): on the web,
    most of the pages the task opened. They tell no page from another, so they name no subject."""
    if task.search_provider == "local":
        return local_corpus(task).common_terms
    texts = [
        f"{title}\n{text}" for title, text in Source.objects.filter(task=task).values_list("title", "text")
    ]
    return common_terms(texts, minimum=MIN_SOURCES_FOR_COMMON)


def store_source(task: ResearchTask, doc: Document, *, provider: str, round_no: int) -> Source:
    """Upsert on (task, normalised URL): a page is stored once per task, whoever found it first."""
    normalized = normalize_url(doc.url)
    existing = Source.objects.filter(task=task, normalized_url=normalized).first()
    if existing:
        return existing
    try:
        with transaction.atomic():
            return Source.objects.create(
                task=task,
                url=doc.url,
                final_url=doc.final_url,
                title=doc.title[:500],
                text=doc.text,
                published=doc.published,
                http_status=doc.http_status,
                content_type=doc.content_type[:200],
                extraction=doc.extraction,
                provider=provider,
                density=density(doc.text),
                round=round_no,
            )
    except IntegrityError:  # another worker stored it between our look and our insert
        return Source.objects.get(task=task, normalized_url=normalized)


def known_urls(task: ResearchTask) -> frozenset[str]:
    """Pages this task already stored, or already failed to open (each failure is one warning, once)."""
    failed = Event.objects.filter(task=task, kind=Event.Kind.WARNING, data__url__startswith="http")
    stored = Source.objects.filter(task=task).values_list("normalized_url", flat=True)
    return frozenset(stored) | {normalize_url(url) for url in failed.values_list("data__url", flat=True)}


def run_collect(
    task: ResearchTask, subquestion: SubQuestion, round_no: int, collector: Collector | None = None
) -> bool:
    """Collect sources and pick evidence for one sub-question. Returns False if already done.

    1. Search and fetch (the collector bounds concurrency and turns failures into warnings).
    2. Upsert sources, link them to the sub-question, re-cluster the task's sources.
    3. Pick passages over the sub-question's sources and upsert them as evidence.
    4. Mark the sub-question collected for this round.
    """
    if subquestion.collected_round >= round_no:
        return False
    collector = collector or collector_for(task)
    progress = ProgressRecorder(subquestion.pk, round_no)
    progress("searching")
    result = _collect(collector, subquestion_value(subquestion, round_no=round_no), task, progress)
    record_warnings(task, Stage.COLLECTING, result.warnings)
    ResearchTask.objects.filter(pk=task.pk).update(
        searches=F("searches") + result.searches, pages_opened=F("pages_opened") + result.pages_opened
    )
    stored = [store_source(task, doc, provider=collector.name, round_no=round_no) for doc in result.documents]
    reused = list(Source.objects.filter(task=task, normalized_url__in=result.reused_urls))
    subquestion.sources.add(*stored, *reused)
    hop = collect_bridges(task, subquestion, round_no, collector, progress)
    stored += hop
    recluster(task)
    progress("selecting")
    new_passages = store_evidence(task, subquestion, round_no)
    SubQuestion.objects.filter(pk=subquestion.pk, collected_round__lt=round_no).update(
        collected_round=round_no
    )
    progress("done", sources=len(stored) + len(reused), new_passages=new_passages)
    Event.objects.create(
        task=task,
        stage=Stage.COLLECTING,
        kind=Event.Kind.PROGRESS,
        message=message(
            gettext_noop(
                "Sub-question %(number)s: %(new)s new sources, %(known)s already known, "
                "%(warnings)s warnings."
            ),
            number=subquestion.order + 1,
            new=len(stored),
            known=len(reused),
            warnings=len(result.warnings),
        ),
        data={"subquestion": subquestion.pk, "round": round_no, "sources": [s.pk for s in stored]},
    )
    return True


def _collect(
    collector: Collector, value, task: ResearchTask, progress: ProgressRecorder | None
) -> CollectResult:
    """Search and fetch what the task has not stored yet, telling ``progress`` as pages are opened."""
    return collector.collect(value, known_urls=known_urls(task), progress=progress)


def collect_bridges(
    task: ResearchTask,
    subquestion: SubQuestion,
    round_no: int,
    collector: Collector,
    progress: ProgressRecorder | None = None,
) -> list[Source]:
    """The second hop: search the names the first passages mention, and add what that opens.

    A question that leads through an entity it does not name is answered by a page the first
    searches may not find; its name is in the first round's passages (``hops.bridge_queries``).
    A source that disputes the first passages' answer names its figure or year: that is searched
    too (``other_side.other_side_queries``).
    """
    value = subquestion_value(subquestion, round_no=round_no)
    sources = [source_value(s) for s in gathered_sources(subquestion)]
    first = select_passages(value, sources, question=task.question)
    queries = bridge_queries(value, first, question=task.question)
    # the passages a reader finds to state an answer count too: their figures are the answer's
    answers = with_answer_passages(
        PassagePool.of(tuple(sources)),
        value,
        first,
        asked=asked_of(value, task.question),
        question=task.question,
        common=corpus_common_terms(task),
    )
    queries += tuple(
        q for q in other_side_queries(value, answers, question=task.question) if q not in queries
    )
    if not queries:
        return []
    bridge = replace(value, queries=queries)
    if progress is not None:
        progress.next_call()
    result = _collect(collector, bridge, task, progress)
    record_warnings(task, Stage.COLLECTING, result.warnings)
    ResearchTask.objects.filter(pk=task.pk).update(
        searches=F("searches") + result.searches, pages_opened=F("pages_opened") + result.pages_opened
    )
    stored = [store_source(task, doc, provider=collector.name, round_no=round_no) for doc in result.documents]
    subquestion.sources.add(*stored)
    return stored


def recluster(task: ResearchTask) -> None:
    """Re-cluster every source of the task, under row locks taken in one order (by id).

    Parallel collect stages of one task all rewrite these rows; locked in different orders they
    deadlocked. ``FOR NO KEY UPDATE`` (what an UPDATE of non-key columns takes anyway) leaves the
    rows free for the foreign-key checks of sibling stages' inserts (evidence, sub-question links).
    """
    with transaction.atomic():
        rows = list(
            Source.objects.filter(task=task)
            .order_by("pk")
            .select_for_update(no_key=True)
            .only("id", "url", "title", "text", "host", "density", "cluster", "is_primary")
        )
        clusters = cluster_sources([source_value(r) for r in rows])
        changed = []
        for row in rows:
            label, primary = clusters.get(row.pk, (f"s{row.pk}", True))
            if (row.cluster, row.is_primary) != (label, primary):
                row.cluster, row.is_primary = label, primary
                changed.append(row)
        Source.objects.bulk_update(changed, ["cluster", "is_primary"])


def gathered_sources(subquestion: SubQuestion) -> QuerySet[Source]:
    """The sources the sub-question's collection gathered: not one it holds only as the other side
    of a dispute (``disputes.store_other_sides``), which a re-run must not select from."""
    rows = Evidence.objects.filter(subquestion=subquestion)
    selected = rows.filter(paired_with__isnull=True).values("source_id")
    other_sides_only = rows.filter(paired_with__isnull=False).exclude(source_id__in=selected)
    return subquestion.sources.exclude(pk__in=other_sides_only.values("source_id"))


def store_evidence(task: ResearchTask, subquestion: SubQuestion, round_no: int) -> int:
    """Upsert the sub-question's passages, with their relevance; when none clears the bar, the
    closest few are stored as such (``clears_bar=False``), to show what was found."""
    sources = {s.pk: s for s in gathered_sources(subquestion)}
    passages = select_with_hops(
        subquestion_value(subquestion),
        [source_value(s) for s in sources.values()],
        question=task.question,
        max_passages=settings.RESEARCH["MAX_PASSAGES_PER_SUBQUESTION"],
        closest=CLOSEST_PASSAGES,
        common=corpus_common_terms(task),
    )
    created = 0
    for passage in passages:
        judged = {
            "score": passage.score,
            "relevance": passage.relevance,
            "question_relevance": passage.question_relevance,
            "matched_terms": list(passage.matched_terms),
            "clears_bar": passage.clears_bar,
        }
        _, was_created = Evidence.objects.update_or_create(
            source=sources[passage.source_id],
            subquestion=subquestion,
            start=passage.start,
            end=passage.end,
            create_defaults={"task": task, "quote": passage.quote, "round": round_no, **judged},
            defaults=judged,
        )
        created += was_created
    return created


def collection_complete(task: ResearchTask) -> bool:
    plan = task.plans.approved().latest_version()
    return plan is not None and not plan.subquestions.filter(collected_round__lt=F("due_round")).exists()
