"""A real Chromium on a 390 px phone screen, and in a browser's own time zone (issue 19, item 8).

At 390 px a quote opened from the report shows below the page instead of over it, so the decision form
stays where the analyst can press it; the comparison table keeps its words whole. The preferences page
offers the browser's time zone first, selected, to whoever has not chosen one.
"""

from __future__ import annotations

import pytest

from reviews.models import UserPreference
from tests.browser import chromium_page, log_in
from tests.factories import report_review_task
from tests.test_browser import open_in_panel

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
PHONE = {"viewport": {"width": 390, "height": 844}}

# Every word of the table's cells whose letters lie on more than one line ("Di/me/nsi/on").
SPLIT_WORDS = """(table) => {
  const split = [];
  for (const cell of table.querySelectorAll("th, td")) {
    const walker = document.createTreeWalker(cell, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      for (const match of node.data.matchAll(/\\S+/g)) {
        const range = document.createRange();
        range.setStart(node, match.index);
        range.setEnd(node, match.index + match[0].length);
        const lines = new Set(Array.from(range.getClientRects(), (rect) => Math.round(rect.top)));
        if (lines.size > 1) { split.push(match[0]); }
      }
    }
  }
  return split;
}"""

# The comparison table as partials/report_document.html writes it (its wrapper, classes and cells).
TABLE = """(body) => body.insertAdjacentHTML("afterbegin", `<section id="comparison-test">
  <div class="table-scroll"><table class="comparison">
    <thead><tr><th>Dimension</th><th>Underground railways</th><th>Tramways</th>
      <th>Trolleybuses</th></tr></thead>
    <tbody><tr><th>Ridership</th>
      <td><p><span class="sentence">Internationalisation of procurement characterises underground
        railways.</span></p></td>
      <td><p><span class="sentence">Interoperability requirements constrain tramway
        infrastructure.</span></p></td>
      <td><p><span class="sentence">Electrification notwithstanding, trolleybuses remained
        uncompetitive.</span></p></td>
    </tr></tbody>
  </table></div></section>`)"""


@pytest.fixture
def phone(live_server):
    with chromium_page(live_server.url, **PHONE) as page:
        yield page


def overlap(a: dict, b: dict) -> bool:
    return not (
        a["x"] + a["width"] <= b["x"]
        or b["x"] + b["width"] <= a["x"]
        or a["y"] + a["height"] <= b["y"]
        or b["y"] + b["height"] <= a["y"]
    )


def test_at_390_px_a_quote_opened_from_the_report_leaves_the_decision_form_free(researcher, analyst, phone):
    # given a report waiting for review, read on a phone
    scenario = report_review_task(researcher)
    first = scenario.evidence[0]
    log_in(phone, analyst.username)
    phone.goto(f"/tasks/{scenario.task.pk}/report/")

    # when the analyst opens a citation's quote, then goes to the decision form
    body = phone.get_by_test_id("report-body")
    open_in_panel(phone, body.locator(f'[data-testid="citation"][data-evidence="{first.pk}"]').first, first)
    approve = phone.get_by_test_id("report-approve")
    approve.scroll_into_view_if_needed()

    # then the panel lies beside nothing of the form, and the approve button is what a tap there hits
    panel, form = phone.locator("#side-panel"), phone.get_by_test_id("report-decision")
    assert not overlap(panel.bounding_box(), form.bounding_box())
    box = approve.bounding_box()
    hit = phone.evaluate(
        "([x, y]) => document.elementFromPoint(x, y)?.closest('[data-testid=report-approve]') !== null",
        [box["x"] + box["width"] / 2, box["y"] + box["height"] / 2],
    )
    assert hit
    # and the panel still closes, focus going back to the citation
    phone.locator("#side-panel [data-close-panel]").click()
    assert phone.locator("#side-panel > *").count() == 0


def test_at_390_px_the_comparison_table_keeps_its_words_whole(researcher, analyst, phone):
    # given a report page on a phone, with a comparison table of four columns and long words
    scenario = report_review_task(researcher)
    log_in(phone, analyst.username)
    phone.goto(f"/tasks/{scenario.task.pk}/report/")
    phone.get_by_test_id("report-body").evaluate(TABLE)
    table = phone.locator("#comparison-test table.comparison")

    # then no word of a cell is broken across lines; the table scrolls sideways in its wrapper instead
    assert table.evaluate(SPLIT_WORDS) == []
    scroller = phone.locator("#comparison-test .table-scroll")
    assert scroller.evaluate("(box) => box.scrollWidth > box.clientWidth")
    assert phone.evaluate("document.documentElement.scrollWidth") <= 390


def test_the_preferences_offer_the_browsers_time_zone_first_until_one_is_chosen(analyst, live_server):
    with chromium_page(live_server.url, timezone_id="Asia/Shanghai") as page:
        # given an analyst who has not chosen a time zone, in a browser in Shanghai
        log_in(page, analyst.username)
        page.goto("/preferences/")
        select = page.locator("#id_time_zone")

        # then the browser's zone comes first, under its own label, and is selected
        offered = select.locator("optgroup").first
        assert offered.get_attribute("data-testid") == "browser-zone"
        assert offered.get_attribute("label") == "This browser’s time zone"
        assert offered.locator("option").all_inner_texts() == ["Asia/Shanghai"]
        assert select.input_value() == "Asia/Shanghai"

        # when they save the page as offered, it is their zone
        page.get_by_test_id("preferences-save").click()
        page.wait_for_selector('[data-testid="preferences-form"]')
        assert UserPreference.objects.get(user=analyst).time_zone == "Asia/Shanghai"

        # and once they chose another, that one is shown and the browser's is no longer offered
        page.locator("#id_time_zone").select_option("Europe/Paris")
        page.get_by_test_id("preferences-save").click()
        page.wait_for_selector('[data-testid="preferences-form"]')
        assert page.locator("#id_time_zone").input_value() == "Europe/Paris"
        assert page.get_by_test_id("browser-zone").count() == 0
        assert UserPreference.objects.get(user=analyst).time_zone == "Europe/Paris"
