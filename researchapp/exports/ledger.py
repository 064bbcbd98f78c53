"""The whole ledger of one task as JSON: what the ``research`` command writes."""

from __future__ import annotations

import json

from researchapp.exports.report import Report, report_of
from researchapp.models import Event, Evidence, Finding, Hypothesis, Plan, ReportDraft, ResearchTask, Source
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


def plan_json(plan: Plan | None) -> dict | None:
    if plan is None:
        return None
    return {
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


def source_json(source: Source, *, with_snapshot: bool) -> dict:
    return {
        "id": source.pk,
        "url": source.url,
        "final_url": source.final_url,
        "title": source.title,
        "sha256": source.sha256,
        "http_status": source.http_status,
        "content_type": source.content_type,
        "extraction": source.extraction,
        "density": round(source.density, 3),
        "cluster": source.cluster,
        "is_primary": source.is_primary,
        "provider": source.provider,
        # A paper's reference (academic search); web pages have none.
        **(
            {"doi": source.doi, "authors": source.authors, "venue": source.venue, "year": source.year}
            if source.doi or source.authors or source.venue or source.year
            else {}
        ),
        **({"text": source.text} if with_snapshot else {}),
    }


def evidence_json(evidence: Evidence) -> dict:
    return {
        "id": evidence.pk,
        "subquestion": evidence.subquestion_id,
        "source": evidence.source_id,
        "start": evidence.start,
        "end": evidence.end,
        "quote": evidence.quote,
        "score": round(evidence.score, 4),
        "relevance": round(evidence.relevance, 4),
        "snapshot_sha256": evidence.snapshot_sha256,
        "round": evidence.round,
    }


def finding_json(finding: Finding) -> dict:
    return {
        "id": finding.pk,
        "subquestion": finding.subquestion_id,
        "status": finding.status,
        "statement": finding.statement,
        "confidence": finding.confidence,
        "resolution": finding.resolution,
        "evidence": [
            {"id": link.evidence_id, "stance": link.stance, "kept": link.kept} for link in finding.links.all()
        ],
    }


def hypothesis_json(hypothesis: Hypothesis) -> dict:
    return {
        "id": hypothesis.pk,
        "statement": hypothesis.statement,
        "supports_if": hypothesis.supports_if,
        "refutes_if": hypothesis.refutes_if,
        "status": hypothesis.status,
        "decided_by": hypothesis.decided_by.get_username() if hypothesis.decided_by else "",
        "decided_at": hypothesis.decided_at.isoformat() if hypothesis.decided_at else "",
        "note": hypothesis.note,
        "evidence": [{"id": link.evidence_id, "stance": link.stance} for link in hypothesis.links.all()],
    }


def report_json(draft: ReportDraft | None, report: Report | None) -> dict | None:
    if not (draft and report):
        return None
    return {
        "version": draft.version,
        "status": draft.status,
        "notice": report.notice,
        "markdown": draft.markdown,
        "claims": draft.claims,
        "document": draft.document,
        "check_issues": draft.check_issues,
        "citations": citations(report),
    }


def task_export(
    task: ResearchTask, *, with_snapshots: bool = False, draft: ReportDraft | None = None
) -> dict:
    """The task's ledger; ``draft`` (default: the latest) is the report whose citations it lists."""
    task.refresh_from_db()
    plan = task.plans.approved().latest_version() or task.plans.latest_version()
    sources = list(task.sources.all())
    evidence = list(Evidence.objects.filter(task=task).select_related("source").order_by("id"))
    findings = list(Finding.objects.filter(task=task).prefetch_related("links").order_by("id"))
    hypotheses = task.hypotheses.select_related("decided_by").prefetch_related("links").order_by("id")
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
        "plan": plan_json(plan),
        "sources": [source_json(s, with_snapshot=with_snapshots) for s in sources],
        "evidence": [evidence_json(e) for e in evidence],
        "findings": [finding_json(f) for f in findings],
        "hypotheses": [hypothesis_json(h) for h in hypotheses],
        "report": report_json(draft, report),
        "stats": task_stats(task, evidence, sources, cited),
        "warnings": [
            {"stage": w.stage, "message": w.message, **w.data}
            for w in task.events.filter(kind__in=[Event.Kind.WARNING, Event.Kind.ERROR])
        ],
    }


def ledger_json(draft: ReportDraft) -> str:
    """The JSON download of an approved report's ledger (what ``research --json`` writes)."""
    return json.dumps(task_export(draft.task, draft=draft), ensure_ascii=False, indent=2, default=str)
