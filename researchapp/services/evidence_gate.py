"""The evidence gate: conflicts and [证据不足] items, resolved one by one by analysts."""

from __future__ import annotations

from django.contrib.auth.models import User
from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import F
from django.utils import timezone
from django.utils.translation import gettext as _

from researchapp.core.enums import FindingStatus, Resolution, Stance
from researchapp.core.messages import Message, decision_word, gettext_noop, message, plural_message, with_note
from researchapp.models import Event, Finding, FindingEvidence, Gate, ResearchTask, Stage, StaleState
from researchapp.services.dispatch import Job, enqueue
from researchapp.services.rounds import start_followup_round

Status = ResearchTask.Status

# decision → (the resolution it stores, the finding statuses it applies to)
DECISIONS: dict[str, tuple[Resolution, frozenset[str]]] = {
    "pick_supports": (Resolution.PICKED, frozenset({FindingStatus.CONFLICT})),
    "pick_contradicts": (Resolution.PICKED, frozenset({FindingStatus.CONFLICT})),
    "disputed": (Resolution.DISPUTED, frozenset({FindingStatus.CONFLICT})),
    "gap": (Resolution.GAP, frozenset({FindingStatus.INSUFFICIENT})),
    "drop": (
        Resolution.DROPPED,
        frozenset({FindingStatus.CONFLICT, FindingStatus.INSUFFICIENT, FindingStatus.SUPPORTED}),
    ),
    # A supported finding an analyst doubts: reported as a point to verify, never as fact.
    "flag": (Resolution.GAP, frozenset({FindingStatus.SUPPORTED})),
    "more_research": (
        Resolution.MORE_RESEARCH,
        frozenset({FindingStatus.CONFLICT, FindingStatus.INSUFFICIENT}),
    ),
}


PICKS = frozenset({"pick_supports", "pick_contradicts"})


def finding_resolve(
    *, finding: Finding, actor: User | None, decision: str, version_seen: int, note: str = ""
) -> Finding:
    """Record one analyst's decision on one item, if nobody decided it first.

    The compare-and-set on (pk, version, unresolved) makes two analysts racing on one item safe:
    exactly one UPDATE touches the row; the other gets ``StaleDecision``. Picking a side sets the
    other side's quotes aside, so it needs a reason: the report states the picked side as fact.
    """
    if decision not in DECISIONS:
        raise ValidationError(_("“%(decision)s” is not a decision this item takes.") % {"decision": decision})
    if decision in PICKS and not note.strip():
        raise ValidationError(_("Say why you pick this side: the reason is recorded with the decision."))
    resolution, applies_to = DECISIONS[decision]
    if finding.status not in applies_to:
        raise ValidationError(
            _("“%(decision)s” does not apply to a %(status)s finding.")
            % {"decision": decision, "status": finding.get_status_display()}
        )
    task = finding.task
    task.refuse_unless_at(Gate.EVIDENCE_REVIEW)
    if resolution == Resolution.MORE_RESEARCH and not task.rounds_left:
        raise ValidationError(_("No research rounds remain (limit %(n)s).") % {"n": task.max_rounds})
    with transaction.atomic():
        finding.decide(
            version_seen,
            resolution=resolution.value,
            resolution_note=note.strip(),
            resolved_by=actor,
            resolved_at=timezone.now(),
        )
        if decision in PICKS:
            losing = Stance.CONTRADICTS if decision == "pick_supports" else Stance.SUPPORTS
            FindingEvidence.objects.filter(finding=finding, stance=losing).update(kept=False)
        finding_decision_record(
            finding,
            actor=actor,
            message=with_note(
                message(
                    gettext_noop("Sub-question %(number)s, finding %(finding)s: %(decision)s."),
                    number=finding.subquestion.order + 1,
                    finding=finding.pk,
                    decision=decision_word(decision),
                ),
                note,
            ),
            data={"decision": decision},
        )
    return finding


CITATION_DECISION = "drop_citation"


