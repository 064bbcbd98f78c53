"""Chromium, in English and in 简体中文: a refused decision shows its error beside the control that caused
it, keeps what was typed and puts focus there, without moving the page; a decision taken moves focus
to the next item to decide, still without moving the page."""

from __future__ import annotations

import pytest
from django.utils import translation

from researchapp.services.manual_evidence import WHY_NOT_OPENED
from tests.browser import chromium_page, log_in
from tests.factories import evidence_review_task

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

NO_SUCH_HOST = "https://no-such-host.invalid/ridership-2024"
# Where an element is on screen, and which element has focus (its test id and the card it is in).
BOX = "(element) => { const r = element.getBoundingClientRect(); return {top: r.top, bottom: r.bottom}; }"
FOCUS = """() => {
  const element = document.activeElement;
  const card = element.closest('[data-item]');
  return {testid: element.dataset.testid || '', id: element.id, card: card ? card.id : ''};
}"""


def no_such_host(host, port, *args, **kwargs):
    import socket

    raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")


@pytest.mark.parametrize("language", ["en", "zh-hans"])
def test_an_error_shows_beside_its_control_with_the_input_kept_and_focus_on_it(
    live_server, analyst, researcher, monkeypatch, language
):
    from researchapp.providers.fetch.client import HttpFetcher
    from researchapp.services import manual_evidence

    # given a task at the evidence gate (a conflict, then a [证据不足] item), on a short screen, and a
    # server whose resolver finds no host (offline)
    monkeypatch.setattr(manual_evidence, "analyst_fetcher", lambda: HttpFetcher(resolve=no_such_host))
    scenario = evidence_review_task(researcher)
    conflict, gap = f"finding-{scenario.conflict.pk}", f"finding-{scenario.gap.pk}"
    with chromium_page(live_server.url, viewport={"width": 1000, "height": 640}) as page:
        page.context.add_cookies([{"name": "django_language", "value": language, "url": live_server.url}])
        log_in(page, analyst.username)
        page.goto(f"/tasks/{scenario.task.pk}/evidence/")
        card = page.locator(f"#{conflict}")
        pick = card.get_by_test_id("decide-pick-supports")
        pick.scroll_into_view_if_needed()
        page.evaluate("window.scrollBy(0, 200)")
        y = page.evaluate("window.scrollY")
        assert y > 0

        # when the analyst picks side A without a reason
        pick.click()
        error = card.get_by_test_id("field-error")
        error.wait_for()

        # then the error is beside the reason field, on screen, the page did not move, focus is on it
        note = card.get_by_test_id("decision-note")
        note_box, error_box = note.evaluate(BOX), error.evaluate(BOX)
        assert 0 <= error_box["top"] - note_box["bottom"] < 40
        assert 0 <= error_box["top"] and error_box["bottom"] <= 640
        assert abs(page.evaluate("window.scrollY") - y) < 5
        assert page.evaluate(FOCUS) == {
            "testid": "decision-note",
            "id": f"note-{scenario.conflict.pk}",
            "card": conflict,
        }
        assert note.get_attribute("aria-describedby") == error.get_attribute("id")
        assert page.get_by_test_id("messages").count() == 0  # not at the top of the page

        # when they give the reason and pick side A again
        top = card.evaluate(BOX)["top"]
        page.keyboard.type("The authority's own count.")
        pick.click()
        card.locator('[data-testid="resolution"]').wait_for()
        # (htmx settles after the swap: the scroll is kept and focus moved then, not at the swap)
        page.wait_for_function(
            "(id) => document.activeElement !== null && document.activeElement.id === id", arg=gap
        )

        # then the decided card stays where it was, and focus is on the next item to decide
        assert abs(card.evaluate(BOX)["top"] - top) < 5
        assert page.evaluate(FOCUS)["id"] == gap

        # when they open a page by an address whose host cannot be found
        item = page.locator(f"#{gap}")
        item.get_by_test_id("manual-url").fill(NO_SUCH_HOST)
        item.get_by_test_id("open-url").click()
        error = item.get_by_test_id("field-error")
        error.wait_for()

        # then the address typed is kept, the error is beside it in the analyst's language, focus on it
        field = item.get_by_test_id("manual-url")
        assert field.input_value() == NO_SUCH_HOST
        with translation.override(language):
            assert str(WHY_NOT_OPENED["dns_failed"]) in error.inner_text()
        assert "Errno" not in error.inner_text()
        field_box, error_box = field.evaluate(BOX), error.evaluate(BOX)
        assert 0 <= error_box["top"] - field_box["bottom"] < 60
        assert page.evaluate(FOCUS) == {"testid": "manual-url", "id": f"url-{scenario.gap.pk}", "card": gap}
        assert page.locator("html").get_attribute("lang") == language
