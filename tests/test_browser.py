"""A real Chromium, driven by Playwright, walks the demo from login to both exports."""

from __future__ import annotations

import subprocess

import pytest
from django.core.management import call_command

from researchapp.models import ResearchTask
from tests.browser import WAIT_MS, chromium_page, log_in
from tests.factories import PASSWORD, evidence_review_task, report_review_task

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def page(live_server):
    with chromium_page(live_server.url, accept_downloads=True) as page:
        yield page


def wait_for_status(page, status: str) -> None:
    """The task page polls its progress over HTMX; wait until it shows ``status``."""
    try:
        page.wait_for_selector(f'[data-testid="task-status"][data-status="{status}"]', timeout=WAIT_MS)
    except Exception:
        task = ResearchTask.objects.order_by("-id").first()
        page.screenshot(path="/tmp/browser-failure.png", full_page=True)
        raise AssertionError(
            f"waited for {status}; the task is {task and task.status} ({task and task.failure_reason}); "
            f"the page shows {page.locator('[data-testid=task-status]').all_inner_texts()}"
        ) from None


@pytest.mark.worker
def test_an_analyst_takes_the_demo_question_to_an_approved_report_in_the_browser(
    page, celery_worker_thread, analyst, tmp_path
):
    call_command("demo_setup", stdout=open("/dev/null", "w"))

    # log in
    page.goto("/")
    page.get_by_test_id("login-username").fill("analyst")
    page.get_by_test_id("login-password").fill(PASSWORD)
    page.get_by_test_id("login-submit").click()

    # submit the demo question, which the form offers
    assert page.get_by_test_id("demo-hint").is_visible()
    question = page.get_by_test_id("submit-question").input_value()
    assert "Kestrel" in question
    page.get_by_test_id("submit-button").click()

    # approve the plan once the planner is done (the task page follows progress by itself)
    wait_for_status(page, "awaiting_plan_review")
    page.get_by_test_id("open-plan-review").click()
    page.get_by_test_id("plan-approve").click()
    page.get_by_test_id("follow-progress").first.click()

    # resolve every conflict (pick the first side) and every [证据不足] item (keep as a gap)
    wait_for_status(page, "awaiting_evidence_review")
    page.get_by_test_id("open-evidence-review").click()
    page.wait_for_selector('[data-testid="findings"]')  # the click navigates: count once the page is there
    assert page.locator('[data-testid="conflict-item"]').count() >= 1
    assert page.locator('[data-testid="gap-item"]').count() >= 1
    for item_kind, button in (("conflict-item", "decide-pick-supports"), ("gap-item", "decide-gap")):
        while (pending := page.locator(f'[data-testid="{item_kind}"][data-resolution=""]')).count():
            finding = pending.first.get_attribute("data-finding")
            if button.startswith("decide-pick"):
                pending.first.get_by_test_id("decision-note").fill("The maker's own measurement.")
            pending.first.get_by_test_id(button).click()
            page.wait_for_selector(f'[data-finding="{finding}"]:not([data-resolution=""])')
    page.get_by_test_id("evidence-done").click()

    # approve the report once written; its citations open the quote in its source context
    wait_for_status(page, "awaiting_report_review")
    page.get_by_test_id("open-report").click()
    citations = page.get_by_test_id("citation")
    assert citations.count() >= 1
    page.get_by_test_id("report-approve").click()
    page.wait_for_selector('[data-testid="export-md"]')

    # download both exports
    with page.expect_download() as markdown_download:
        page.get_by_test_id("export-md").first.click()
    markdown = tmp_path / "report.md"
    markdown_download.value.save_as(markdown)
    with page.expect_download() as pdf_download:
        page.get_by_test_id("export-pdf").first.click()
    pdf = tmp_path / "report.pdf"
    pdf_download.value.save_as(pdf)

    task = ResearchTask.objects.get()
    assert task.status == ResearchTask.Status.APPROVED
    draft = task.drafts.get(status="approved")
    text = markdown.read_text()
    pdf_text = subprocess.run(["pdftotext", str(pdf), "-"], capture_output=True, check=True, text=True).stdout
    for evidence_id in draft.cited_evidence_ids:
        assert f"[E{evidence_id}]" in text
        assert f"E{evidence_id}" in pdf_text
    assert "证据不足" in pdf_text

    # a citation opens its quote inside the source's text
    page.goto(f"/tasks/{task.pk}/report/")
    page.get_by_test_id("citation").first.click()
    page.wait_for_selector('[data-testid="evidence-context"] mark')
    assert not [e for e in page.errors if "Content Security Policy" in e], page.errors


