"""Analysts' verdicts on hypotheses at the evidence gate: accept, reject, or keep open."""

from __future__ import annotations

from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import F
from django.utils import timezone

from researchapp.core.enums import HypothesisStatus
from researchapp.models import Event, Gate, Hypothesis, ResearchTask, StaleState

# decision → the status it stores
DECISIONS: dict[str, HypothesisStatus] = {
    "accept": HypothesisStatus.ACCEPTED,
    "reject": HypothesisStatus.REJECTED,
    "keep_open": HypothesisStatus.OPEN,
}


def hypothesis_decide(
    *, hypothesis: Hypothesis, actor, decision: str, version_seen: int, note: str = ""
) -> Hypothesis:
    """Record one analyst's verdict on the version of the hypothesis they saw.

    The compare-and-set on (pk, version) is the rule of every gate decision: of two analysts
    deciding one hypothesis, exactly one UPDATE touches the row and the other gets ``StaleState``.
    A verdict may be changed later, by whoever saw the latest version.
    """
    if decision not in DECISIONS:
        raise ValidationError(f"Unknown decision {decision!r} on a hypothesis.")
    task = hypothesis.task
    if task.status != ResearchTask.Status.AWAITING_EVIDENCE_REVIEW:
        raise StaleState(f"The task is {task.get_status_display()}; its evidence is not under review.")
    with transaction.atomic():
        won = Hypothesis.objects.filter(pk=hypothesis.pk, version=version_seen).update(
            status=DECISIONS[decision].value,
            note=note.strip(),
            decided_by=actor,
            decided_at=timezone.now(),
            version=F("version") + 1,
        )
        if won != 1:
            current = Hypothesis.objects.select_related("decided_by").get(pk=hypothesis.pk)
            who = current.decided_by.get_username() if current.decided_by else "someone"
            raise StaleState(
                f"{who} decided this hypothesis first ({current.get_status_display()}); "
                f"you saw v{version_seen}, it is now v{current.version}."
            )
        Event.objects.create(
            task=task,
            stage=Gate.EVIDENCE_REVIEW,
            kind=Event.Kind.DECISION,
            actor=actor,
            message=f"Hypothesis {hypothesis.pk}: {decision.replace('_', ' ')}"
            f"{f' — {note.strip()}' if note.strip() else ''}.",
            data={"hypothesis": hypothesis.pk, "decision": decision},
        )
        hypothesis.refresh_from_db()
    return hypothesis
