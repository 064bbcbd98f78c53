"""Loads a stage's inputs from the database, runs the stage, upserts what it returns.

The only module that turns rows into ``pipeline.types`` values and back. Every function here is
idempotent: it checks what is already stored and stores nothing twice, so a stage that runs again
after a crashed worker (``acks_late``) finishes the job instead of duplicating it. Status moves
are the services' business, not the runner's.
"""

from __future__ import annotations

from collections.abc import Iterable
from concurrent.futures import ThreadPoolExecutor

from django.conf import settings
from django.db import IntegrityError, transaction
from django.db.models import Count, F, Max

from researchapp.models import (
    CorpusDocument,
    Event,
    Evidence,
    Finding,
    FindingEvidence,
    LLMCall,
    Plan,
    ReportDraft,
    ResearchTask,
    Source,
    SubQuestion,
)
from researchapp.pipeline import types as t
from researchapp.pipeline.checks import check_draft
from researchapp.pipeline.collect import cluster_sources, collect, density
from researchapp.pipeline.evidence import select_passages
from researchapp.pipeline.urls import normalize_url
from researchapp.providers import registry

# --- conversions ------------------------------------------------------------------------------


def subquestion_value(row: SubQuestion, *, round: int = 1) -> t.SubQuestion:
    """The sub-question as a stage sees it; a follow-up round searches with its new queries."""
    queries = row.followup_queries if round > 1 and row.followup_queries else row.queries
    return t.SubQuestion(id=row.pk, text=row.text, queries=tuple(queries), order=row.order)


def source_value(row: Source) -> t.Source:
    return t.Source(
        id=row.pk,
        url=row.url,
        title=row.title,
        text=row.text,
        host=row.host,
        density=row.density,
        cluster=row.cluster,
    )


def evidence_value(row: Evidence) -> t.Evidence:
    return t.Evidence(
        id=row.pk,
        source_id=row.source_id,
        subquestion_id=row.subquestion_id,
        start=row.start,
        end=row.end,
        quote=row.quote,
        score=row.score,
        source_url=row.source.url,
        source_title=row.source.title,
        cluster=row.source.cluster or f"s{row.source_id}",
    )


def finding_value(row: Finding) -> t.Finding:
    links = [link for link in row.links.all() if link.kept]
    picked = row.resolution == t.Resolution.PICKED
    return t.Finding(
        id=row.pk,
        subquestion_id=row.subquestion_id,
        status=t.FindingStatus(row.status),
        statement=row.statement,
        confidence=row.confidence,
        resolution=t.Resolution(row.resolution),
        # Once a side is picked, what remains is simply what the finding stands on.
        links=tuple(
            t.EvidenceLink(link.evidence_id, t.Stance.SUPPORTS if picked else t.Stance(link.stance))
            for link in links
        ),
        evidence=tuple(evidence_value(link.evidence) for link in links),
        note=row.resolution_note,
    )


def approved_plan(task: ResearchTask) -> Plan | None:
    return task.plans.filter(status=Plan.Status.APPROVED).order_by("-version").first()


def approved_subquestions(task: ResearchTask) -> list[SubQuestion]:
    plan = approved_plan(task)
    return list(plan.subquestions.all()) if plan else []


def record_usage(task: ResearchTask, usage: t.UsageLog) -> None:
    if not usage.calls:
        return
    LLMCall.objects.bulk_create(
        LLMCall(
            task=task,
            stage=c.stage,
            model=c.model,
            tokens_in=c.tokens_in,
            tokens_out=c.tokens_out,
            latency_ms=c.latency_ms,
            ok=c.ok,
            error=c.error,
        )
        for c in usage.calls
    )
    ResearchTask.objects.filter(pk=task.pk).update(
        llm_tokens_in=F("llm_tokens_in") + sum(c.tokens_in for c in usage.calls),
        llm_tokens_out=F("llm_tokens_out") + sum(c.tokens_out for c in usage.calls),
    )


def record_warnings(task: ResearchTask, stage: str, warnings: Iterable[t.Warning]) -> None:
    Event.objects.bulk_create(
        Event(
            task=task,
            stage=stage,
            kind=Event.Kind.WARNING,
            message=w.message,
            data={"code": w.code, "url": w.url, "query": w.query},
        )
        for w in warnings
    )


