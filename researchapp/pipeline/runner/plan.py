"""The plan stage's inputs and outputs."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

from django.conf import settings
from django.db import transaction

from researchapp.core.enums import Intent
from researchapp.models import Plan, ResearchTask, Stage, SubQuestion
from researchapp.pipeline import values
from researchapp.pipeline.collector.dimensions import probe_dimensions
from researchapp.pipeline.collector.probe import Coverage, probe
from researchapp.pipeline.planner.checks import validated_plan
from researchapp.pipeline.planner.extractive import ExtractivePlanner, plan_extractive
from researchapp.pipeline.runner.collect import collector_for, corpus_common_terms
from researchapp.pipeline.runner.rows import record_usage, record_warnings, subquestion_value
from researchapp.pipeline.runner.wiring import planner_for
from researchapp.pipeline.values import UsageLog
from researchapp.providers.base import ProviderError


def run_plan(task: ResearchTask) -> Plan:
    """1. Reuse a draft plan if one is waiting (a re-run). 2. Otherwise ask the planner; after a
    rejection, to revise the rejected version by its feedback. 3. Store the plan and its
    sub-questions in one transaction."""
    latest = task.plans.latest_version()
    if latest and latest.status == Plan.Status.DRAFT:
        return latest
    rejected = latest if latest and latest.status == Plan.Status.REJECTED else None
    feedback = rejected.feedback if rejected else ""
    previous = plan_value(rejected) if rejected and feedback.strip() else None
    usage = UsageLog()
    planner = planner_for(task)
    dimensions = None if previous else discussed_dimensions(task)
    template = plan_extractive(
        task.question, depth=task.depth, feedback=feedback, dimensions=dimensions, previous=previous
    )
    engine, note = planner.name, ""
    if previous is not None and template == previous and planner.name == ExtractivePlanner.name:
        note = (
            "The feedback named no sub-question to drop and no aspect to add, so this version is "
            "the rejected one unchanged; edit it here."
        )
    try:
        proposed = planner.plan(
            task.question,
            depth=task.depth,
            feedback=feedback,
            usage=usage,
            dimensions=dimensions,
            previous=previous,
        )
    except ProviderError as error:
        if error.code != "malformed_output":
            raise
        # Two rejected answers cost the model its plan, not the task: the template plan stands in,
        # and the analyst sees why at the plan gate.
        proposed, engine = template, ExtractivePlanner.name
        note = (
            f"The model's plan was rejected twice, so the template planner drafted this one: {error.message}"
        )
    finally:
        record_usage(task, usage)
    # Whichever engine drafted it, a plan has 3-6 distinct sub-questions with keyword queries.
    plan = validated_plan(proposed, template, question=task.question, common=corpus_common_terms(task))
    with transaction.atomic():
        stored = Plan.objects.create(
            task=task,
            version=(latest.version + 1 if latest else 1),
            intent=plan.intent.value,
            engine=engine,
            engine_note=note,
        )
        SubQuestion.objects.bulk_create(
            SubQuestion(plan=stored, order=i, text=sq.text, rationale=sq.rationale, queries=list(sq.queries))
            for i, sq in enumerate(plan.subquestions)
        )
    return stored


def plan_value(plan: Plan) -> values.Plan:
    """A stored plan as the planner sees it (the version a revision starts from)."""
    return values.Plan(
        intent=Intent(plan.intent),
        subquestions=tuple(
            values.PlannedSubQuestion(sq.text, sq.rationale, tuple(sq.queries))
            for sq in plan.subquestions.order_by("order", "id")
        ),
    )


def discussed_dimensions(task: ResearchTask) -> tuple[str, ...] | None:
    """What the sources found for a comparison's options discuss (``None`` for other questions):
    a comparative plan asks about those, not a fixed list."""
    collector = collector_for(task)
    web = task.search_provider != "local"
    return probe_dimensions(
        task.question,
        search=collector.search,
        fetcher=None if web else collector.fetcher,
        max_queries=1 if web else 3,
    )


def run_probe(task: ResearchTask, plan: Plan) -> list[Coverage]:
    """Probe each sub-question of the draft plan and store what it found (``SubQuestion.coverage``)."""
    collector = collector_for(task)
    web = task.search_provider != "local"
    rows = list(plan.subquestions.all())

    def probe_one(row_value: values.SubQuestion) -> Coverage:  # no database here: it runs in a thread
        return probe(
            row_value,
            question=task.question,
            search=collector.search,
            fetcher=None if web else collector.fetcher,
            max_queries=1 if web else 3,
        )

    # The sub-questions' probes are independent searches: they wait side by side, not in a row.
    workers = max(1, min(len(rows), settings.RESEARCH["CONCURRENCY"]))
    with ThreadPoolExecutor(max_workers=workers, thread_name_prefix="probe") as pool:
        found = list(pool.map(probe_one, [subquestion_value(row) for row in rows]))
    for row, coverage in zip(rows, found, strict=True):
        SubQuestion.objects.filter(pk=row.pk).update(coverage=coverage.as_json())
        record_warnings(task, Stage.PLANNING, coverage.warnings)
    return found
