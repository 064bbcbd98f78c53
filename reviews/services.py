"""Human decisions: each calls the research service that acts on it and records who decided what.

The research service and the ReviewDecision row share one transaction, so a decision that did not
happen (a stale version, a plan someone else approved) leaves no audit row, and an audit row
never lacks its decision. A decision on an item another analyst has claimed is refused
(``reviews.claims``); deciding an item ends the claims on it (editing a plan does not).
"""

from __future__ import annotations

from django.core.exceptions import PermissionDenied, ValidationError
from django.db import transaction
from django.db.models import Max

from researchapp.models import Event, Evidence, Finding, Hypothesis, Plan, ReportDraft, Source, StaleState
from researchapp.permissions import is_analyst
from researchapp.services import evidence_gate, hypotheses, manual_evidence, plan_gate, report_gate
from reviews import claims
from reviews.claims import Item
from reviews.models import ReviewDecision

PLAN_DECISIONS = ("edit", "approve", "reject")
REPORT_DECISIONS = ("approve", "send_back")


def _require_analyst(reviewer) -> None:
    if not is_analyst(reviewer):
        raise PermissionDenied("Only analysts can decide reviews.")


def _refuse_unknown_or_stale(what: str, decision: str, known, *, version: int, version_seen: int) -> None:
    if decision not in known:
        raise ValidationError(f"Unknown {what} decision {decision!r}.")
    if version != version_seen:
        raise StaleState(
            f"The {what} changed since you loaded it (you saw v{version_seen}, it is now v{version})."
        )


OBJECT_TYPES = {
    Finding: ReviewDecision.ObjectType.FINDING,
    Plan: ReviewDecision.ObjectType.PLAN,
    ReportDraft: ReviewDecision.ObjectType.REPORT,
    Hypothesis: ReviewDecision.ObjectType.HYPOTHESIS,
}


def _before_deciding(item: Item, reviewer) -> int:
    """Refuse if another analyst holds ``item``; the id after which this decision's events will come."""
    claims.refuse_if_claimed_by_another(analyst=reviewer, item=item)
    return Event.objects.filter(task=item.task).aggregate(last=Max("id"))["last"] or 0


def _record(
    decided: Finding | Plan | ReportDraft | Hypothesis,
    *,
    reviewer,
    decision: str,
    note: str,
    version_seen: int,
    since: int,
):
    """The audit row of one decision on ``decided`` (a finding, a plan or a report draft), linked to
    the events the research services wrote for it (the reviewer's events after ``since``)."""
    record = ReviewDecision.objects.create(
        task_id=decided.task_id,
        reviewer=reviewer,
        object_type=OBJECT_TYPES[type(decided)],
        object_id=decided.pk,
        decision=decision,
        note=note.strip(),
        version_seen=version_seen,
    )
    events = Event.objects.filter(task_id=decided.task_id, id__gt=since, actor=reviewer)
    record.events.add(*events.values_list("id", flat=True))
    return record


def decide_finding(
    *, finding: Finding, reviewer, decision: str, version_seen: int, note: str = "", evidence_id: int = 0
) -> ReviewDecision:
    """Resolve one item, or drop one of its citations; ``StaleState`` if another analyst was first."""
    _require_analyst(reviewer)
    item = Item.of_finding(finding)
    with transaction.atomic():
        since = _before_deciding(item, reviewer)
        if decision == evidence_gate.CITATION_DECISION:
            finding = evidence_gate.citation_drop(
                finding=finding, actor=reviewer, evidence_id=evidence_id, version_seen=version_seen, note=note
            )
            note = f"E{evidence_id}: {note}" if note.strip() else f"E{evidence_id}"
        else:
            finding = evidence_gate.finding_resolve(
                finding=finding, actor=reviewer, decision=decision, version_seen=version_seen, note=note
            )
        claims.claims_end(item)
        return _record(
            finding, reviewer=reviewer, decision=decision, note=note, version_seen=version_seen, since=since
        )


