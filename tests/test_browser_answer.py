"""The demo in a real Chromium: the report answers first (issue 17's acceptance).

The demo question compares two batteries "including their fire safety". Once an analyst has picked
a side of the efficiency conflict, the report's Answer compares the batteries on price and on
efficiency (the figure the analyst decided) and says that the sources do not state their fire safety.
"""

from __future__ import annotations

import pytest
from django.core.management import call_command

from researchapp.core.enums import Resolution
from researchapp.models import Finding, ResearchTask
from tests.browser import chromium_page
from tests.factories import PASSWORD
from tests.test_browser import wait_for_status

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def page(live_server):
    with chromium_page(live_server.url) as page:
        yield page


def _decide_every_item(page) -> None:
    """Pick the first side of each conflict (with a reason) and keep each [证据不足] item as a gap."""
    page.get_by_test_id("open-evidence-review").click()
    page.wait_for_selector('[data-testid="findings"]')
    for item_kind, button in (("conflict-item", "decide-pick-supports"), ("gap-item", "decide-gap")):
        while (pending := page.locator(f'[data-testid="{item_kind}"][data-resolution=""]')).count():
            finding = pending.first.get_attribute("data-finding")
            if button.startswith("decide-pick"):
                pending.first.get_by_test_id("decision-note").fill("The lab measured it.")
            pending.first.get_by_test_id(button).click()
            page.wait_for_selector(f'[data-finding="{finding}"]:not([data-resolution=""])')
    page.get_by_test_id("evidence-done").click()


@pytest.mark.worker
def test_the_demo_report_answers_price_and_the_decided_efficiency_and_says_fire_safety_is_not_stated(
    page, celery_worker_thread, analyst
):
    # given the demo corpus and its question, submitted and planned in the browser
    call_command("demo_setup", stdout=open("/dev/null", "w"))
    page.goto("/")
    page.get_by_test_id("login-username").fill("analyst")
    page.get_by_test_id("login-password").fill(PASSWORD)
    page.get_by_test_id("login-submit").click()
    page.get_by_test_id("submit-button").click()
    wait_for_status(page, "awaiting_plan_review")
    page.get_by_test_id("open-plan-review").click()
    page.get_by_test_id("plan-approve").click()
    page.get_by_test_id("follow-progress").first.click()
    # when the analyst decides the efficiency conflict and the report is written
    wait_for_status(page, "awaiting_evidence_review")
    _decide_every_item(page)
    wait_for_status(page, "awaiting_report_review")
    page.get_by_test_id("open-report").click()
    answer = page.get_by_test_id("report-answer").inner_text()
    # then the Answer compares the two batteries on price
    assert "4,200 euros" in answer and "5,100 euros" in answer
    # and on efficiency, stating the side the analyst picked
    task = ResearchTask.objects.get()
    picked = Finding.objects.get(task=task, resolution=Resolution.PICKED)
    kept = [link.evidence.quote for link in picked.links.filter(kept=True)]
    assert any(figure in answer for figure in ("85 percent", "92 percent") if any(figure in q for q in kept))
    assert "round-trip efficiency" in answer
    # and says the sources do not state their fire safety
    (missing,) = [line for line in answer.splitlines() if "do not state" in line]
    assert "fire safety" in missing
    # the opening's answers are cited: each opens the quote it stands on
    assert page.get_by_test_id("report-answer").get_by_test_id("citation").count() >= 3
