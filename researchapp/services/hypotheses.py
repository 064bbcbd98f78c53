"""Analysts' verdicts on hypotheses at the evidence gate: accept, reject, or keep open."""

from __future__ import annotations

from django.contrib.auth.models import User
from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from researchapp.core.enums import HypothesisStatus
from researchapp.core.messages import decision_word, gettext_noop, message, with_note
from researchapp.models import Event, Gate, Hypothesis, IllegalTransition

# decision → the status it stores
DECISIONS: dict[str, HypothesisStatus] = {
    "accept": HypothesisStatus.ACCEPTED,
    "reject": HypothesisStatus.REJECTED,
    "keep_open": HypothesisStatus.OPEN,
}


def hypothesis_decide(
    *, hypothesis: Hypothesis, actor: User | None, decision: str, version_seen: int, note: str = ""
) -> Hypothesis:
    """Record one analyst's verdict on the version of the hypothesis they saw.

    The compare-and-set on (pk, version) is the rule of every gate decision: of two analysts
    deciding one hypothesis, exactly one UPDATE touches the row and the other gets ``StaleDecision``.
    A verdict may be changed later, by whoever saw the latest version; the hypothesis's move table
    says which verdicts it can take.
    """
    if decision not in DECISIONS:
        raise ValidationError(_("“%(decision)s” is not a decision this item takes.") % {"decision": decision})
    hypothesis.task.refuse_unless_at(Gate.EVIDENCE_REVIEW)
    with transaction.atomic():
        try:
            hypothesis.decide(
                version_seen,
                to=DECISIONS[decision].value,
                note=note.strip(),
                decided_by=actor,
                decided_at=timezone.now(),
            )
        except IllegalTransition:
            raise ValidationError(
                _("The hypothesis is %(status)s already.") % {"status": hypothesis.get_status_display()}
            ) from None
        decided = message(
            gettext_noop("Hypothesis %(hypothesis)s: %(decision)s."),
            hypothesis=hypothesis.pk,
            decision=decision_word(decision),
        )
        Event.decision(
            task_id=hypothesis.task_id,
            stage=Gate.EVIDENCE_REVIEW,
            actor=actor,
            message=with_note(decided, note),
            data={"hypothesis": hypothesis.pk, "decision": decision},
        )
    return hypothesis
