"""A researcher's open task page follows the task past every gate, in English and in 简体中文: while an
analyst, in a browser of their own, approves the plan, the page moves on by itself through collection
and the evidence gate to the report, without a reload; polling stops once the report is approved."""

from __future__ import annotations

import pytest
from django.core.management import call_command
from django.utils import translation

from researchapp.models import Finding, ResearchTask
from researchapp.services.evidence_gate import finding_resolve
from researchapp.services.report_gate import report_approve
from tests.browser import WAIT_MS, chromium_page, log_in

pytestmark = [pytest.mark.browser, pytest.mark.worker, pytest.mark.django_db(transaction=True)]

Status = ResearchTask.Status
# A reload would forget this: the page that shows the report must be the page the researcher opened.
MARK = "window.sameDocument = 'the researcher opened this page once'"


def status_shown(page, *statuses: str) -> str:
    """Wait until the page's progress shows one of ``statuses``; which one."""
    selector = ", ".join(f'[data-testid="task-status"][data-status="{status}"]' for status in statuses)
    try:
        return page.wait_for_selector(selector, timeout=WAIT_MS).get_attribute("data-status")
    except Exception:
        task = ResearchTask.objects.order_by("-id").first()
        raise AssertionError(
            f"waited for {statuses}; the task is {task and task.status} ({task and task.failure_reason}); "
            f"the page shows {page.locator('[data-testid=task-status]').all_inner_texts()}"
        ) from None


def label(status: str, language: str) -> str:
    with translation.override(language):
        return str(Status(status).label)


def resolve_every_item(task: ResearchTask, analyst) -> None:
    for finding in Finding.objects.filter(task=task, resolution="").exclude(status="supported"):
        decision = "pick_supports" if finding.status == "conflict" else "gap"
        finding_resolve(
            finding=finding, actor=analyst, decision=decision, version_seen=finding.version, note="A reason."
        )


@pytest.mark.parametrize("language", ["en", "zh-hans"])
def test_the_researchers_open_task_page_follows_the_task_through_plan_approval_to_the_report(
    live_server, celery_worker_thread, researcher, analyst, language
):
    call_command("demo_setup", stdout=open("/dev/null", "w"))
    cookie = [{"name": "django_language", "value": language, "url": live_server.url}]
    with chromium_page(live_server.url) as page:
        # given the researcher's own task page, open at the plan gate
        page.context.add_cookies(cookie)
        log_in(page, researcher.username)
        page.get_by_test_id("submit-button").click()  # the form offers the demo question
        status_shown(page, Status.AWAITING_PLAN_REVIEW)
        task = ResearchTask.objects.get(owner=researcher)
        page.evaluate(MARK)
        assert page.get_by_test_id("progress").get_attribute("data-poll") == "10s"

        # when an analyst, in a browser of their own, approves the plan
        analyst_context = page.context.browser.new_context(base_url=live_server.url)
        analyst_context.add_cookies(cookie)
        desk = analyst_context.new_page()
        desk.set_default_timeout(WAIT_MS)
        log_in(desk, analyst.username)
        desk.goto(f"/tasks/{task.pk}/plan/")
        desk.get_by_test_id("plan-approve").click()
        desk.get_by_test_id("follow-progress").first.click()  # the analyst's own page of the task

        # then the researcher's page leaves the gate by itself and follows the stages
        shown = status_shown(
            page, Status.COLLECTING, Status.ANALYSING, Status.AWAITING_EVIDENCE_REVIEW, Status.WRITING
        )
        assert shown != Status.AWAITING_PLAN_REVIEW
        # and past the evidence gate, once the analyst has decided its items
        if status_shown(page, Status.AWAITING_EVIDENCE_REVIEW, Status.AWAITING_REPORT_REVIEW) == (
            Status.AWAITING_EVIDENCE_REVIEW
        ):
            resolve_every_item(task, analyst)
        status_shown(page, Status.AWAITING_REPORT_REVIEW)
        # (the analyst's page, polling too, brings the navigation's count: one report waits)
        desk.wait_for_selector('#nav-queue-count[data-count="1"]')
        status = page.get_by_test_id("task-status")
        assert status.inner_text() == label(Status.AWAITING_REPORT_REVIEW, language)
        assert page.get_by_test_id("open-report").is_visible()

        # and to the approved report, where it stops polling
        report_approve(draft=task.drafts.current(), actor=analyst)
        status_shown(page, Status.APPROVED)
        page.get_by_test_id("export-md").wait_for()
        assert page.get_by_test_id("progress").get_attribute("data-poll") == "stopped"
        assert page.evaluate("window.sameDocument") == "the researcher opened this page once"
        assert page.locator("html").get_attribute("lang") == language

        # and the approved report, opened from there, opens with the report itself, in its language
        page.get_by_test_id("open-report").click()
        page.get_by_test_id("report-body").wait_for()
        first = page.evaluate(
            "() => document.querySelector('main').querySelector('article, section, details, form, table')"
            ".dataset.testid"
        )
        assert first == "report-body"
        assert page.locator("html").get_attribute("lang") == language
        analyst_context.close()
