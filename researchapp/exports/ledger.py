"""The whole ledger of one task as JSON: what the ``research`` command writes."""

from __future__ import annotations

from researchapp.models import Event, Evidence, Finding, ResearchTask, Source
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


def task_export(task: ResearchTask, *, with_snapshots: bool = False) -> dict:
    task.refresh_from_db()
    plan = task.plans.approved().latest_version() or task.plans.latest_version()
    sources = list(task.sources.all())
    evidence = list(Evidence.objects.filter(task=task).select_related("source").order_by("id"))
    findings = list(Finding.objects.filter(task=task).prefetch_related("links").order_by("id"))
    draft = task.drafts.current()
    cited = set(draft.cited_evidence_ids) if draft else set()
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
        "report": {
            "version": draft.version,
            "status": draft.status,
            "markdown": draft.markdown,
            "claims": draft.claims,
            "check_issues": draft.check_issues,
        }
        if draft
        else None,
        "stats": task_stats(task, evidence, sources, cited),
        "warnings": [
            {"stage": w.stage, "message": w.message, **w.data}
            for w in task.events.filter(kind__in=[Event.Kind.WARNING, Event.Kind.ERROR])
        ],
    }