# --- plan ---------------------------------------------------------------------------------------


def run_plan(task: ResearchTask) -> Plan:
    """1. Reuse a draft plan if one is waiting (a re-run). 2. Otherwise ask the engine, with the
    last rejection's feedback. 3. Store the plan and its sub-questions in one transaction."""
    latest = task.plans.order_by("-version").first()
    if latest and latest.status == Plan.Status.DRAFT:
        return latest
    feedback = latest.feedback if latest and latest.status == Plan.Status.REJECTED else ""
    usage = t.UsageLog()
    engine = registry.engine_for(task.engine)
    try:
        plan = engine.plan(task.question, depth=task.depth, feedback=feedback, usage=usage)
    finally:
        record_usage(task, usage)
    with transaction.atomic():
        stored = Plan.objects.create(
            task=task,
            version=(latest.version + 1 if latest else 1),
            intent=plan.intent.value,
            engine=engine.name,
        )
        SubQuestion.objects.bulk_create(
            SubQuestion(plan=stored, order=i, text=sq.text, rationale=sq.rationale, queries=list(sq.queries))
            for i, sq in enumerate(plan.subquestions)
        )
    return stored


# --- collect and evidence -------------------------------------------------------------------------

_corpus_cache: dict[tuple, object] = {}


def local_corpus(task: ResearchTask):
    """The task's corpus as a searchable index, built once per process until the corpus changes."""
    from researchapp.providers.search.local import LocalCorpus

    docs = CorpusDocument.objects.filter(corpus_id=task.corpus_id)
    stamp = docs.aggregate(last=Max("imported_at"), count=Count("id"))
    key = (task.corpus_id, stamp["last"], stamp["count"])
    if key not in _corpus_cache:
        _corpus_cache.clear()
        _corpus_cache[key] = LocalCorpus(
            [
                t.Document(url=d.url, title=d.title, text=d.text, published=d.published, extraction="corpus")
                for d in docs.order_by("id")
            ]
        )
    return _corpus_cache[key]


def store_source(task: ResearchTask, doc: t.Document, *, provider: str, round: int) -> Source:
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
                round=round,
            )
    except IntegrityError:  # another worker stored it between our look and our insert
        return Source.objects.get(task=task, normalized_url=normalized)


def run_collect(task: ResearchTask, subquestion: SubQuestion, round: int) -> bool:
    """Collect sources and pick evidence for one sub-question. Returns False if already done.

    1. Search and fetch (the providers bound concurrency and turn failures into warnings).
    2. Upsert sources, link them to the sub-question, re-cluster the task's sources.
    3. Pick passages over the sub-question's sources and upsert them as evidence.
    4. Mark the sub-question collected for this round.
    """
    if subquestion.collected_round >= round:
        return False
    # Pages this task already stored, or already failed to open (each failure is one warning, once).
    failed = Event.objects.filter(task=task, kind=Event.Kind.WARNING, data__url__startswith="http")
    known = frozenset(Source.objects.filter(task=task).values_list("normalized_url", flat=True)) | {
        normalize_url(url) for url in failed.values_list("data__url", flat=True)
    }
    if task.search_provider == "local":
        search = fetcher = local_corpus(task)
    else:
        search, fetcher = registry.search_for(
            task.search_provider, depth=task.depth, recency_days=task.recency_days
        )
    limits = settings.RESEARCH
    value = subquestion_value(subquestion, round=round)
    result = collect(
        value,
        search=search,
        fetcher=fetcher,
        max_results=limits["RESULTS_PER_QUERY"],
        max_sources=task.max_sources,
        known_urls=known,
        concurrency=limits["CONCURRENCY"],
    )
    record_warnings(task, "collecting", result.warnings)
    ResearchTask.objects.filter(pk=task.pk).update(
        searches=F("searches") + result.searches, pages_opened=F("pages_opened") + result.pages_opened
    )
    stored = [store_source(task, doc, provider=search.name, round=round) for doc in result.documents]
    reused = list(Source.objects.filter(task=task, normalized_url__in=result.reused_urls))
    subquestion.sources.add(*stored, *reused)
    recluster(task)
    store_evidence(task, subquestion, round)
    SubQuestion.objects.filter(pk=subquestion.pk, collected_round__lt=round).update(collected_round=round)
    Event.objects.create(
        task=task,
        stage="collecting",
        kind=Event.Kind.PROGRESS,
        message=f"Sub-question {subquestion.order + 1}: {len(stored)} new sources, "
        f"{len(reused)} already known, {len(result.warnings)} warnings.",
        data={"subquestion": subquestion.pk, "round": round, "sources": [s.pk for s in stored]},
    )
    return True


