"""The evidence ledger and the status machine guard themselves."""

from __future__ import annotations

import pytest
from django.db import IntegrityError, transaction

from researchapp.models import Event, Evidence, Hypothesis, IllegalTransition, Plan, ResearchTask, StaleState
from researchapp.models.evidence import EvidenceMismatch
from researchapp.models.report import ReportDraft
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


@pytest.mark.parametrize("model", [ResearchTask, Plan, ReportDraft, Hypothesis])
def test_every_status_has_a_row_in_the_transition_table(model):
    assert set(model.TRANSITIONS) == set(model.Status.values)
    for targets in model.TRANSITIONS.values():
        assert targets <= set(model.Status.values)


@pytest.mark.parametrize(
    ("model", "factory_status", "to"),
    [(Plan, "draft", "approved"), (ReportDraft, "checked", "sent_back")],
)
def test_it_moves_a_plan_or_draft_once_and_records_it_on_its_task(model, factory_status, to):
    # given two copies of one row, loaded before either moved
    task = TaskFactory()
    if model is Plan:
        row = Plan.objects.create(task=task, version=1, intent="descriptive", status=factory_status)
    else:
        row = ReportDraft.objects.create(task=task, version=1, markdown="# q\n", status=factory_status)
    stale_copy = model.objects.get(pk=row.pk)
    # when one moves it
    row.transition(to, message="moved")
    # then the other's move is refused, and the one move is in the task's audit log
    with pytest.raises(StaleState):
        stale_copy.transition(to)
    with pytest.raises(IllegalTransition):
        row.transition(factory_status)
    assert model.objects.get(pk=row.pk).status == to
    [event] = task.events.all()
    assert (event.kind, event.message, event.data["object"], event.data["to"]) == (
        "transition",
        "moved",
        model._meta.model_name,
        to,
    )
