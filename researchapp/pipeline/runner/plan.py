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
from researchapp.pipeline.planner.extractive import plan_extractive
from researchapp.pipeline.planner.feedback import read_feedback
from researchapp.pipeline.planner.feedback_notes import feedback_notes
from researchapp.pipeline.planner.queries import queries_for_subquestion, queries_in_language
from researchapp.pipeline.runner.collect import corpus_common_terms
from researchapp.pipeline.runner.rows import record_usage, record_warnings, subquestion_value
from researchapp.pipeline.runner.wiring import collector_for, local_corpus, planner_for
from researchapp.pipeline.text.crosslang import text_language
from researchapp.pipeline.text.question import read_question
from researchapp.pipeline.values import UsageLog


def run_plan(task: ResearchTask) -> Plan:
    """1. Reuse a draft plan if one is waiting (a re-run). 2. Otherwise ask the task's planner
    (``wiring.planner_for``: with a model, the template planner stands in for an answer rejected
    twice); after a rejection, to revise the rejected version by its feedback. 3. Store the plan,
    who drafted it and why, what the feedback did to it, and its sub-questions in one transaction."""
    latest = task.plans.latest_version()
    if latest and latest.status == Plan.Status.DRAFT:
        return latest
    rejected = latest if latest and latest.status == Plan.Status.REJECTED else None
    feedback = rejected.feedback if rejected else ""
    previous = plan_value(rejected) if rejected and feedback.strip() else None
    usage = UsageLog()
    planner = planner_for(task)
    dimensions = None if previous else discussed_dimensions(task)
    asked = {"depth": task.depth, "feedback": feedback, "dimensions": dimensions, "previous": previous}
    template = plan_extractive(task.question, **asked)
    try:
        proposed = planner.plan(task.question, usage=usage, **asked)
    finally:
        record_usage(task, usage)
    # Whichever engine drafted it, a plan has 3-6 distinct sub-questions with keyword queries.
    plan = in_corpus_language(
        task, validated_plan(proposed, template, question=task.question, common=corpus_common_terms(task))
    )
    revision_notes = revised_notes(
        task.question, previous, feedback, plan, by_rules=planner.name == "extractive"
    )
    with transaction.atomic():
        stored = Plan.objects.create(
            task=task,
            version=(latest.version + 1 if latest else 1),
            intent=plan.intent.value,
            engine=planner.name,
            engine_note=planner.note,
            revision_notes=list(revision_notes),
        )
        SubQuestion.objects.bulk_create(
            SubQuestion(plan=stored, order=i, text=sq.text, rationale=sq.rationale, queries=list(sq.queries))
            for i, sq in enumerate(plan.subquestions)
        )
    return stored


def revised_notes(
    question: str, previous: values.Plan | None, feedback: str, plan: values.Plan, *, by_rules: bool
) -> tuple[dict, ...]:
    """What the feedback did to ``previous``, edit by edit, judged on the ``plan`` that came out (none
    for a first version)."""
    if previous is None:
        return ()
    reading = read_question(question)
    edits = read_feedback(reading, previous, feedback)
    return feedback_notes(reading, previous, edits, plan, by_rules=by_rules)


def subquestion_queries(task: ResearchTask, text: str) -> tuple[str, ...]:
    """The queries the planner gives a sub-question reading ``text`` in this task's plan, in the
    language its searches run in: the plan gate's regenerated queries are the planner's own."""
    planned = values.PlannedSubQuestion(
        text, "", queries_for_subquestion(task.question, text, depth=task.depth)
    )
    plan = in_corpus_language(task, values.Plan(intent=Intent.DESCRIPTIVE, subquestions=(planned,)))
    return plan.subquestions[0].queries


def in_corpus_language(task: ResearchTask, plan: values.Plan) -> values.Plan:
    """A question over a local corpus in the other language searches in the corpus's language:
    the analyst sees, and may edit, the queries that will run (``queries.queries_in_language``).
    A web search keeps the question's language: its pages may be in either."""
    if task.search_provider != "local" or task.corpus_id is None:
        return plan
    corpus = local_corpus(task)
    if not corpus.size or text_language(task.question) == corpus.language:
        return plan
    return queries_in_language(plan, corpus.language, corpus.vocabulary, question=task.question)


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
