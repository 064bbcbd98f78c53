"""The whole ledger of one task as JSON: what the ``research`` command writes."""

from __future__ import annotations

import json

from researchapp.exports.report import Report, report_of
from researchapp.models import Event, Evidence, Finding, ReportDraft, ResearchTask, Source
from researchapp.pipeline.text.tokens import tokenize

LOW_DENSITY = 0.5


def task_stats(task: ResearchTask, evidence: list[Evidence], sources: list[Source], cited: set[int]) -> dict:
    question_terms = set(tokenize(task.question))
    quoted_terms: set[str] = set()
    for row in evidence:
        quoted_terms.update(tokenize(row.quote))
    clusters = {s.cluster or f"s{s.pk}" for s in sources}
    return {
        "sources_opened": len(sources),
        "independent_sources": len(clusters),
        "derivative_sources": sum(1 for s in sources if not s.is_primary),
        "low_density_sources": sum(1 for s in sources if s.density < LOW_DENSITY),
        "cited_spans": len(cited),
        "query_term_coverage": round(len(question_terms & quoted_terms) / len(question_terms), 3)
        if question_terms
        else 0.0,
        "searches": task.searches,
        "pages_opened": task.pages_opened,
        "llm_tokens_in": task.llm_tokens_in,
        "llm_tokens_out": task.llm_tokens_out,
        "llm_calls": task.llm_calls.count(),
    }


def citations(report: Report) -> list[dict]:
    """Every cited quote in reading order, as the seed API gives a citation."""
    return [
        {
            "id": quote.evidence_id,
            "marker": f"[E{quote.evidence_id}]",
            "reference": quote.reference.number,
            "url": quote.reference.url,
            "title": quote.reference.title,
            "host": quote.reference.host,
            "accessed": quote.reference.accessed.isoformat(),
            "quote": quote.text,
            "start": quote.start,
            "end": quote.end,
            "relevance": round(quote.relevance, 4),
            "snapshot_sha256": quote.sha256,
        }
        for quote in report.appendix
    ]


def task_export(
    task: ResearchTask, *, with_snapshots: bool = False, draft: ReportDraft | None = None
) -> dict:
    """The task's ledger; ``draft`` (default: the latest) is the report whose citations it lists."""
    task.refresh_from_db()
    plan = task.plans.approved().latest_version() or task.plans.latest_version()
    sources = list(task.sources.all())
    evidence = list(Evidence.objects.filter(task=task).select_related("source").order_by("id"))
    findings = list(Finding.objects.filter(task=task).prefetch_related("links").order_by("id"))
    draft = draft or task.drafts.current()
    cited = set(draft.cited_evidence_ids) if draft else set()
    report = report_of(draft) if draft else None
    return {
        "task": task.pk,
        "question": task.question,
        "status": task.status,
        "failure_reason": task.failure_reason,
        "engine": task.engine,
        "search_provider": task.search_provider,
        "plan": {
            "version": plan.version,
            "status": plan.status,
            "intent": plan.intent,
            "subquestions": [
                {
                    "id": sq.pk,
                    "order": sq.order,
                    "text": sq.text,
                    "rationale": sq.rationale,
                    "queries": sq.queries,
                }
                for sq in plan.subquestions.all()
            ],
        }
        if plan
        else None,
        "sources": [
            {
                "id": s.pk,
                "url": s.url,
                "final_url": s.final_url,
                "title": s.title,
                "sha256": s.sha256,
                "http_status": s.http_status,
                "content_type": s.content_type,
                "extraction": s.extraction,
                "density": round(s.density, 3),
                "cluster": s.cluster,
                "is_primary": s.is_primary,
                "provider": s.provider,
                # A paper's reference (academic search); web pages have none.
                **(
                    {"doi": s.doi, "authors": s.authors, "venue": s.venue, "year": s.year}
                    if s.doi or s.authors or s.venue or s.year
                    else {}
                ),
                **({"text": s.text} if with_snapshots else {}),
            }
            for s in sources
        ],
        "evidence": [
            {
                "id": e.pk,
                "subquestion": e.subquestion_id,
                "source": e.source_id,
                "start": e.start,
                "end": e.end,
                "quote": e.quote,
                "score": round(e.score, 4),
                "relevance": round(e.relevance, 4),
                "snapshot_sha256": e.snapshot_sha256,
                "round": e.round,
            }
            for e in evidence
        ],
        "findings": [
            {
                "id": f.pk,
                "subquestion": f.subquestion_id,
                "status": f.status,
                "statement": f.statement,
                "confidence": f.confidence,
                "resolution": f.resolution,
                "evidence": [
                    {"id": link.evidence_id, "stance": link.stance, "kept": link.kept}
                    for link in f.links.all()
                ],
            }
            for f in findings
        ],
        "hypotheses": [
            {
                "id": h.pk,
                "statement": h.statement,
                "supports_if": h.supports_if,
                "refutes_if": h.refutes_if,
                "status": h.status,
                "decided_by": h.decided_by.get_username() if h.decided_by else "",
                "decided_at": h.decided_at.isoformat() if h.decided_at else "",
                "note": h.note,
                "evidence": [{"id": link.evidence_id, "stance": link.stance} for link in h.links.all()],
            }
            for h in task.hypotheses.select_related("decided_by").prefetch_related("links").order_by("id")
        ],
        "report": {
            "version": draft.version,
            "status": draft.status,
            "notice": report.notice,
            "markdown": draft.markdown,
            "claims": draft.claims,
            "document": draft.document,
            "check_issues": draft.check_issues,
            "citations": citations(report),
        }
        if draft and report
        else None,
        "stats": task_stats(task, evidence, sources, cited),
        "warnings": [
            {"stage": w.stage, "message": w.message, **w.data}
            for w in task.events.filter(kind__in=[Event.Kind.WARNING, Event.Kind.ERROR])
        ],
    }


def ledger_json(draft: ReportDraft) -> str:
    """The JSON download of an approved report's ledger (what ``research --json`` writes)."""
    return json.dumps(task_export(draft.task, draft=draft), ensure_ascii=False, indent=2, default=str)