def recluster(task: ResearchTask) -> None:
    rows = list(
        Source.objects.filter(task=task).only("id", "url", "title", "text", "host", "density", "cluster")
    )
    clusters = cluster_sources([source_value(r) for r in rows])
    changed = []
    for row in rows:
        label, primary = clusters.get(row.pk, (f"s{row.pk}", True))
        if (row.cluster, row.is_primary) != (label, primary):
            row.cluster, row.is_primary = label, primary
            changed.append(row)
    Source.objects.bulk_update(changed, ["cluster", "is_primary"])


def store_evidence(task: ResearchTask, subquestion: SubQuestion, round: int) -> int:
    sources = {s.pk: s for s in subquestion.sources.all()}
    passages = select_passages(
        subquestion_value(subquestion),
        [source_value(s) for s in sources.values()],
        max_passages=settings.RESEARCH["MAX_PASSAGES_PER_SUBQUESTION"],
    )
    created = 0
    for passage in passages:
        source = sources[passage.source_id]
        _, was_created = Evidence.objects.get_or_create(
            source=source,
            subquestion=subquestion,
            start=passage.start,
            end=passage.end,
            defaults={"task": task, "quote": passage.quote, "score": passage.score, "round": round},
        )
        created += was_created
    return created


def collection_complete(task: ResearchTask) -> bool:
    plan = approved_plan(task)
    return plan is not None and not plan.subquestions.filter(collected_round__lt=F("due_round")).exists()


# --- analyse ------------------------------------------------------------------------------------


def run_analyse(task: ResearchTask) -> None:
    """Upsert findings for every sub-question collected in this round.

    1. Load each sub-question's evidence. 2. Analyse the sub-questions concurrently (model calls
    wait on the network, and they are independent). 3. Store what each returned; if any failed,
    the others' findings are kept and the first error is raised.

    Unresolved findings the new analysis no longer proposes are superseded (deleted); findings an
    analyst already decided are kept as they are: decisions are never undone by a re-run.
    """
    engine = registry.engine_for(task.engine)
    usage = t.UsageLog()
    inputs = [
        (subquestion, [evidence_value(e) for e in subquestion.evidence.select_related("source")])
        for subquestion in approved_subquestions(task)
        if subquestion.collected_round == task.round
    ]
    errors: list[Exception] = []
    try:
        with ThreadPoolExecutor(
            max_workers=max(1, min(len(inputs), settings.RESEARCH["CONCURRENCY"]))
        ) as pool:
            futures = [
                (
                    subquestion,
                    pool.submit(engine.analyse, subquestion_value(subquestion), evidence, usage=usage),
                )
                for subquestion, evidence in inputs
            ]
        for subquestion, future in futures:
            try:
                store_findings(task, subquestion, future.result())
            except Exception as error:  # noqa: BLE001 - kept, and raised once the rest is stored
                errors.append(error)
    finally:
        record_usage(task, usage)
    if errors:
        raise errors[0]


def store_findings(task: ResearchTask, subquestion: SubQuestion, drafts: list[t.FindingDraft]) -> None:
    with transaction.atomic():
        keys = [d.key for d in drafts]
        Finding.objects.filter(subquestion=subquestion, resolution="").exclude(key__in=keys).delete()
        for draft in drafts:
            finding, created = Finding.objects.get_or_create(
                subquestion=subquestion,
                key=draft.key,
                defaults={
                    "task": task,
                    "round": task.round,
                    "status": draft.status.value,
                    "statement": draft.statement,
                    "confidence": draft.confidence,
                },
            )
            if not created and not finding.resolution:
                Finding.objects.filter(pk=finding.pk).update(
                    status=draft.status.value, statement=draft.statement, confidence=draft.confidence
                )
            if created or not finding.resolution:
                for link in draft.links:
                    FindingEvidence.objects.update_or_create(
                        finding=finding, evidence_id=link.evidence_id, defaults={"stance": link.stance.value}
                    )


