"""The analyse stage's disagreements across a whole task: judged once, stored once, whatever
sub-questions stored their passages; a page's passage below the bar stored as the other side."""

from __future__ import annotations

import pytest

from researchapp.core.enums import FindingStatus
from researchapp.models import Evidence, Finding, Plan
from researchapp.pipeline.runner.analyse import run_analyse
from tests.factories import EvidenceFactory, SourceFactory, task_with_plan

pytestmark = pytest.mark.django_db
BUILT_1871 = "The harbour board built the Greywater Point lighthouse in 1871 on the northern headland."
BUILT_1874 = "Records show the Greywater Point lighthouse was built by the harbour board in 1874."


def analysing_task(researcher):
    scenario = task_with_plan(researcher, status="analysing", plan_status=Plan.Status.APPROVED)
    # the judges align passages on the question they were found for: these ask about the lighthouse
    scenario.plan.subquestions.update(text="When was the Greywater Point lighthouse built?")
    return scenario.task, list(scenario.plan.subquestions.order_by("order"))


def page(task, text: str, n: int):
    return SourceFactory(task=task, text=text, url=f"https://site{n}.example/page", cluster=f"c{n}")


def test_one_disagreement_seen_under_two_sub_questions_is_one_finding(researcher):
    # given the same two passages stored as evidence of two sub-questions
    task, (sq1, sq2, _) = analysing_task(researcher)
    early, late = page(task, BUILT_1871, 1), page(task, BUILT_1874, 2)
    for subquestion in (sq1, sq2):
        for source in (early, late):
            EvidenceFactory(source=source, subquestion=subquestion, length=len(source.text), score=1.0)
    # when the stage runs, and runs again
    run_analyse(task)
    run_analyse(task)
    # then one conflict finding, of date kind, once per task
    (conflict,) = Finding.objects.filter(task=task, status=FindingStatus.CONFLICT)
    assert conflict.disagreement["kind"] == "date" and conflict.subquestion_id == sq1.pk
    assert {link.evidence.source_id for link in conflict.links.select_related("evidence")} == {
        early.pk,
        late.pk,
    }
    # and no supported finding states either side
    supported = Finding.objects.filter(task=task, status=FindingStatus.SUPPORTED)
    assert not any("1871" in f.statement or "1874" in f.statement for f in supported)


def test_a_page_passage_that_disagrees_with_evidence_is_stored_as_its_other_side(researcher):
    # given evidence from one page, and an opened page none of whose passages became evidence
    task, (sq1, _, _) = analysing_task(researcher)
    early, late = page(task, BUILT_1871, 1), page(task, BUILT_1874, 2)
    anchor = EvidenceFactory(source=early, subquestion=sq1, length=len(early.text), score=1.0)
    sq1.sources.add(early)
    # when
    run_analyse(task)
    run_analyse(task)  # a re-run stores nothing twice
    # then the other page's passage is evidence, saying what it was found as, linked to the conflict
    (other,) = Evidence.objects.filter(task=task, source=late)
    assert other.paired_with_id == anchor.pk and other.clears_bar and other.quote == BUILT_1874
    assert sq1.sources.filter(pk=late.pk).exists()
    (conflict,) = Finding.objects.filter(task=task, status=FindingStatus.CONFLICT)
    assert set(conflict.links.values_list("evidence_id", flat=True)) == {anchor.pk, other.pk}


def test_two_closest_passages_below_the_bar_that_disagree_are_both_kept(researcher):
    # given a sub-question whose closest passages, one per page, did not clear the bar
    task, (sq1, _, _) = analysing_task(researcher)
    early, late = page(task, BUILT_1871, 1), page(task, BUILT_1874, 2)
    rows = [
        EvidenceFactory(source=source, subquestion=sq1, length=len(source.text), score=0.1, clears_bar=False)
        for source in (early, late)
    ]
    # when the stage runs
    run_analyse(task)
    # then their disagreement is a conflict, and both sides clear the bar, each paired with the other
    (conflict,) = Finding.objects.filter(task=task, status=FindingStatus.CONFLICT)
    assert set(conflict.links.values_list("evidence_id", flat=True)) == {row.pk for row in rows}
    kept = {row.pk: row.paired_with_id for row in Evidence.objects.filter(task=task, clears_bar=True)}
    assert kept == {rows[0].pk: rows[1].pk, rows[1].pk: rows[0].pk}


def test_closest_passages_that_agree_stay_below_the_bar(researcher):
    task, (sq1, _, _) = analysing_task(researcher)
    for n in (1, 2):
        source = page(task, BUILT_1871, n)
        EvidenceFactory(source=source, subquestion=sq1, length=len(source.text), score=0.1, clears_bar=False)
    run_analyse(task)
    assert not Finding.objects.filter(task=task, status=FindingStatus.CONFLICT).exists()
    assert not Evidence.objects.filter(task=task, clears_bar=True).exists()


def test_pairs_whose_model_judgement_was_rejected_are_noted_in_the_readers_language(researcher):
    from django.utils import translation

    from researchapp.models import Event
    from researchapp.pipeline.runner.analyse import note_rejected_judgements
    from researchapp.pipeline.values import LLMUsage, UsageLog

    # given three pairs whose model judgement was rejected twice each (six failed calls)
    task, _ = analysing_task(researcher)
    usage = UsageLog()
    for _ in range(6):
        usage.record(LLMUsage("judge", "stub-judge", 10, 0, 5, ok=False))
    # when the stage notes them
    note_rejected_judgements(task, usage)
    # then one warning, stored as a message and read in each reader's language
    (event,) = Event.objects.filter(task=task, kind=Event.Kind.WARNING)
    assert event.data["code"] == "malformed_output" and event.data["said"]["count"] == 3
    assert event.message.startswith("The model's judgement of 3 pairs of passages was rejected twice")
    with translation.override("zh-hans"):
        assert "3" in event.text and "rejected" not in event.text
