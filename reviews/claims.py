"""Claims on review items: an analyst takes an item so the others see who has it.

An item is a task's plan (while it waits at plan review), its report (at report review), or one
finding that needs a decision (at evidence review). A claim holds for ``CLAIM_MINUTES`` and can be
taken again by its holder to renew it, released by hand, or replaced by anyone once it expired.

While a claim is live, a decision on the item by any other analyst is **refused**
(``StaleState`` naming the holder and when the claim ends): claiming exists so that two analysts
do not work on one item, and a warning read after the work is done would come too late. Unclaimed
items can be decided by anyone, as before; deciding an item ends every claim on it.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta

from django.conf import settings
from django.contrib.auth.models import User
from django.core.exceptions import PermissionDenied, ValidationError
from django.db import IntegrityError, transaction
from django.utils import formats, timezone
from django.utils.translation import gettext as _

from researchapp.models import Finding, ResearchTask, StaleState
from researchapp.permissions import is_analyst
from reviews.models import Claim, ReviewDecision

ObjectType = ReviewDecision.ObjectType
Status = ResearchTask.Status
GATE_OF = {
    ObjectType.PLAN: Status.AWAITING_PLAN_REVIEW,
    ObjectType.FINDING: Status.AWAITING_EVIDENCE_REVIEW,
    ObjectType.REPORT: Status.AWAITING_REPORT_REVIEW,
}


@dataclass(frozen=True)
class Item:
    """One thing an analyst decides: a task's plan or report, or one of its findings (queue items,
    which can be claimed), or one of its hypotheses (not a queue item: never claimed)."""

    task: ResearchTask
    object_type: str
    finding: Finding | None = None

    @classmethod
    def of_finding(cls, finding: Finding) -> Item:
        return cls(task=finding.task, object_type=ObjectType.FINDING, finding=finding)

    def claims(self):
        if self.object_type not in GATE_OF:
            return Claim.objects.none()
        if self.finding is not None:
            return Claim.objects.filter(finding=self.finding)
        return Claim.objects.filter(task=self.task, object_type=self.object_type, finding__isnull=True)

    def waits_for_review(self) -> bool:
        if self.task.status != GATE_OF[self.object_type]:
            return False
        return self.finding is None or self.finding.needs_review


def claim_minutes() -> int:
    return settings.RESEARCH["CLAIM_MINUTES"]


def held_until(claim: Claim) -> str:
    return formats.time_format(timezone.localtime(claim.expires_at), "H:i")


def claim_take(*, actor: User, item: Item) -> Claim:
    """Claim ``item`` for ``claim_minutes()``, or renew one's own claim.

    1. Only analysts claim, and only items that wait for a decision.
    2. Drop an expired claim on the item, whoever held it.
    3. Renew the analyst's own live claim, or insert a new one; the unique constraint lets one of
       two racing analysts in, and the other is told who was first (``StaleState``).
    """
    if not is_analyst(actor):
        raise PermissionDenied(_("Only analysts can claim review items."))
    if not item.waits_for_review():
        raise ValidationError(_("This item no longer waits for a decision."))
    now = timezone.now()
    expires = now + timedelta(minutes=claim_minutes())
    with transaction.atomic():
        item.claims().filter(expires_at__lte=now).delete()
        if item.claims().filter(analyst=actor).update(expires_at=expires):
            return item.claims().get()
        try:
            with transaction.atomic():
                return Claim.objects.create(
                    task=item.task,
                    object_type=item.object_type,
                    finding=item.finding,
                    analyst=actor,
                    claimed_at=now,
                    expires_at=expires,
                )
        except IntegrityError:
            holder = item.claims().select_related("analyst").first()
    if holder is None:  # released between our insert and our look
        raise StaleState(_("Someone else claimed and released this item at once; try again."))
    raise StaleState(
        _("%(who)s claimed this item first (until %(until)s).")
        % {"who": holder.analyst.get_username(), "until": held_until(holder)}
    )


def claim_release(*, actor: User, item: Item) -> bool:
    """Release the analyst's own claim on ``item``; False if they held none."""
    deleted, _rows = item.claims().filter(analyst=actor).delete()
    return bool(deleted)


def refuse_if_claimed_by_another(*, actor: User, item: Item) -> None:
    """A decision on an item someone else holds a live claim on is refused (see the module's doc)."""
    holder = item.claims().live().exclude(analyst=actor).select_related("analyst").first()
    if holder is not None:
        raise StaleState(
            _(
                "%(who)s has claimed this item until %(until)s; only they can decide it until they "
                "release it or the claim expires."
            )
            % {"who": holder.analyst.get_username(), "until": held_until(holder)}
        )


def claims_end(item: Item) -> None:
    """The item is decided: nobody needs to hold it any more."""
    item.claims().delete()