# --- evidence in context: the side panel ---------------------------------------------------------

# htmx reports a target it cannot find (or any failed swap) as an event, not as an exception: record
# every such event in the page so a test can assert there was none.
RECORD_HTMX_ERRORS = """
window.htmxErrors = [];
for (const name of ["htmx:targetError", "htmx:swapError", "htmx:responseError", "htmx:sendError"]) {
  document.addEventListener(name, () => window.htmxErrors.push(name));
}
"""


def open_in_panel(page, link, evidence) -> None:
    """Click an evidence link and wait until the side panel shows that quote in its source."""
    link.click()
    panel = page.locator(f'#side-panel [data-testid="evidence-context"][data-evidence="{evidence.pk}"]')
    panel.wait_for(timeout=15_000)
    assert panel.get_by_test_id("quote").inner_text() == evidence.quote
    # one panel, still the page's <aside>, showing one quote: nothing was swapped out or appended
    assert page.locator('[data-testid="side-panel"]').count() == 1
    assert page.locator("aside#side-panel").count() == 1
    assert page.locator('[data-testid="evidence-context"]').count() == 1


def test_evidence_links_in_a_conflict_card_open_each_quote_in_the_side_panel(researcher, analyst, page):
    # given a task at the evidence gate with a conflict (42,000 vs 31,000 riders a day)
    scenario = evidence_review_task(researcher)
    supports, contradicts = scenario.evidence[:2]
    page.add_init_script(RECORD_HTMX_ERRORS)
    log_in(page, analyst.username)
    page.goto(f"/tasks/{scenario.task.pk}/evidence/")
    card = page.locator(f'[data-testid="conflict-item"][data-finding="{scenario.conflict.pk}"]')

    # when the analyst opens the quote of one side, then the quote of the other
    open_in_panel(page, card.get_by_test_id("side-supports").get_by_test_id("evidence-link"), supports)
    open_in_panel(page, card.get_by_test_id("side-contradicts").get_by_test_id("evidence-link"), contradicts)

    # then each showed in the side panel, htmx found every target, and the findings are intact
    assert page.evaluate("window.htmxErrors") == []
    assert page.locator('#findings[data-testid="findings"]').count() == 1
    assert card.get_by_test_id("evidence-link").count() == 2
    assert page.get_by_test_id("gap-item").count() == 1
    assert card.get_by_test_id("decide-pick-supports").is_visible()


def test_citations_in_a_report_open_each_quote_in_the_side_panel(researcher, analyst, page):
    # given a report waiting for review that cites three quotes
    scenario = report_review_task(researcher)
    first, second = scenario.evidence[:2]
    page.add_init_script(RECORD_HTMX_ERRORS)
    log_in(page, analyst.username)
    page.goto(f"/tasks/{scenario.task.pk}/report/")

    # when the analyst opens two citations of the body
    body = page.get_by_test_id("report-body")
    open_in_panel(page, body.locator(f'[data-testid="citation"][data-evidence="{first.pk}"]'), first)
    open_in_panel(page, body.locator(f'[data-testid="citation"][data-evidence="{second.pk}"]'), second)
    # and, having closed the panel (it covers the cited-evidence list), one of that list
    page.locator("#side-panel [data-close-panel]").click()
    assert page.locator("#side-panel > *").count() == 0
    open_in_panel(page, page.get_by_test_id("ledger").locator(f'a[data-evidence="{first.pk}"]'), first)

    # then each showed in the side panel, and the report and its decision form are intact
    assert page.evaluate("window.htmxErrors") == []
    assert page.get_by_test_id("report-body").count() == 1
    assert page.get_by_test_id("report-approve").is_visible()
