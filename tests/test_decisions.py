"""One decision pattern: a decision on a version of an item that someone else changed or decided is
refused with the same words for every kind of item, in the analyst's language; a hypothesis moves
only as its table allows."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from django.core.exceptions import ValidationError
from django.utils import translation

from researchapp.models import Event, Finding, Hypothesis, IllegalTransition, Plan, ReportDraft, StaleDecision
from reviews import services
from reviews.models import ReviewDecision
from tests.factories import (
    analyst_persona,
    evidence_review_task,
    plan_review_task,
    report_review_task,
)

pytestmark = pytest.mark.django_db

ACTED_FIRST = {
    "en": "analyst1 changed or decided this item first; reload to see it as it is now.",
    "zh-hans": "analyst1已先修改或决定了此条目；请重新加载查看其当前状态。",
}


def a_hypothesis(task) -> Hypothesis:
    return Hypothesis.objects.create(
        task=task,
        key="ridership-source",
        statement="The authority counts boardings, the association counts riders.",
        supports_if="A quote says the authority counts each boarding.",
        refutes_if="A quote says both count the same thing.",
    )


def decisions_on_every_kind_of_item(researcher) -> dict[str, tuple[object, Callable]]:
    """kind → (the item as both analysts loaded it, how an analyst decides it)."""
    evidence = evidence_review_task(researcher)
    plan = plan_review_task(researcher).plan
    draft = report_review_task(researcher).draft
    hypothesis = a_hypothesis(evidence.task)
    quote = {"source": evidence.sources[1], "start": 0, "end": 61}
    return {
        "finding": (
            Finding.objects.get(pk=evidence.conflict.pk),
            lambda actor, item: services.finding_decide(
                finding=item, actor=actor, decision="disputed", version_seen=1
            ),
        ),
        "evidence by hand": (
            Finding.objects.get(pk=evidence.gap.pk),
            lambda actor, item: services.evidence_add_by_hand(
                finding=item, actor=actor, version_seen=1, **quote
            ),
        ),
        "hypothesis": (
            Hypothesis.objects.get(pk=hypothesis.pk),
            lambda actor, item: services.hypothesis_decide(
                hypothesis=item, actor=actor, decision="reject", version_seen=1
            ),
        ),
        "plan": (
            Plan.objects.get(pk=plan.pk),
            lambda actor, item: services.plan_decide(
                plan=item, actor=actor, decision="reject", version_seen=1, note="Split the first one."
            ),
        ),
        "report": (
            ReportDraft.objects.get(pk=draft.pk),
            lambda actor, item: services.report_decide(
                draft=item, actor=actor, decision="approve", version_seen=1
            ),
        ),
    }


@pytest.mark.parametrize("language", ["en", "zh-hans"])
def test_the_second_analyst_on_any_item_is_told_the_same_words_in_their_language(researcher, language):
    # given every kind of item, loaded by two analysts at the same version
    first, second = analyst_persona("analyst1"), analyst_persona("analyst2")
    items = decisions_on_every_kind_of_item(researcher)
    refusals = {}
    with translation.override(language):
        for kind, (item, decide) in items.items():
            # when the first decides it and then the second, on the copy loaded before the first decided
            decide(first, type(item).objects.get(pk=item.pk))
            with pytest.raises(StaleDecision) as refused:
                decide(second, item)
            refusals[kind] = str(refused.value)
    # then each kind is refused with one message, naming who was first, in the analyst's language
    assert refusals == dict.fromkeys(items, ACTED_FIRST[language])
    # and the second analyst's decisions left nothing behind
    assert not ReviewDecision.objects.filter(reviewer=second).exists()
    assert not Event.objects.filter(actor=second).exists()


def test_a_hypothesis_takes_only_the_moves_of_its_table(analyst):
    # given an accepted hypothesis (open → accepted is in its table)
    hypothesis = a_hypothesis(evidence_review_task(analyst).task)
    services.hypothesis_decide(hypothesis=hypothesis, actor=analyst, decision="accept", version_seen=1)
    hypothesis.refresh_from_db()
    assert (hypothesis.status, hypothesis.version) == ("accepted", 2)
    # when it is accepted again: the model refuses the move, the service says why, nothing is stored
    with pytest.raises(IllegalTransition):
        hypothesis.decide(2, to=Hypothesis.Status.ACCEPTED, decided_by=analyst)
    with pytest.raises(ValidationError, match="The hypothesis is accepted already."):
        services.hypothesis_decide(hypothesis=hypothesis, actor=analyst, decision="accept", version_seen=2)
    hypothesis.refresh_from_db()
    assert (hypothesis.status, hypothesis.version) == ("accepted", 2)
    assert ReviewDecision.objects.filter(object_type="hypothesis").count() == 1
    # and the moves its table has still happen: reopened, then rejected
    services.hypothesis_decide(hypothesis=hypothesis, actor=analyst, decision="keep_open", version_seen=2)
    services.hypothesis_decide(hypothesis=hypothesis, actor=analyst, decision="reject", version_seen=3)
    hypothesis.refresh_from_db()
    assert (hypothesis.status, hypothesis.version) == ("rejected", 4)
