"""Rows → stage values, and what every stage stores alongside its results (usage, warnings)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import fields
from datetime import UTC
from typing import Any

from django.db.models import F, Model

from researchapp.core.enums import FindingStatus, Resolution, Stance
from researchapp.core.messages import english
from researchapp.models import Event, Evidence, Finding, LLMCall, ResearchTask, Source, SubQuestion
from researchapp.pipeline import values
from researchapp.pipeline.report import paper_reference


def subquestion_value(row: SubQuestion, *, round_no: int = 1) -> values.SubQuestion:
    """The sub-question as a stage sees it; a follow-up round searches with its new queries."""
    queries = row.followup_queries if round_no > 1 and row.followup_queries else row.queries
    return values.SubQuestion(id=row.pk, text=row.text, queries=tuple(queries), order=row.order)


def value_of[V](cls: type[V], row: Model, **overrides: Any) -> V:
    """The stage value ``cls`` made of ``row``'s attributes of the same names (and ``overrides``)."""
    names = [field.name for field in fields(cls) if field.name not in overrides]  # type: ignore[arg-type]
    return cls(**{name: getattr(row, name) for name in names}, **overrides)


def source_value(row: Source) -> values.Source:
    return value_of(values.Source, row)


def evidence_value(row: Evidence) -> values.Evidence:
    source = row.source
    return value_of(
        values.Evidence,
        row,
        source_url=source.url,
        source_title=source.title,
        cluster=source.cluster or f"s{row.source_id}",
        matched_terms=tuple(row.matched_terms or ()),
        source_reference=paper_reference(tuple(source.authors or ()), source.venue, source.year, source.doi),
        heading="",  # read by the analyser alone (``analyse.run_analyse``), which looks it up
    )


def finding_value(row: Finding) -> values.ReviewedFinding:
    """The finding as the writer sees it, with the analyst's decision: who, when, why, and the side
    set aside. Needs ``subquestion`` and ``resolved_by`` joined and ``links__evidence__source`` fetched."""
    links = list(row.links.all())
    kept = [link for link in links if link.kept]
    picked = row.resolution == Resolution.PICKED
    subquestion = row.subquestion
    return values.ReviewedFinding(
        id=row.pk,
        subquestion_id=row.subquestion_id,
        status=FindingStatus(row.status),
        statement=row.statement,
        confidence=row.confidence,
        resolution=Resolution(row.resolution),
        answer=row.answer,
        # Once a side is picked, what remains is simply what the finding stands on.
        links=tuple(
            values.EvidenceLink(link.evidence_id, Stance.SUPPORTS if picked else Stance(link.stance))
            for link in kept
        ),
        evidence=tuple(evidence_value(link.evidence) for link in links),
        note=row.resolution_note,
        set_aside=tuple(
            values.EvidenceLink(link.evidence_id, Stance(link.stance)) for link in links if not link.kept
        ),
        decided_by=row.resolved_by.get_username() if row.resolved_by else "",
        decided_at=row.resolved_at.astimezone(UTC).isoformat() if row.resolved_at else "",
        searched=tuple(dict.fromkeys([*subquestion.queries, *subquestion.followup_queries])),
        disagreement=disagreement_value(row.disagreement),
    )


def disagreement_value(data: dict | None) -> values.Disagreement | None:
    """A conflict's stored kind, differing spans (by evidence id), reason and judges."""
    if not data:
        return None
    return values.Disagreement(
        kind=str(data.get("kind", "")),
        spans={
            int(evidence_id): tuple((int(s), int(e)) for s, e in spans)
            for evidence_id, spans in (data.get("spans") or {}).items()
        },
        reason=str(data.get("reason", "")),
        judges=tuple(str(j) for j in data.get("judges", ())),
    )


def approved_subquestions(task: ResearchTask) -> list[SubQuestion]:
    plan = task.plans.approved().latest_version()
    return list(plan.subquestions.all()) if plan else []


def record_usage(task: ResearchTask, usage: values.UsageLog) -> None:
    if not usage.calls:
        return
    LLMCall.objects.bulk_create(
        LLMCall(
            task=task,
            stage=call.stage,
            model=call.model,
            tokens_in=call.tokens_in,
            tokens_out=call.tokens_out,
            latency_ms=call.latency_ms,
            ok=call.ok,
            error=call.error,
        )
        for call in usage.calls
    )
    ResearchTask.objects.filter(pk=task.pk).update(
        llm_tokens_in=F("llm_tokens_in") + sum(call.tokens_in for call in usage.calls),
        llm_tokens_out=F("llm_tokens_out") + sum(call.tokens_out for call in usage.calls),
    )


def record_warnings(task: ResearchTask, stage: str, warnings: Iterable[values.StageWarning]) -> None:
    Event.objects.bulk_create(
        Event(
            task=task,
            stage=stage,
            kind=Event.Kind.WARNING,
            message=english(warning.said) if warning.said else warning.message,
            data={
                "code": warning.code,
                "url": warning.url,
                "query": warning.query,
                **({"said": warning.said} if warning.said else {}),
            },
        )
        for warning in warnings
    )


def check_issue_value(row: dict[str, Any], claims: Sequence[dict[str, Any]]) -> values.CheckIssue:
    """A stored check issue (``ReportDraft.check_issues``) as a value. A row stored before issues
    carried their claim and citations ({code, message, claim_index}) names its claim through the
    draft's own claims at its index; the citations it objected to are not told apart, so a writer
    drops its claim (see ``writer.extractive``)."""
    index = row.get("claim_index")
    claim = row.get("claim")
    if claim is None and index is not None and 0 <= index < len(claims):
        claim = claims[index]["text"]
    return values.CheckIssue(
        code=row["code"],
        message=row["message"],
        claim_index=index,
        claim=claim or "",
        evidence_ids=tuple(row.get("evidence_ids", ())),
        figure=row.get("figure", ""),
    )
