"""A real Chromium, driven by Playwright, walks the demo from login to both exports."""

from __future__ import annotations

import shutil
import subprocess

import pytest
from django.core.management import call_command
from django.db import connections

from researchapp.models import ResearchTask

pytestmark = [pytest.mark.browser, pytest.mark.worker, pytest.mark.django_db(transaction=True)]

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
WAIT_MS = 90_000


@pytest.fixture
def page(live_server):
    from playwright.sync_api import sync_playwright

    if not shutil.which("chromium"):
        pytest.fail("chromium is not installed: .ci/run installs it (apt-get install chromium)")
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        context = browser.new_context(accept_downloads=True, base_url=live_server.url)
        page = context.new_page()
        page.set_default_timeout(WAIT_MS)
        errors: list[str] = []
        page.on("console", lambda message: message.type == "error" and errors.append(message.text))
        page.errors = errors
        yield page
        browser.close()
        # While Playwright's sync API runs, the test body sees its own contextvars, hence its own
        # database connection, which pytest-django's teardown (outside this block) never closes: it
        # would keep the test database from being dropped at the end of the session.
        connections.close_all()


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


def test_an_analyst_takes_the_demo_question_to_an_approved_report_in_the_browser(
    page, celery_worker_thread, analyst, tmp_path
):
    call_command("demo_setup", stdout=open("/dev/null", "w"))

    # log in
    page.goto("/")
    page.get_by_test_id("login-username").fill("analyst")
    page.get_by_test_id("login-password").fill("demo")
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
    assert page.locator('[data-testid="conflict-item"]').count() >= 1
    assert page.locator('[data-testid="gap-item"]').count() >= 1
    for item_kind, button in (("conflict-item", "decide-pick-supports"), ("gap-item", "decide-gap")):
        while (pending := page.locator(f'[data-testid="{item_kind}"][data-resolution=""]')).count():
            finding = pending.first.get_attribute("data-finding")
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
