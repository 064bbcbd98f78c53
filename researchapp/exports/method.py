"""The report's method section: how much was searched and read, by which engine, and any note on it."""

from __future__ import annotations

from dataclasses import dataclass

from researchapp.models import ReportDraft, ResearchTask


@dataclass(frozen=True)
class Method:
    sources_opened: int
    independent_sources: int
    rounds: int
    search: str
    engine: str
    models: tuple[str, ...]
    tokens_in: int
    tokens_out: int
    notes: tuple[str, ...] = ()  # why a stage's work is not its engine's own (a model answer rejected twice)


def method_of(task: ResearchTask, draft: ReportDraft) -> Method:
    sources = list(task.sources.values_list("cluster", "pk"))
    models = task.llm_calls.order_by().values_list("model", flat=True).distinct()
    plan = task.plans.approved().latest_version()
    notes = tuple(note for note in (plan.engine_note if plan else "", draft.engine_note) if note)
    # Deep mode: a research loop its budget stopped (DEEP_MAX_STEPS, ...) says so here.
    notes += tuple(
        f"Deep research on sub-question {step.subquestion.order + 1} ({step.subquestion.text}): {step.error}"
        for step in task.deep_steps.filter(status="stopped")
    )
    return Method(
        sources_opened=len(sources),
        independent_sources=len({cluster or f"s{pk}" for cluster, pk in sources}),
        rounds=task.round,
        search=task.search_provider,
        engine=draft.engine or task.engine,
        models=tuple(sorted(models)),
        tokens_in=task.llm_tokens_in,
        tokens_out=task.llm_tokens_out,
        notes=notes,
    )
