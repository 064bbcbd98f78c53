"""Reads for the hypotheses at the evidence gate: each hypothesis with the quotes on either side."""

from __future__ import annotations

from dataclasses import dataclass

from django.db.models import Prefetch
from django.shortcuts import get_object_or_404
from django.utils.functional import SimpleLazyObject

from researchapp.core.enums import HypothesisStance
from researchapp.models import Hypothesis, HypothesisEvidence, ResearchTask
from researchapp.permissions import is_analyst


@dataclass(frozen=True)
class HypothesisItem:
    hypothesis: Hypothesis
    support: list[HypothesisEvidence]
    refute: list[HypothesisEvidence]


def hypotheses_for_review(task: ResearchTask) -> list[HypothesisItem]:
    """The task's hypotheses with the quotes on each side and their sources (a fixed number of queries)."""
    links = (
        HypothesisEvidence.objects.select_related("evidence__source")
        .defer("evidence__source__text")
        .order_by("stance", "-evidence__score", "evidence_id")
    )
    rows = (
        Hypothesis.objects.filter(task=task)
        .select_related("decided_by")
        .prefetch_related(Prefetch("links", queryset=links))
        .order_by("id")
    )
    items = []
    for row in rows:
        every = list(row.links.all())
        items.append(
            HypothesisItem(
                hypothesis=row,
                support=[link for link in every if link.stance == HypothesisStance.SUPPORT],
                refute=[link for link in every if link.stance == HypothesisStance.REFUTE],
            )
        )
    return items


def hypothesis_in_task(task: ResearchTask, hypothesis_id: int) -> Hypothesis:
    return get_object_or_404(Hypothesis.objects.select_related("task"), pk=hypothesis_id, task=task)


def hypotheses_context(task: ResearchTask, user) -> dict:
    """What ``partials/hypotheses.html`` needs, for any page that includes it (the evidence review)."""
    return {
        "hypotheses": SimpleLazyObject(lambda: hypotheses_for_review(task)),  # read if rendered
        "can_decide_hypotheses": is_analyst(user)
        and task.status == ResearchTask.Status.AWAITING_EVIDENCE_REVIEW,
    }
