"""What each pipeline stage does: plan, collect, analyse, write, and the move to the next stage.

Each step takes the task and does its stage's work through the runner; the Celery tasks run them
through ``stage_harness.run_stage``, which holds the lease, retries and records failures.
"""

from __future__ import annotations

from django.db import transaction

from researchapp.core.messages import Message, gettext_noop, intent_word, message
from researchapp.models import ResearchTask, Stage, StaleState
from researchapp.pipeline import runner
from researchapp.pipeline.runner import wiring
from researchapp.pipeline.runner.hypotheses import run_hypotheses
from researchapp.services.dispatch import Job, enqueue
from researchapp.services.evidence_gate import evidence_gate
from researchapp.services.plan_gate import plan_approve
from researchapp.services.report_gate import report_approve
from researchapp.services.rounds import (
    auto_followup_applies,
    reopen_empty_followups,
    start_followup_round,
    thin_subquestions,
)
from researchapp.services.stage_harness import task_fail

Status = ResearchTask.Status


def stage_plan(task: ResearchTask) -> None:
    if task.status == Status.SUBMITTED:
        wiring.check_configuration(task)
        task.transition(
            Status.PLANNING, stage=Stage.PLANNING, message=message(gettext_noop("Planning sub-questions."))
        )
    if task.status != Status.PLANNING:
        return
    plan = runner.run_plan(task)
    coverage = runner.run_probe(task, plan)
    uncovered = sum(not c.covered for c in coverage)
    task.transition(
        Status.AWAITING_PLAN_REVIEW,
        stage=Stage.PLANNING,
        message=plan_ready_message(plan, len(coverage), uncovered),
        data={"plan": plan.pk, "uncovered": uncovered},
    )
    if task.auto_approve:
        plan_approve(plan=plan, actor=None, note="auto-approved")


def stage_collect(task: ResearchTask, subquestion_id: int, round_no: int) -> None:
    if task.status != Status.COLLECTING or round_no != task.round:
        return
    subquestion = next((sq for sq in runner.approved_subquestions(task) if sq.pk == subquestion_id), None)
    if subquestion is None:
        return
    if task.depth == ResearchTask.Depth.DEEP:
        runner.run_deep(task, subquestion, round_no)
    else:
        runner.run_collect(task, subquestion, round_no)
    collection_maybe_finish(task)


def collection_maybe_finish(task: ResearchTask) -> None:
    """Move on to analysis once every sub-question of the round is collected (exactly once)."""
    task.refresh_from_db()
    if task.status != Status.COLLECTING or not runner.collection_complete(task):
        return
    try:
        with transaction.atomic():
            task.transition(
                Status.ANALYSING,
                stage=Stage.COLLECTING,
                message=message(gettext_noop("Collection round %(round)s complete."), round=task.round),
            )
            enqueue(Job.ANALYSE, task.pk)
    except StaleState:
        return  # a sibling sub-question's task moved it first


def stage_analyse(task: ResearchTask) -> None:
    if task.status != Status.ANALYSING:
        return
    runner.run_analyse(task)
    if task.depth == ResearchTask.Depth.DEEP and task.round == 1:
        run_hypotheses(task, round_no=1)  # deep mode: hypotheses to test, proposed after round one
    reopen_empty_followups(task)
    thin = thin_subquestions(task)
    if thin and task.rounds_left and auto_followup_applies(task):
        start_followup_round(
            task, thin, stage=Stage.ANALYSING, reason=message(gettext_noop("too little evidence"))
        )
        return
    evidence_gate(task)


def stage_write(task: ResearchTask) -> None:
    if task.status != Status.WRITING:
        return
    draft = runner.run_write(task)
    if draft.status == draft.Status.FAILED_CHECKS:
        problems = "; ".join(issue["message"] for issue in draft.check_issues[:3])
        reason = message(
            gettext_noop(
                "quality_failed: draft v%(version)s still fails its checks after %(tries)s attempts: "
                "%(problems)s"
            ),
            version=draft.version,
            tries=draft.revision,
            problems=problems,
        )
        task_fail(task, stage=Stage.WRITING, reason=reason)
        return
    said = message(gettext_noop("Report draft v%(version)s passed every check."), version=draft.version)
    task.transition(
        Status.AWAITING_REPORT_REVIEW, stage=Stage.WRITING, message=said, data={"draft": draft.pk}
    )
    if task.auto_approve:
        report_approve(draft=draft, actor=None, note="auto-approved")


def plan_ready_message(plan, probed: int, uncovered: int) -> Message:
    """What the plan stage says when the plan waits: its size and intent, and how much of it a probe
    search found no passage for."""
    ready = message(
        gettext_noop("Plan v%(version)s ready: %(count)s sub-questions (%(intent)s)."),
        version=plan.version,
        count=plan.subquestions.count(),
        intent=intent_word(plan.intent),
    )
    if probed and uncovered == probed:
        return message(
            gettext_noop(
                "%(ready)s The sources do not seem to cover this question: "
                "no sub-question found a relevant passage."
            ),
            ready=ready,
        )
    if uncovered:
        return message(
            gettext_noop("%(ready)s %(uncovered)s of %(probed)s sub-questions found no relevant passage."),
            ready=ready,
            uncovered=uncovered,
            probed=probed,
        )
    return ready
