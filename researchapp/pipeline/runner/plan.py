"""The plan stage's inputs and outputs."""

from __future__ import annotations

from django.db import transaction

from researchapp.models import Plan, ResearchTask, Stage, SubQuestion
from researchapp.pipeline.collector.probe import Coverage, probe
from researchapp.pipeline.runner.collect import collector_for
from researchapp.pipeline.runner.rows import record_usage, record_warnings, subquestion_value
from researchapp.pipeline.runner.wiring import planner_for
from researchapp.pipeline.values import UsageLog


def run_plan(task: ResearchTask) -> Plan:
    """1. Reuse a draft plan if one is waiting (a re-run). 2. Otherwise ask the planner, with the
    last rejection's feedback. 3. Store the plan and its sub-questions in one transaction."""
    latest = task.plans.latest_version()
    if latest and latest.status == Plan.Status.DRAFT:
        return latest
    feedback = latest.feedback if latest and latest.status == Plan.Status.REJECTED else ""
    usage = UsageLog()
    planner = planner_for(task)
    try:
        plan = planner.plan(task.question, depth=task.depth, feedback=feedback, usage=usage)
    finally:
        record_usage(task, usage)
    with transaction.atomic():
        stored = Plan.objects.create(
            task=task,
            version=(latest.version + 1 if latest else 1),
            intent=plan.intent.value,
            engine=planner.name,
        )
        SubQuestion.objects.bulk_create(
            SubQuestion(plan=stored, order=i, text=sq.text, rationale=sq.rationale, queries=list(sq.queries))
            for i, sq in enumerate(plan.subquestions)
        )
    return stored


def run_probe(task: ResearchTask, plan: Plan) -> list[Coverage]:
    """Probe each sub-question of the draft plan and store what it found (``SubQuestion.coverage``)."""
    collector = collector_for(task)
    web = task.search_provider != "local"
    found = []
    for row in plan.subquestions.all():
        coverage = probe(
            subquestion_value(row),
            question=task.question,
            search=collector.search,
            fetcher=None if web else collector.fetcher,
            max_queries=1 if web else 3,
        )
        SubQuestion.objects.filter(pk=row.pk).update(coverage=coverage.as_json())
        record_warnings(task, Stage.PLANNING, coverage.warnings)
        found.append(coverage)
    return found
