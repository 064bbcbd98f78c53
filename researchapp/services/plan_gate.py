"""The plan gate: edit, approve or reject a draft plan."""

from __future__ import annotations

from dataclasses import dataclass, replace

from django.contrib.auth.models import User
from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from researchapp.core.messages import Message, gettext_noop, message, with_note
from researchapp.models import Event, Gate, Plan, ResearchTask, SubQuestion
from researchapp.pipeline.planner.queries import queries_for_subquestion
from researchapp.services.audit import plan_diff, stored_plan_lines
from researchapp.services.dispatch import Job, enqueue
from researchapp.services.rounds import collection_enqueue

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


def locked_draft(plan: Plan, version_seen: int | None) -> Plan:
    """The plan, locked, if it is still the draft the analyst saw (``version_seen``; None: the
    version of ``plan``) and its task waits at plan review; ``StaleState`` otherwise."""
    seen = plan.version if version_seen is None else version_seen
    plan = Plan.objects.select_for_update().select_related("task").get(pk=plan.pk)
    plan.refuse_unless_seen(seen)
    plan.task.refuse_unless_at(Gate.PLAN_REVIEW)
    return plan


def plan_update(
    *, plan: Plan, actor: User | None, subquestions: list[SubQuestionEdit], version_seen: int | None = None
) -> Plan:
    """Replace the draft's sub-questions with the edited list, in the order given."""
    if not subquestions:
        raise ValidationError(_("A plan needs at least one sub-question."))
    if len(subquestions) > MAX_SUBQUESTIONS:
        raise ValidationError(_("A plan has at most %(n)s sub-questions.") % {"n": MAX_SUBQUESTIONS})
    for edit in subquestions:
        if not edit.text.strip():
            raise ValidationError(_("A sub-question cannot be empty."))
    with transaction.atomic():
        plan = locked_draft(plan, version_seen)
        subquestions = [
            replace(edit, queries=queries_for(plan.task, edit.text)) if edit.regenerate_queries else edit
            for edit in subquestions
        ]
        for edit in subquestions:
            if not [q for q in edit.queries if q.strip()]:
                raise ValidationError(
                    _("“%(text)s” needs at least one search query.") % {"text": edit.text[:60]}
                )
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
        Event.decision(
            task_id=plan.task_id,
            stage=Gate.PLAN_REVIEW,
            actor=actor,
            message=message(
                gettext_noop("Plan v%(version)s edited: %(count)s sub-questions."),
                version=plan.version,
                count=len(subquestions),
            ),
            data={"diff": plan_diff(before, stored_plan_lines(plan))},
        )
    return plan


def plan_approve(*, plan: Plan, actor: User | None, note: str = "", version_seen: int | None = None) -> Plan:
    """Freeze the plan and start collecting every sub-question in parallel."""
    with transaction.atomic():
        plan = locked_draft(plan, version_seen)
        said = with_note(message(gettext_noop("Plan v%(version)s approved."), version=plan.version), note)
        _plan_decide(plan, Plan.Status.APPROVED, actor=actor, message=said)
        subquestions = list(plan.subquestions.values_list("pk", flat=True))
        said = message(
            gettext_noop("Collecting for the %(count)s sub-questions of plan v%(version)s."),
            count=len(subquestions),
            version=plan.version,
        )
        plan.task.transition(Status.COLLECTING, actor=actor, stage=Gate.PLAN_REVIEW, message=said)
        collection_enqueue(plan.task, subquestions)
    return plan


def plan_reject(*, plan: Plan, actor: User | None, feedback: str, version_seen: int | None = None) -> Plan:
    """Send the plan back to the planner with the analyst's feedback."""
    feedback = feedback.strip()
    if not feedback:
        raise ValidationError(_("Say what should change: the feedback goes to the planner."))
    with transaction.atomic():
        plan = locked_draft(plan, version_seen)
        said = message(
            gettext_noop("Plan v%(version)s rejected: %(feedback)s"), version=plan.version, feedback=feedback
        )
        _plan_decide(plan, Plan.Status.REJECTED, actor=actor, message=said, feedback=feedback)
        said = message(gettext_noop("The planner is revising the plan."))
        plan.task.transition(Status.PLANNING, actor=actor, stage=Gate.PLAN_REVIEW, message=said)
        enqueue(Job.PLAN, plan.task_id)
    return plan


def _plan_decide(plan: Plan, to: str, *, actor: User | None, message: Message, **fields) -> None:
    """The analyst's decision on the locked draft, recorded with who decided and when."""
    plan.decide_move(
        to,
        plan.version,
        actor=actor,
        stage=Gate.PLAN_REVIEW,
        message=message,
        decided_by=actor,
        decided_at=timezone.now(),
        **fields,
    )
