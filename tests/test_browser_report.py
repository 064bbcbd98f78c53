"""A real Chromium walks the report review: comments on a sentence, a new version, its diff, approval."""

from __future__ import annotations

import pytest

from researchapp.models import ReportDraft, ResearchTask
from researchapp.services.stages import stage_write
from tests.factories import evidence_review_task
from tests.test_browser import RECORD_HTMX_ERRORS, WAIT_MS, log_in, page  # noqa: F401  (page: fixture)

pytestmark = [pytest.mark.browser, pytest.mark.worker, pytest.mark.django_db(transaction=True)]


def test_an_analyst_comments_on_a_sentence_reads_the_diff_of_the_new_version_and_approves_it(
    page,  # noqa: F811
    celery_worker_thread,
    analyst,
    researcher,
):
    # given a report written by the extractive writer and waiting for review
    scenario = evidence_review_task(researcher, status=ResearchTask.Status.WRITING, write_pass=1)
    stage_write(scenario.task)
    task = scenario.task
    first = task.drafts.get()
    disputed = next(claim["text"] for claim in first.claims if claim["section"] == "disputed")
    page.add_init_script(RECORD_HTMX_ERRORS)
    log_in(page, analyst.username)
    page.goto(f"/tasks/{task.pk}/report/")

    # when the analyst comments on the disputed sentence and requests changes
    sentence = page.locator('[data-testid="sentence"]', has_text=disputed).first
    anchor = sentence.get_attribute("data-anchor")
    page.get_by_test_id(f"comment-open-{anchor}").click()
    page.get_by_test_id(f"comment-{anchor}").fill("Say who counted the riders.")
    page.get_by_test_id("report-send-back").click()
    page.wait_for_selector('[data-testid="report-decision"][data-draft-status="sent_back"]')

    # then the worker writes the next version, and its page shows what changed since the last one
    for _ in range(WAIT_MS // 1000):
        page.goto(f"/tasks/{task.pk}/report/")
        if page.locator(
            '[data-testid="report-decision"][data-version="2"][data-draft-status="checked"]'
        ).count():
            break
        page.wait_for_timeout(1000)
    diff = page.get_by_test_id("report-diff")
    assert "Say who counted the riders." in diff.inner_text()
    assert disputed in diff.get_by_test_id("diff-removed").first.inner_text()
    assert diff.get_by_test_id("diff-added").count() >= 1

    # and approving it freezes version 2 and offers its exports
    page.get_by_test_id("report-approve").click()
    page.wait_for_selector('[data-testid="export-json"]')
    assert page.evaluate("window.htmxErrors") == []
    assert task.drafts.get(version=2).status == ReportDraft.Status.APPROVED
    assert task.drafts.get(version=1).sentence_comments[0]["comment"] == "Say who counted the riders."
