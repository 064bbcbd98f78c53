"""The plan gate: edit, approve or reject a draft plan."""

from __future__ import annotations

from dataclasses import dataclass, replace

from django.core.exceptions import ValidationError
from django.db import transaction

from researchapp.models import Gate, Plan, ResearchTask, StaleState, SubQuestion
from researchapp.pipeline.planner.queries import queries_for_subquestion
from researchapp.services.audit import plan_diff, stored_plan_lines
from researchapp.services.dispatch import Job, enqueue
from researchapp.services.rounds import enqueue_collection

Status = ResearchTask.Status
MAX_SUBQUESTIONS = 10
MAX_QUERIES = 5


@dataclass(frozen=True)
class SubQuestionEdit:
    text: str
    queries: tuple[str, ...]
    rationale: str = ""
    id: int | None = None  # None for a new sub-question
    # The text changed and its queries were not edited by hand (or there are none): store the
    # queries the planner makes for the new text instead.
    regenerate_queries: bool = False


def queries_for(task: ResearchTask, text: str) -> tuple[str, ...]:
    """The queries the planner gives a sub-question reading ``text`` in this task's plan."""
    if not text.strip():
        return ()
    return queries_for_subquestion(task.question, text, depth=task.depth)


def locked_draft(plan: Plan) -> Plan:
    plan = Plan.objects.select_for_update().select_related("task").get(pk=plan.pk)
    if not plan.is_editable or plan.task.status != Status.AWAITING_PLAN_REVIEW:
        raise StaleState(f"Plan v{plan.version} is {plan.status}; it can no longer be changed.")
    return plan


def plan_update(*, plan: Plan, actor, subquestions: list[SubQuestionEdit]) -> Plan:
    """Replace the draft's sub-questions with the edited list, in the order given."""
    if not subquestions:
        raise ValidationError("A plan needs at least one sub-question.")
    if len(subquestions) > MAX_SUBQUESTIONS:
        raise ValidationError(f"A plan has at most {MAX_SUBQUESTIONS} sub-questions.")
    for edit in subquestions:
        if not edit.text.strip():
            raise ValidationError("A sub-question cannot be empty.")
    with transaction.atomic():
        plan = locked_draft(plan)
        subquestions = [
            replace(edit, queries=queries_for(plan.task, edit.text)) if edit.regenerate_queries else edit
            for edit in subquestions
        ]
        for edit in subquestions:
            if not [q for q in edit.queries if q.strip()]:
                raise ValidationError(f"“{edit.text[:60]}” needs at least one search query.")
        existing = {sq.pk: sq for sq in plan.subquestions.all()}
        before = stored_plan_lines(plan)
        keep_ids = {edit.id for edit in subquestions if edit.id in existing}
        SubQuestion.objects.filter(plan=plan).exclude(pk__in=keep_ids).delete()
        for order, edit in enumerate(subquestions):
            values = {
                "order": order,
                "text": edit.text.strip(),
                "rationale": edit.rationale.strip(),
                "queries": [q.strip() for q in edit.queries if q.strip()][:MAX_QUERIES],
            }
            if edit.id in existing:
                SubQuestion.objects.filter(pk=edit.id).update(**values)
            else:
                SubQuestion.objects.create(plan=plan, **values)
        plan.task.events.create(
            stage=Gate.PLAN_REVIEW,
            kind="decision",
            actor=actor,
            message=f"Plan v{plan.version} edited: {len(subquestions)} sub-questions.",
            data={"diff": plan_diff(before, stored_plan_lines(plan))},
        )
    return plan


def _note(note: str) -> str:
    return f" ({note})" if note else ""


def plan_approve(*, plan: Plan, actor, note: str = "") -> Plan:
    """Freeze the plan and start collecting every sub-question in parallel."""
    with transaction.atomic():
        plan = locked_draft(plan)
        plan.decide(Plan.Status.APPROVED, actor=actor, message=f"Plan v{plan.version} approved{_note(note)}.")
        subquestions = list(plan.subquestions.values_list("pk", flat=True))
        message = f"Collecting for the {len(subquestions)} sub-questions of plan v{plan.version}."
        plan.task.transition(Status.COLLECTING, actor=actor, stage=Gate.PLAN_REVIEW, message=message)
        enqueue_collection(plan.task, subquestions)
    return plan


def plan_reject(*, plan: Plan, actor, feedback: str) -> Plan:
    """Send the plan back to the planner with the analyst's feedback."""
    feedback = feedback.strip()
    if not feedback:
        raise ValidationError("Say what should change: the feedback goes to the planner.")
    with transaction.atomic():
        plan = locked_draft(plan)
        plan.decide(
            Plan.Status.REJECTED,
            actor=actor,
            message=f"Plan v{plan.version} rejected: {feedback}",
            feedback=feedback,
        )
        message = "The planner is revising the plan."
        plan.task.transition(Status.PLANNING, actor=actor, stage=Gate.PLAN_REVIEW, message=message)
        enqueue(Job.PLAN, plan.task_id)
    return plan