def add_evidence_by_hand(
    *, finding: Finding, reviewer, source: Source, start: int, end: int, version_seen: int, note: str = ""
) -> Evidence:
    """Answer a [证据不足] item with a span of a stored source selected by the analyst; the audit line
    says which quote of which source."""
    _require_analyst(reviewer)
    item = Item.of_finding(finding)
    with transaction.atomic():
        since = _before_deciding(item, reviewer)
        evidence = manual_evidence.evidence_add_by_hand(
            finding=finding,
            actor=reviewer,
            source=source,
            start=start,
            end=end,
            version_seen=version_seen,
            note=note,
        )
        claims.claims_end(item)
        where = f"{source.title or source.url} [{evidence.start}:{evidence.end}]"
        what = f"E{evidence.pk} “{evidence.quote}” — {where}"
        _record(
            finding,
            reviewer=reviewer,
            decision="add_evidence",
            note="\n".join(part for part in (what, note.strip()) if part),
            version_seen=version_seen,
            since=since,
        )
    return evidence


def open_source_by_hand(*, finding: Finding, reviewer, url: str, version_seen: int) -> Source:
    """Have the fetcher open a page for a [证据不足] item (refused while another analyst holds it)."""
    _require_analyst(reviewer)
    claims.refuse_if_claimed_by_another(analyst=reviewer, item=Item.of_finding(finding))
    return manual_evidence.source_open_by_hand(
        finding=finding, actor=reviewer, url=url, version_seen=version_seen
    )


def decide_hypothesis(
    *, hypothesis: Hypothesis, reviewer, decision: str, version_seen: int, note: str = ""
) -> ReviewDecision:
    """Accept, reject or keep open a hypothesis; ``StaleState`` if another analyst decided it first.
    Hypotheses are not queue items, so there is no claim to respect or end."""
    _require_analyst(reviewer)
    with transaction.atomic():
        since = Event.objects.filter(task=hypothesis.task).aggregate(last=Max("id"))["last"] or 0
        hypothesis = hypotheses.hypothesis_decide(
            hypothesis=hypothesis, actor=reviewer, decision=decision, version_seen=version_seen, note=note
        )
        return _record(
            hypothesis,
            reviewer=reviewer,
            decision=decision,
            note=note,
            version_seen=version_seen,
            since=since,
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
    _refuse_unknown_or_stale(
        "plan", decision, PLAN_DECISIONS, version=plan.version, version_seen=version_seen
    )
    item = Item(task=plan.task, object_type=ReviewDecision.ObjectType.PLAN)
    with transaction.atomic():
        since = _before_deciding(item, reviewer)
        if edits is not None:
            plan = plan_gate.plan_update(plan=plan, actor=reviewer, subquestions=edits)
        elif decision == "edit":
            raise ValidationError("Nothing to save.")
        if decision == "approve":
            plan_gate.plan_approve(plan=plan, actor=reviewer, note=note.strip())
        elif decision == "reject":
            plan_gate.plan_reject(plan=plan, actor=reviewer, feedback=note)
        if decision != "edit":
            claims.claims_end(item)
        return _record(
            plan, reviewer=reviewer, decision=decision, note=note, version_seen=version_seen, since=since
        )


def decide_report(
    *,
    draft: ReportDraft,
    reviewer,
    decision: str,
    version_seen: int,
    note: str = "",
    sentence_comments: list[dict[str, str]] | None = None,
) -> ReviewDecision:
    """Approve the current draft, or send it back to the writer with comments (on the whole
    report in ``note``, on its sentences in ``sentence_comments``: ``{anchor, sentence, comment}``)."""
    _require_analyst(reviewer)
    _refuse_unknown_or_stale(
        "report", decision, REPORT_DECISIONS, version=draft.version, version_seen=version_seen
    )
    item = Item(task=draft.task, object_type=ReviewDecision.ObjectType.REPORT)
    with transaction.atomic():
        since = _before_deciding(item, reviewer)
        if decision == "approve":
            draft = report_gate.report_approve(draft=draft, actor=reviewer, note=note.strip())
        else:
            draft = report_gate.report_send_back(
                draft=draft, actor=reviewer, comments=note, sentence_comments=sentence_comments
            )
            note = "\n".join(
                [
                    note.strip(),
                    *(f"{c['anchor']} “{c['sentence']}”: {c['comment']}" for c in sentence_comments or []),
                ]
            )
        claims.claims_end(item)
        return _record(
            draft, reviewer=reviewer, decision=decision, note=note, version_seen=version_seen, since=since
        )
