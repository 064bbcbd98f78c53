"""Human decisions: each calls the research service that acts on it and records who decided what.

The research service and the ReviewDecision row share one transaction, so a decision that did not
happen (a stale version, a plan someone else approved) leaves no audit row, and an audit row
never lacks its decision.
"""

from __future__ import annotations

from django.core.exceptions import PermissionDenied, ValidationError
from django.db import transaction

from researchapp.models import Finding, Plan, ReportDraft, StaleState
from researchapp.permissions import is_analyst
from researchapp.services import evidence_gate, plan_gate, report_gate
from reviews.models import ReviewDecision

PLAN_DECISIONS = ("edit", "approve", "reject")
REPORT_DECISIONS = ("approve", "send_back")


def _require_analyst(reviewer) -> None:
    if not is_analyst(reviewer):
        raise PermissionDenied("Only analysts can decide reviews.")


def _record(
    *, task_id: int, reviewer, object_type: str, object_id: int, decision: str, note: str, version_seen: int
) -> ReviewDecision:
    return ReviewDecision.objects.create(
        task_id=task_id,
        reviewer=reviewer,
        object_type=object_type,
        object_id=object_id,
        decision=decision,
        note=note.strip(),
        version_seen=version_seen,
    )


def decide_finding(
    *, finding: Finding, reviewer, decision: str, version_seen: int, note: str = ""
) -> ReviewDecision:
    """Resolve one conflict or [证据不足] item; ``StaleState`` if another analyst was first."""
    _require_analyst(reviewer)
    with transaction.atomic():
        finding = evidence_gate.finding_resolve(
            finding=finding, actor=reviewer, decision=decision, version_seen=version_seen, note=note
        )
        return _record(
            task_id=finding.task_id,
            reviewer=reviewer,
            object_type=ReviewDecision.ObjectType.FINDING,
            object_id=finding.pk,
            decision=decision,
            note=note,
            version_seen=version_seen,
        )


def decide_plan(
    *,
    plan: Plan,
    reviewer,
    decision: str,
    version_seen: int,
    note: str = "",
    edits: list[plan_gate.SubQuestionEdit] | None = None,
) -> ReviewDecision:
    """Edit, approve or reject the draft plan the analyst was looking at.

    1. Refuse if the plan on screen is not the current version (a re-plan replaced it).
    2. Store the analyst's edits, if any (``edit``, or ``approve`` with unsaved changes).
    3. Approve or reject through the plan service, which moves the task on.
    4. Record the decision.
    """
    _require_analyst(reviewer)
    if decision not in PLAN_DECISIONS:
        raise ValidationError(f"Unknown plan decision {decision!r}.")
    if plan.version != version_seen:
        raise StaleState(
            f"The plan changed since you loaded it (you saw v{version_seen}, it is now v{plan.version})."
        )
    with transaction.atomic():
        if edits is not None:
            plan = plan_gate.plan_update(plan=plan, actor=reviewer, subquestions=edits)
        elif decision == "edit":
            raise ValidationError("Nothing to save.")
        if decision == "approve":
            plan_gate.plan_approve(plan=plan, actor=reviewer, note=note.strip())
        elif decision == "reject":
            plan_gate.plan_reject(plan=plan, actor=reviewer, feedback=note)
        return _record(
            task_id=plan.task_id,
            reviewer=reviewer,
            object_type=ReviewDecision.ObjectType.PLAN,
            object_id=plan.pk,
            decision=decision,
            note=note,
            version_seen=version_seen,
        )


def decide_report(
    *, draft: ReportDraft, reviewer, decision: str, version_seen: int, note: str = ""
) -> ReviewDecision:
    """Approve the current draft, or send it back to the writer with comments."""
    _require_analyst(reviewer)
    if decision not in REPORT_DECISIONS:
        raise ValidationError(f"Unknown report decision {decision!r}.")
    if draft.version != version_seen:
        raise StaleState(
            f"The report changed since you loaded it (you saw v{version_seen}, it is now v{draft.version})."
        )
    with transaction.atomic():
        if decision == "approve":
            draft = report_gate.report_approve(draft=draft, actor=reviewer, note=note.strip())
        else:
            draft = report_gate.report_send_back(draft=draft, actor=reviewer, comments=note)
        return _record(
            task_id=draft.task_id,
            reviewer=reviewer,
            object_type=ReviewDecision.ObjectType.REPORT,
            object_id=draft.pk,
            decision=decision,
            note=note,
            version_seen=version_seen,
        )
