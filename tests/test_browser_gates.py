"""Chromium walks the evidence gate in English and in 简体中文: claim a conflict, read a quote in its
source, pick a side with a reason and see the decided state; claim a [证据不足] item, select a span of a
stored source in the side panel and see the item become supported."""

from __future__ import annotations

import pytest

from researchapp.models import Evidence, Finding
from reviews.models import Claim
from tests.browser import chromium_page, log_in
from tests.factories import analyst_persona, evidence_review_task

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

RECORD_HTMX_ERRORS = """
window.htmxErrors = [];
for (const name of ["htmx:targetError", "htmx:swapError", "htmx:responseError", "htmx:sendError"]) {
  document.addEventListener(name, () => window.htmxErrors.push(name));
}
"""

# Select ``passage`` in the side panel's snapshot as a person would with the mouse, then release it.
SELECT_IN_PANEL = """
(passage) => {
  for (const line of document.querySelectorAll('#side-panel [data-snapshot] [data-start]')) {
    const node = line.firstChild;
    const at = node ? node.textContent.indexOf(passage) : -1;
    if (at < 0) continue;
    const range = document.createRange();
    range.setStart(node, at);
    range.setEnd(node, at + passage.length);
    const selection = window.getSelection();
    selection.removeAllRanges();
    selection.addRange(range);
    line.dispatchEvent(new MouseEvent("mouseup", {bubbles: true}));
    return true;
  }
  return false;
}
"""

WORDS = {
    "en": {"decided": "Decided: picked side A (transit.example)", "by hand": "Evidence added by hand by"},
    "zh-hans": {"decided": "已决定：选择 A 方（transit.example）", "by hand": "手动添加证据"},
}


def claim(page, finding: Finding, queue: str) -> None:
    """Claim ``finding`` in its queue, and follow the queue's link to it."""
    page.goto(f"/reviews/?queue={queue}")
    row = page.locator(f'[data-testid="queue-item"][data-finding="{finding.pk}"]')
    row.get_by_test_id("claim").click()
    row = page.locator(f'[data-testid="queue-item"][data-finding="{finding.pk}"]')
    row.get_by_test_id("claimed-by").wait_for()
    row.locator(".queue-what a").click()
    page.wait_for_selector(f"#finding-{finding.pk}")


@pytest.mark.parametrize("language", ["en", "zh-hans"])
def test_an_analyst_decides_a_conflict_and_answers_a_gap_by_hand(live_server, analyst, researcher, language):
    scenario = evidence_review_task(researcher)
    supports = scenario.evidence[0]
    survey = scenario.sources[1]
    passage = "It also found that trams run late one trip in five."
    words = WORDS[language]
    with chromium_page(live_server.url) as page:
        page.context.add_cookies([{"name": "django_language", "value": language, "url": live_server.url}])
        page.add_init_script(RECORD_HTMX_ERRORS)
        log_in(page, analyst.username)

        # claim the conflict; the evidence page is in the chosen language
        claim(page, scenario.conflict, "conflicts")
        assert page.locator("html").get_attribute("lang") == language
        assert Claim.objects.filter(finding=scenario.conflict, analyst=analyst).exists()
        card = page.locator(f"#finding-{scenario.conflict.pk}")
        # both quotes are shown in their paragraphs with the differing figures highlighted
        assert card.get_by_test_id("differs").all_inner_texts() == ["42,000", "31,000"]

        # open one quote in its source, in the side panel
        card.get_by_test_id("side-supports").get_by_test_id("evidence-link").click()
        panel = page.locator(f'#side-panel [data-testid="evidence-context"][data-evidence="{supports.pk}"]')
        panel.wait_for()
        assert panel.get_by_test_id("quote").inner_text() == supports.quote
        page.locator("#side-panel [data-close-panel]").click()

        # pick side A with a reason, and see which side was decided, by whom and why
        card.get_by_test_id("decision-note").fill("The transit authority counts every ticket.")
        card.get_by_test_id("decide-pick-supports").click()
        page.wait_for_selector(f'#finding-{scenario.conflict.pk}[data-resolution="picked"]')
        decided = page.locator(f"#finding-{scenario.conflict.pk}").get_by_test_id("resolution").inner_text()
        assert words["decided"] in decided
        assert analyst.username in decided and "The transit authority counts every ticket." in decided

        # claim the [证据不足] item, open the riders' survey and select the sentence that answers it
        claim(page, scenario.gap, "gaps")
        gap = page.locator(f"#finding-{scenario.gap.pk}")
        assert gap.inner_text().count("[证据不足]") == 1
        gap.get_by_test_id("manual-source").select_option(str(survey.pk))
        gap.get_by_test_id("open-source").click()
        page.wait_for_selector(f'#side-panel [data-snapshot][data-source="{survey.pk}"]')
        assert page.evaluate(SELECT_IN_PANEL, passage)
        start = survey.text.index(passage)
        assert gap.get_by_test_id("manual-start").input_value() == str(start)
        assert gap.get_by_test_id("manual-end").input_value() == str(start + len(passage))
        assert passage in gap.get_by_test_id("manual-selection").inner_text()
        page.locator("#side-panel [data-close-panel]").click()
        gap.get_by_test_id("add-evidence").click()

        # the item is supported now, by that quote, and says who added it
        page.wait_for_selector(f'#finding-{scenario.gap.pk}[data-resolution="by_hand"]')
        answered = page.locator(f"#finding-{scenario.gap.pk}")
        assert words["by hand"] in answered.get_by_test_id("added-by-hand").inner_text()
        assert page.evaluate("window.htmxErrors") == []
        assert not [e for e in page.errors if "Content Security Policy" in e], page.errors

    evidence = Evidence.objects.get(added_by=analyst)
    assert (evidence.start, evidence.end, evidence.quote) == (start, start + len(passage), passage)
    assert Finding.objects.get(pk=scenario.gap.pk).status == "supported"


def test_two_analysts_race_on_one_conflict_and_the_second_sees_who_decided(live_server, researcher):
    # given two analysts, each with the conflict open in a browser of their own
    scenario = evidence_review_task(researcher)
    first, second = analyst_persona("analyst1"), analyst_persona("analyst2")
    url = f"/tasks/{scenario.task.pk}/evidence/"
    with chromium_page(live_server.url) as one:
        two = one.context.browser.new_context(base_url=live_server.url).new_page()  # a second person
        for page, analyst in ((one, first), (two, second)):
            log_in(page, analyst.username)
            page.goto(url)
        cards = [page.locator(f"#finding-{scenario.conflict.pk}") for page in (one, two)]

        # when the first picks side B with a reason, and then the second, who still sees it open, drops it
        cards[0].get_by_test_id("decision-note").fill("The survey counted riders.")
        cards[0].get_by_test_id("decide-pick-contradicts").click()
        one.wait_for_selector(f'#finding-{scenario.conflict.pk}[data-resolution="picked"]')
        cards[1].get_by_test_id("decide-drop").click()

        # then the second is told who decided first, in the item, and sees that decision: side, who, why
        two.wait_for_selector(f'#finding-{scenario.conflict.pk}[data-resolution="picked"]')
        assert (
            "analyst1 changed or decided this item first"
            in cards[1].get_by_test_id("field-error").inner_text()
        )
        decided = cards[1].get_by_test_id("resolution").inner_text()
        assert "picked side B (riders.example)" in decided and "analyst1" in decided
        assert "The survey counted riders." in decided
    assert Finding.objects.get(pk=scenario.conflict.pk).resolution == "picked"
