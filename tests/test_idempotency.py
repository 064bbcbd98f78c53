"""A stage that runs twice (a redelivered message after a crash) stores nothing twice."""

from __future__ import annotations

from pathlib import Path

import pytest

from researchapp.models import (
    Evidence,
    Finding,
    FindingEvidence,
    Plan,
    ReportDraft,
    ResearchTask,
    Source,
    SubQuestion,
)
from researchapp.pipeline import runner
from researchapp.services.corpus import corpus_import
from researchapp.services.dispatch import drain, inline
from researchapp.services.stages import stage_analyse, stage_plan, stage_write
from researchapp.services.submission import task_submit

pytestmark = pytest.mark.django_db
FIXTURES = Path(__file__).parent / "fixtures"
Status = ResearchTask.Status


def ledger_counts(task) -> dict[str, int]:
    return {
        "plans": Plan.objects.filter(task=task).count(),
        "subquestions": SubQuestion.objects.filter(plan__task=task).count(),
        "sources": Source.objects.filter(task=task).count(),
        "evidence": Evidence.objects.filter(task=task).count(),
        "findings": Finding.objects.filter(task=task).count(),
        "links": FindingEvidence.objects.filter(finding__task=task).count(),
        "drafts": ReportDraft.objects.filter(task=task).count(),
    }


@pytest.fixture
def task(researcher):
    corpus = corpus_import(path=FIXTURES / "pages").corpus
    with inline():  # keep the stages from running on their own: this test runs them by hand
        return task_submit(
            owner=researcher, question="How tall is the Greywater Point lighthouse?", corpus=corpus
        )


def test_it_plans_once_when_the_plan_stage_runs_twice(task):
    stage_plan(task)
    before = ledger_counts(task)
    task.refresh_from_db()
    task.status = Status.PLANNING  # as if the message was redelivered before the status moved
    runner.run_plan(task)
    assert ledger_counts(task) == before
    assert before["plans"] == 1


def test_it_collects_analyses_and_writes_once_when_each_stage_runs_twice(task):
    with inline() as queue:
        stage_plan(task)
        from researchapp.services.plan_gate import plan_approve

        plan_approve(plan=task.plans.get(), actor=None)
        drain(queue)  # collect every sub-question, analyse, and stop at the evidence gate or write
    task.refresh_from_db()
    subquestions = runner.approved_subquestions(task)
    after_first = ledger_counts(task)
    assert after_first["sources"] and after_first["evidence"] and after_first["findings"]

    # when collection runs again, even for a sub-question whose "done" mark was lost in a crash
    SubQuestion.objects.filter(pk=subquestions[0].pk).update(collected_round=0)
    for subquestion in runner.approved_subquestions(task):
        runner.run_collect(task, subquestion, task.round)
    # and analysis runs again
    evidence_ids = set(Evidence.objects.filter(task=task).values_list("id", flat=True))
    finding_ids = set(Finding.objects.filter(task=task).values_list("id", flat=True))
    runner.run_analyse(task)

    # then nothing was stored twice and nothing was replaced
    assert ledger_counts(task) == after_first
    assert set(Evidence.objects.filter(task=task).values_list("id", flat=True)) == evidence_ids
    assert set(Finding.objects.filter(task=task).values_list("id", flat=True)) == finding_ids


def test_it_writes_one_draft_per_pass_when_the_write_stage_runs_twice(task):
    with inline() as queue:
        task.auto_approve = True
        task.save(update_fields=["auto_approve"])
        stage_plan(task)
        drain(queue)
    task.refresh_from_db()
    assert task.status == Status.APPROVED
    drafts = ReportDraft.objects.filter(task=task).count()
    runner.run_write(task)  # the same pass again: the stored draft is reused
    assert ReportDraft.objects.filter(task=task).count() == drafts


def test_a_redelivered_stage_for_a_task_that_moved_on_does_nothing(task):
    with inline() as queue:
        stage_plan(task)
        drain(queue)
    task.refresh_from_db()
    before = ledger_counts(task)
    stage_plan(task)  # the task is awaiting plan review: planning again would be wrong
    stage_analyse(task)
    stage_write(task)
    assert ledger_counts(task) == before