# --- write and check ----------------------------------------------------------------------------


def ledger_for(
    task: ResearchTask, evidence_ids: Iterable[int]
) -> tuple[dict[int, t.Evidence], dict[int, str]]:
    rows = Evidence.objects.filter(task=task, pk__in=set(evidence_ids)).select_related("source")
    evidence = {row.pk: evidence_value(row) for row in rows}
    snapshots = {row.source_id: row.source.text for row in rows}
    # A snapshot that no longer hashes to what the quote was taken from fails every quote of it.
    for row in rows:
        if row.source.sha256 != row.snapshot_sha256:
            snapshots[row.source_id] = ""
    return evidence, snapshots


def report_findings(task: ResearchTask) -> list[t.Finding]:
    rows = (
        Finding.objects.filter(task=task)
        # Dropped findings stay visible to the checker (a sub-question an analyst dropped is
        # covered); render_draft leaves them out of the text.
        .exclude(resolution=t.Resolution.MORE_RESEARCH)
        .select_related("subquestion")
        .prefetch_related("links__evidence__source")
    )
    return [finding_value(row) for row in rows]


def check(task: ResearchTask, draft: t.Draft, subquestions: list[t.SubQuestion], findings: list[t.Finding]):
    evidence, snapshots = ledger_for(task, (i for c in draft.claims for i in c.evidence_ids))
    return check_draft(
        draft, evidence=evidence, snapshots=snapshots, subquestions=subquestions, findings=findings
    )


def run_write(task: ResearchTask) -> ReportDraft:
    """Draft, check mechanically, revise with the issues as feedback, up to the task's limit.

    Drafts are keyed by (write pass, revision): a re-run reuses what an earlier run stored.
    """
    subquestions = [subquestion_value(sq) for sq in approved_subquestions(task)]
    findings = report_findings(task)
    engine = registry.engine_for(task.engine)
    feedback: list[t.CheckIssue] = []
    previous = task.drafts.filter(write_pass=task.write_pass - 1).order_by("-revision").first()
    if previous and previous.feedback:
        feedback.append(t.CheckIssue(code="analyst_feedback", message=previous.feedback))
    stored = None
    for revision in range(1, task.max_revisions + 2):
        stored = task.drafts.filter(write_pass=task.write_pass, revision=revision).first()
        if stored is None:
            usage = t.UsageLog()
            try:
                draft = engine.write(task.question, subquestions, findings, feedback=feedback, usage=usage)
            finally:
                record_usage(task, usage)
            issues = check(task, draft, subquestions, findings)
            version = (task.drafts.aggregate(v=Max("version"))["v"] or 0) + 1
            stored = ReportDraft.objects.create(
                task=task,
                version=version,
                write_pass=task.write_pass,
                revision=revision,
                markdown=draft.markdown,
                engine=engine.name,
                claims=[
                    {"text": c.text, "evidence_ids": list(c.evidence_ids), "section": c.section}
                    for c in draft.claims
                ],
                check_issues=[
                    {"code": i.code, "message": i.message, "claim_index": i.claim_index} for i in issues
                ],
                status=ReportDraft.Status.FAILED_CHECKS if issues else ReportDraft.Status.CHECKED,
            )
        if stored.status != ReportDraft.Status.FAILED_CHECKS:  # checked, and perhaps decided since
            break
        # Every issue so far, so a claim dropped in one revision does not come back in the next.
        feedback += [t.CheckIssue(i["code"], i["message"], i["claim_index"]) for i in stored.check_issues]
    return stored


def recheck(draft: ReportDraft) -> list[t.CheckIssue]:
    """Check a stored draft against the ledger as it stands now (before approval, in exports)."""
    task = draft.task
    value = t.Draft(
        markdown=draft.markdown,
        claims=tuple(
            t.Claim(c["text"], tuple(c["evidence_ids"]), c.get("section", "")) for c in draft.claims
        ),
    )
    subquestions = [subquestion_value(sq) for sq in approved_subquestions(task)]
    return check(task, value, subquestions, report_findings(task))
