"""The evidence ledger and the status machine guard themselves."""

from __future__ import annotations

import pytest
from django.db import IntegrityError, transaction

from researchapp.models import Event, Evidence, IllegalTransition, ResearchTask, StaleState
from researchapp.models.evidence import EvidenceMismatch
from researchapp.models.report import ImmutableReport, ReportDraft
from tests.factories import EvidenceFactory, SourceFactory, SubQuestionFactory, TaskFactory

pytestmark = pytest.mark.django_db
Status = ResearchTask.Status


def test_it_refuses_a_quote_that_is_not_the_snapshot_at_its_offsets():
    source = SourceFactory(text="The array has a capacity of 42 megawatts.")
    subquestion = SubQuestionFactory(plan__task=source.task)
    with pytest.raises(EvidenceMismatch):
        Evidence.objects.create(
            task=source.task, source=source, subquestion=subquestion, start=0, end=9, quote="The arra!"
        )
    assert not Evidence.objects.exists()


def test_it_stores_the_snapshot_hash_with_every_quote():
    evidence = EvidenceFactory()
    assert evidence.snapshot_sha256 == evidence.source.sha256
    assert evidence.verify()


def test_it_refuses_an_empty_or_negative_span_in_the_database():
    evidence = EvidenceFactory()
    with pytest.raises(IntegrityError), transaction.atomic():
        Evidence.objects.filter(pk=evidence.pk).update(end=evidence.start)


def test_it_keeps_one_evidence_row_per_source_subquestion_and_span():
    evidence = EvidenceFactory()
    with pytest.raises(IntegrityError), transaction.atomic():
        Evidence.objects.create(
            task=evidence.task,
            source=evidence.source,
            subquestion=evidence.subquestion,
            start=evidence.start,
            end=evidence.end,
            quote=evidence.quote,
        )


def test_it_keeps_one_source_per_normalised_url_per_task():
    source = SourceFactory(url="https://Example.test/a/#top")
    assert source.normalized_url == "https://example.test/a"
    with pytest.raises(IntegrityError), transaction.atomic():
        SourceFactory(task=source.task, url="HTTPS://example.test/a")
    SourceFactory(url="https://example.test/a")  # another task may store the same page


def test_it_never_changes_a_stored_snapshot():
    source = SourceFactory()
    source.text = source.text + " Edited."
    with pytest.raises(ValueError, match="never changes"):
        source.save()
    source.refresh_from_db()
    assert "Edited" not in source.text


def test_it_moves_along_legal_transitions_and_logs_each_move():
    task = TaskFactory()
    task.transition(Status.PLANNING)
    task.transition(Status.AWAITING_PLAN_REVIEW)
    task.refresh_from_db()
    assert task.status == Status.AWAITING_PLAN_REVIEW
    assert list(Event.objects.filter(task=task, kind="transition").values_list("data__to", flat=True)) == [
        "planning",
        "awaiting_plan_review",
    ]


def test_it_raises_on_an_illegal_move_and_changes_nothing():
    task = TaskFactory()
    with pytest.raises(IllegalTransition):
        task.transition(Status.APPROVED)
    task.refresh_from_db()
    assert task.status == Status.SUBMITTED
    assert not task.events.exists()


def test_it_lets_only_one_of_two_racing_moves_win():
    task = TaskFactory(status=Status.AWAITING_PLAN_REVIEW)
    stale_copy = ResearchTask.objects.get(pk=task.pk)
    task.transition(Status.COLLECTING)
    with pytest.raises(StaleState):
        stale_copy.transition(Status.CANCELLED)
    task.refresh_from_db()
    assert task.status == Status.COLLECTING
    assert task.events.count() == 1


def test_every_status_has_a_row_in_the_transition_table():
    assert set(ResearchTask.TRANSITIONS) == set(Status.values)
    for targets in ResearchTask.TRANSITIONS.values():
        assert targets <= set(Status.values)


def test_it_never_changes_an_approved_report():
    task = TaskFactory()
    draft = ReportDraft.objects.create(
        task=task, version=1, markdown="# R", status=ReportDraft.Status.APPROVED
    )
    draft.markdown = "# Changed"
    with pytest.raises(ImmutableReport):
        draft.save()