def citation_drop(
    *, finding: Finding, actor: User | None, evidence_id: int, version_seen: int, note: str = ""
) -> Finding:
    """Take one quote out of what a finding stands on (it is about something else, say).

    The finding stays undecided; its version moves on, so a decision made on what it was is
    refused. A finding left without any quote is dropped with it.
    """
    finding.task.refuse_unless_at(Gate.EVIDENCE_REVIEW)
    with transaction.atomic():
        link = FindingEvidence.objects.filter(finding=finding, evidence_id=evidence_id, kept=True).first()
        if link is None:
            raise ValidationError(_("E%(id)s is not a citation of this finding.") % {"id": evidence_id})
        finding.decide(version_seen)
        FindingEvidence.objects.filter(pk=link.pk).update(kept=False)
        left = FindingEvidence.objects.filter(finding=finding, kept=True).exists()
        if not left:
            Finding.objects.filter(pk=finding.pk).update(
                resolution=Resolution.DROPPED,
                resolution_note=note.strip() or f"its last citation, E{evidence_id}, was dropped",
                resolved_by=actor,
                resolved_at=timezone.now(),
            )
        said = (
            gettext_noop("Finding %(finding)s: citation E%(evidence)s dropped.")
            if left
            else gettext_noop(
                "Finding %(finding)s: citation E%(evidence)s dropped; nothing is left, "
                "so the finding is dropped."
            )
        )
        finding_decision_record(
            finding,
            actor=actor,
            message=with_note(message(said, finding=finding.pk, evidence=evidence_id), note),
            data={"decision": CITATION_DECISION, "evidence": evidence_id},
        )
        finding.refresh_from_db()
    return finding


def finding_decision_record(finding: Finding, *, actor: User | None, message: Message, data: dict) -> None:
    """The audit event of one decision at the evidence gate, and, once it commits, the gate's check
    whether anything is left to decide (inside the decision's transaction)."""
    task_id = finding.task_id
    Event.decision(
        task_id=task_id,
        stage=Gate.EVIDENCE_REVIEW,
        actor=actor,
        message=message,
        data={"finding": finding.pk, **data},
    )
    transaction.on_commit(lambda: evidence_gate_after_decision(task_id))


def evidence_gate_after_decision(task_id: int) -> None:
    task = ResearchTask.objects.get(pk=task_id)
    if task.status == Status.AWAITING_EVIDENCE_REVIEW:
        evidence_gate(task)


def evidence_gate(task: ResearchTask) -> None:
    """Open the review gate, or pass it when nothing (more) needs a person.

    1. Items left to decide: wait for analysts (with ``auto_approve``, keep conflicts as disputed
       and gaps as gaps, as proposed).
    2. Nothing left: if analysts asked for more research, start a bounded follow-up round for
       those sub-questions; otherwise move on to writing.
    """
    pending = Finding.objects.filter(task=task).needing_review()
    if task.auto_approve:
        pending.filter(status=FindingStatus.CONFLICT).update(
            resolution=Resolution.DISPUTED, resolution_note="auto-approved", version=F("version") + 1
        )
        pending.filter(status=FindingStatus.INSUFFICIENT).update(
            resolution=Resolution.GAP, resolution_note="auto-approved", version=F("version") + 1
        )
    waiting = pending.count()
    if waiting:
        if task.status == Status.ANALYSING:
            task.transition(
                Status.AWAITING_EVIDENCE_REVIEW,
                stage=Stage.ANALYSING,
                message=plural_message(
                    gettext_noop("%(count)s item needs an analyst."),
                    gettext_noop("%(count)s items need an analyst."),
                    waiting,
                ),
            )
        return
    more = list(
        Finding.objects.filter(task=task, round=task.round, resolution=Resolution.MORE_RESEARCH)
        .values_list("subquestion_id", flat=True)
        .distinct()
    )
    try:
        with transaction.atomic():
            if more and task.rounds_left:
                start_followup_round(
                    task,
                    more,
                    stage=Gate.EVIDENCE_REVIEW,
                    reason=message(gettext_noop("an analyst asked for more research")),
                )
            else:
                note = message(
                    gettext_noop("Nothing to resolve; the gate passes by itself.")
                    if task.status == Status.ANALYSING
                    else gettext_noop("Every item is resolved.")
                )
                task.transition(
                    Status.WRITING, stage=Gate.EVIDENCE_REVIEW, message=note, write_pass=task.write_pass + 1
                )
                enqueue(Job.WRITE, task.pk)
    except StaleState:
        return  # a concurrent decision already moved the task on
