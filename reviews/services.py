"""Human decisions: each calls the research service that acts on it and records who decided what.

The research service and the ReviewDecision row share one transaction, so a decision that did not
happen (a stale version, a plan someone else approved) leaves no audit row, and an audit row
never lacks its decision. A decision on an item another analyst has claimed is refused
(``reviews.claims``); deciding an item ends the claims on it (editing a plan does not). ``deciding``
is that frame; each ``<entity>_decide`` fills it with the research service it calls.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from django.contrib.auth.models import User
from django.core.exceptions import PermissionDenied, ValidationError
from django.db import transaction
from django.db.models import Max
from django.utils.translation import gettext as _

from researchapp.models import Event, Evidence, Finding, Hypothesis, Plan, ReportDraft, Source
from researchapp.permissions import is_analyst
from researchapp.services import evidence_gate, hypotheses, manual_evidence, plan_gate, report_gate
from reviews import claims
from reviews.claims import Item
from reviews.models import ReviewDecision

ObjectType = ReviewDecision.ObjectType
PLAN_DECISIONS = ("edit", "approve", "reject")
REPORT_DECISIONS = ("approve", "send_back")
OBJECT_TYPES = {
    Finding: ObjectType.FINDING,
    Plan: ObjectType.PLAN,
    ReportDraft: ObjectType.REPORT,
    Hypothesis: ObjectType.HYPOTHESIS,
}


def _refuse_unless_free_to_decide(item: Item, actor: User) -> None:
    """Only analysts decide, and none on an item another analyst holds."""
    if not is_analyst(actor):
        raise PermissionDenied(_("Only analysts can decide reviews."))
    claims.refuse_if_claimed_by_another(actor=actor, item=item)


def _refuse_unknown(decision: str, known: Iterable[str]) -> None:
    if decision not in known:
        raise ValidationError(_("“%(decision)s” is not a decision this item takes.") % {"decision": decision})


@dataclass(frozen=True)
class DecisionFrame:
    """One decision under way on ``item`` (see ``deciding``)."""

    item: Item
    actor: User
    since: int  # the task's last event before the decision: the ones after it are the decision's

    def record(
        self,
        decided: Finding | Plan | ReportDraft | Hypothesis,
        *,
        decision: str,
        note: str,
        version_seen: int,
        ends_claims: bool = True,
    ) -> ReviewDecision:
        """The research service acted on ``decided``: end the claims on the item (unless the decision
        leaves it open, like a plan edit) and write the audit row, linked to the events the research
        service wrote for the decision."""
        if ends_claims:
            claims.claims_end(self.item)
        record = ReviewDecision.objects.create(
            task_id=decided.task_id,
            reviewer=self.actor,
            object_type=OBJECT_TYPES[type(decided)],
            object_id=decided.pk,
            decision=decision,
            note=note.strip(),
            version_seen=version_seen,
        )
        events = Event.objects.filter(task_id=decided.task_id, id__gt=self.since, actor=self.actor)
        record.events.add(*events.values_list("id", flat=True))
        return record


@contextmanager
def deciding(item: Item, actor: User) -> Iterator[DecisionFrame]:
    """The frame of every decision on ``item``, around the research service that makes it.

    1. Refuse anyone but an analyst, and an item another analyst holds a live claim on.
    2. Open one transaction and note the task's last event.
    3. The caller calls the research service, then ``DecisionFrame.record``: the service's writes, the
       end of the claims and the audit row stand or fall together.
    """
    _refuse_unless_free_to_decide(item, actor)
    with transaction.atomic():
        since = Event.objects.filter(task=item.task).aggregate(last=Max("id"))["last"] or 0
        yield DecisionFrame(item=item, actor=actor, since=since)


def finding_decide(
    *, finding: Finding, actor: User, decision: str, version_seen: int, note: str = "", evidence_id: int = 0
) -> ReviewDecision:
    """Resolve one item, or drop one of its citations; ``StaleDecision`` if another analyst was first."""
    with deciding(Item.of_finding(finding), actor) as frame:
        if decision == evidence_gate.CITATION_DECISION:
            finding = evidence_gate.citation_drop(
                finding=finding, actor=actor, evidence_id=evidence_id, version_seen=version_seen, note=note
            )
            note = f"E{evidence_id}: {note}" if note.strip() else f"E{evidence_id}"
        else:
            finding = evidence_gate.finding_resolve(
                finding=finding, actor=actor, decision=decision, version_seen=version_seen, note=note
            )
        return frame.record(finding, decision=decision, note=note, version_seen=version_seen)


def evidence_add_by_hand(
    *, finding: Finding, actor: User, source: Source, start: int, end: int, version_seen: int, note: str = ""
) -> Evidence:
    """Answer a [证据不足] item with a span of a stored source selected by the analyst; the audit line
    says which quote of which source."""
    with deciding(Item.of_finding(finding), actor) as frame:
        evidence = manual_evidence.evidence_add_by_hand(
            finding=finding,
            actor=actor,
            source=source,
            start=start,
            end=end,
            version_seen=version_seen,
            note=note,
        )
        where = f"{source.title or source.url} [{evidence.start}:{evidence.end}]"
        what = f"E{evidence.pk} “{evidence.quote}” — {where}"
        note = "\n".join(part for part in (what, note.strip()) if part)
        frame.record(finding, decision="add_evidence", note=note, version_seen=version_seen)
    return evidence


def source_open_by_hand(*, finding: Finding, actor: User, url: str, version_seen: int) -> Source:
    """Have the fetcher open a page for a [证据不足] item (refused while another analyst holds it).
    Not a decision: the page is fetched outside any transaction, and no audit row is written."""
    _refuse_unless_free_to_decide(Item.of_finding(finding), actor)
    return manual_evidence.source_open_by_hand(
        finding=finding, actor=actor, url=url, version_seen=version_seen
    )


def hypothesis_decide(
    *, hypothesis: Hypothesis, actor: User, decision: str, version_seen: int, note: str = ""
) -> ReviewDecision:
    """Accept, reject or keep open a hypothesis; ``StaleDecision`` if another analyst decided it first.
    Hypotheses are not queue items, so there is no claim to respect or end."""
    item = Item(task=hypothesis.task, object_type=ObjectType.HYPOTHESIS)
    with deciding(item, actor) as frame:
        hypothesis = hypotheses.hypothesis_decide(
            hypothesis=hypothesis, actor=actor, decision=decision, version_seen=version_seen, note=note
        )
        return frame.record(hypothesis, decision=decision, note=note, version_seen=version_seen)


def plan_decide(
    *,
    plan: Plan,
    actor: User,
    decision: str,
    version_seen: int,
    note: str = "",
    edits: list[plan_gate.SubQuestionEdit] | None = None,
) -> ReviewDecision:
    """Edit, approve or reject the draft plan the analyst was looking at.

    1. Store the analyst's edits, if any (``edit``, or ``approve`` with unsaved changes).
    2. Approve or reject through the plan service, which moves the task on.
    Each step refuses a plan that is not the version on screen (a re-plan replaced it, someone
    decided it); the decision is recorded.
    """
    with deciding(Item(task=plan.task, object_type=ObjectType.PLAN), actor) as frame:
        _refuse_unknown(decision, PLAN_DECISIONS)
        if edits is not None:
            plan = plan_gate.plan_update(
                plan=plan, actor=actor, subquestions=edits, version_seen=version_seen
            )
        elif decision == "edit":
            raise ValidationError(_("Nothing to save."))
        if decision == "approve":
            plan_gate.plan_approve(plan=plan, actor=actor, note=note.strip(), version_seen=version_seen)
        elif decision == "reject":
            plan_gate.plan_reject(plan=plan, actor=actor, feedback=note, version_seen=version_seen)
        return frame.record(
            plan, decision=decision, note=note, version_seen=version_seen, ends_claims=decision != "edit"
        )


def report_decide(
    *,
    draft: ReportDraft,
    actor: User,
    decision: str,
    version_seen: int,
    note: str = "",
    sentence_comments: list[dict[str, str]] | None = None,
) -> ReviewDecision:
    """Approve the current draft, or send it back to the writer with comments (on the whole
    report in ``note``, on its sentences in ``sentence_comments``: ``{anchor, sentence, comment}``)."""
    with deciding(Item(task=draft.task, object_type=ObjectType.REPORT), actor) as frame:
        _refuse_unknown(decision, REPORT_DECISIONS)
        if decision == "approve":
            draft = report_gate.report_approve(
                draft=draft, actor=actor, note=note.strip(), version_seen=version_seen
            )
        else:
            draft = report_gate.report_send_back(
                draft=draft,
                actor=actor,
                comments=note,
                sentence_comments=sentence_comments,
                version_seen=version_seen,
            )
            comments = (f"{c['anchor']} “{c['sentence']}”: {c['comment']}" for c in sentence_comments or [])
            note = "\n".join([note.strip(), *comments])
        return frame.record(draft, decision=decision, note=note, version_seen=version_seen)
