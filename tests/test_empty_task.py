"""A task that found nothing: its pages say what can be done instead of offering sources to select from,
and a report that cites nothing is not approved by one click."""

from __future__ import annotations

import pytest
from django.urls import reverse

from researchapp.models import Plan, ReportDraft, ResearchTask
from researchapp.services.stages import stage_write
from tests.factories import FindingFactory, report_review_task, task_with_plan
from tests.helpers import HTMX, client_for

pytestmark = pytest.mark.django_db
Status = ResearchTask.Status


def empty_task_at_the_evidence_gate(owner):
    """A task whose searches stored no source: one [证据不足] item per sub-question."""
    scenario = task_with_plan(
        owner, status=Status.AWAITING_EVIDENCE_REVIEW, plan_status=Plan.Status.APPROVED, searches=6
    )
    for subquestion in scenario.plan.subquestions.all():
        FindingFactory(
            subquestion=subquestion, status="insufficient", statement="[证据不足] " + subquestion.text
        )
    return scenario


def test_an_empty_task_offers_no_source_to_select_and_says_what_can_be_done(analyst, researcher):
    scenario = empty_task_at_the_evidence_gate(researcher)
    body = client_for(analyst).get(reverse("evidence_review", args=[scenario.task.pk])).content.decode()
    # no form to select a passage of a source there is not
    assert 'data-testid="add-evidence-form"' not in body and 'data-testid="manual-source"' not in body
    # but what can be done: other words, another corpus, and why the web is not searched (local search)
    assert body.count('data-testid="no-sources"') == 3
    assert "Ask the question again in other words" in body and "corpus_import" in body
    assert 'data-testid="no-web"' in body
    # and the address form is still there, the one way to bring a source in by hand
    assert 'data-testid="open-url-form"' in body


def test_an_empty_tasks_page_says_what_can_be_done_and_the_web_when_configured(researcher, settings):
    scenario = empty_task_at_the_evidence_gate(researcher)
    client = client_for(researcher)
    body = client.get(reverse("task_detail", args=[scenario.task.pk])).content.decode()
    assert 'data-testid="no-sources"' in body and 'data-testid="no-web"' in body
    # with the web searched, it does not say the web is not searched
    settings.RESEARCH = {**settings.RESEARCH, "SEARCH_PROVIDER": "tavily"}
    body = client.get(reverse("task_detail", args=[scenario.task.pk])).content.decode()
    assert 'data-testid="no-sources"' in body and 'data-testid="no-web"' not in body


def test_a_task_with_sources_shows_no_such_note(analyst, researcher):
    scenario = report_review_task(researcher, searches=4)
    body = client_for(analyst).get(reverse("task_detail", args=[scenario.task.pk])).content.decode()
    assert 'data-testid="no-sources"' not in body


def uncited_report(owner):
    """The report the writer makes of an empty task, every item kept as a gap: checked, citing nothing."""
    scenario = task_with_plan(
        owner, status=Status.WRITING, plan_status=Plan.Status.APPROVED, searches=6, write_pass=1
    )
    for subquestion in scenario.plan.subquestions.all():
        FindingFactory(
            subquestion=subquestion,
            status="insufficient",
            statement=f"[证据不足] {subquestion.text}",
            resolution="gap",
        )
    stage_write(scenario.task)
    scenario.draft = scenario.task.drafts.get()
    assert scenario.draft.status == ReportDraft.Status.CHECKED and not scenario.draft.cited_evidence_ids
    return scenario


def approve(client, scenario, **extra):
    data = {"decision": "approve", "draft_version": scenario.draft.version, **extra}
    return client.post(reverse("report_view", args=[scenario.task.pk]), data, **HTMX)


def test_a_report_that_cites_nothing_shows_no_green_check(analyst, researcher):
    scenario = uncited_report(researcher)
    body = client_for(analyst).get(reverse("report_view", args=[scenario.task.pk])).content.decode()
    assert 'data-testid="uncited"' in body and 'data-testid="checks-ok"' not in body
    assert 'data-testid="approve-uncited"' in body
    # while a report that cites its quotes has its check and no acknowledgement to tick
    cited = report_review_task(researcher)
    body = client_for(analyst).get(reverse("report_view", args=[cited.task.pk])).content.decode()
    assert 'data-testid="checks-ok"' in body and 'data-testid="approve-uncited"' not in body


def test_a_report_that_cites_nothing_is_not_approved_by_one_click(analyst, researcher):
    scenario = uncited_report(researcher)
    client = client_for(analyst)
    # when the analyst approves it without saying they know it cites nothing, it is refused, beside the button
    body = approve(client, scenario).content.decode()
    assert "This draft cites no source." in body
    assert 'data-testid="field-error" data-field="approve"' in body
    scenario.draft.refresh_from_db()
    assert scenario.draft.status == ReportDraft.Status.CHECKED
    # when they tick the acknowledgement, it is approved
    approve(client, scenario, approve_uncited="1")
    scenario.draft.refresh_from_db()
    assert scenario.draft.status == ReportDraft.Status.APPROVED


def test_a_cited_report_is_approved_by_one_click(analyst, researcher):
    scenario = report_review_task(researcher)
    approve(client_for(analyst), scenario)
    scenario.draft.refresh_from_db()
    assert scenario.draft.status == ReportDraft.Status.APPROVED
