"""Chromium walks the plan gate and the report gate by hand and by keyboard, in English and 简体中文.

A real Celery worker plans the task (and plans it again after the rejection); the analyst rewrites a
sub-question and sees its queries made again, saves, moves a row by keyboard, uses j/k, a card's key
and the help overlay, rejects with feedback and sees the next version reflect it (with the diff), and
approves a report by its key after reading a quote in the side panel (focus in, and back).
"""

from __future__ import annotations

import re
import time
from pathlib import Path

import pytest
from django.urls import reverse

from researchapp.models import Plan, ResearchTask
from researchapp.pipeline.planner.queries import queries_for_subquestion
from researchapp.pipeline.runner.plan import subquestion_queries
from researchapp.services.corpus import corpus_import
from researchapp.services.submission import task_submit
from tests.browser import WAIT_MS, chromium_page, log_in
from tests.factories import report_review_task

pytestmark = [pytest.mark.browser, pytest.mark.worker, pytest.mark.django_db(transaction=True)]
FIXTURES = Path(__file__).parent / "fixtures"
Status = ResearchTask.Status

# Per language: the question, a sub-question's new text, the rejection's feedback, what the added
# sub-question reads, and the page's words for a saved plan.
WALKS = {
    "en": {
        "question": "How tall is the Greywater Point lighthouse?",
        "rewrite": "When was the Greywater Point lighthouse first lit?",
        "feedback": "Drop sub-question 2. Please add the history of its keepers.",
        "added": "What is known about history of its keepers for the Greywater Point lighthouse?",
        "saved": "Plan saved.",
    },
    "zh-hans": {
        "question": "灰水角灯塔有多高？",
        "rewrite": "灰水角灯塔是哪一年首次点亮的？",
        "feedback": "删除第2个子问题。需要更多关于灯塔看守人历史的数据",
        "added": "灰水角灯塔有多高的灯塔看守人历史如何？",
        "saved": "计划已保存。",
    },
}


def active(page, expression: str):
    """Something about the element that has focus (``expression`` on ``element``)."""
    return page.evaluate(f"(() => {{ const element = document.activeElement; return {expression}; }})()")


def wait_until(page, expression: str, arg=None, timeout: float = WAIT_MS / 1000) -> None:
    """Poll ``expression`` (a function of ``arg``) until it is true. Not ``page.wait_for_function``:
    that evaluates a string in the page, which the desk's CSP (no 'unsafe-eval') refuses."""
    deadline = time.monotonic() + timeout
    while not page.evaluate(expression, arg):
        if time.monotonic() > deadline:
            raise AssertionError(f"never true: {expression}")
        page.wait_for_timeout(100)


def wait_for_plan(page, task: ResearchTask, version: int) -> None:
    page.goto(reverse("task_detail", args=[task.pk]))
    page.wait_for_selector('[data-testid="task-status"][data-status="awaiting_plan_review"]')
    page.goto(reverse("plan_review", args=[task.pk]))
    page.wait_for_selector('[data-testid="plan-meta"][data-plan-status="draft"]')
    assert task.plans.latest_version().version == version


@pytest.mark.parametrize("language", ["en", "zh-hans"])
def test_an_analyst_walks_the_plan_and_report_gates_by_hand_and_by_key(
    live_server, celery_worker_thread, analyst, researcher, language
):
    walk = WALKS[language]
    corpus = corpus_import(path=FIXTURES / "pages").corpus
    task = task_submit(owner=researcher, question=walk["question"], corpus=corpus)
    with chromium_page(live_server.url) as page:
        page.context.add_cookies([{"name": "django_language", "value": language, "url": live_server.url}])
        log_in(page, analyst.username)
        wait_for_plan(page, task, 1)
        assert page.locator("html").get_attribute("lang") == language
        first = list(task.plans.get(version=1).subquestions.order_by("order"))

        # when the analyst rewrites the first sub-question and leaves the field
        text = page.locator("#sq-0-text")
        text.fill(walk["rewrite"])
        text.press("Tab")
        # then its queries are made again for the new text, in the language the corpus is written in
        # (the demo corpus is English: a Chinese question's queries search it in English), and the
        # field says so
        expected = "\n".join(subquestion_queries(task, walk["rewrite"]))
        if language == "en":
            assert expected == "\n".join(queries_for_subquestion(walk["question"], walk["rewrite"]))
        else:
            assert expected and not re.search("[\u4e00-\u9fff]", expected)
        wait_until(page, "expected => document.querySelector('#sq-0-queries').value === expected", expected)
        assert page.locator("#sq-0-queries-note").inner_text().strip()

        # when they save, then the new text is stored with those queries
        page.get_by_test_id("plan-save").click()
        page.get_by_text(walk["saved"]).wait_for()
        stored = task.plans.get(version=1).subquestions.order_by("order").first()
        assert (stored.text, "\n".join(stored.queries)) == (walk["rewrite"], expected)

        # when they move the first row down with the keyboard, focus stays on the moved row
        page.locator('button[value="down:0"]').focus()
        page.keyboard.press("Enter")
        wait_until(page, "() => document.activeElement && document.activeElement.value === 'down:1'")
        order = list(task.plans.get(version=1).subquestions.order_by("order").values_list("text", flat=True))
        assert order[1] == walk["rewrite"]

        # j / k move between the item cards; a card's key presses its button
        page.locator("h1").click()
        page.keyboard.press("j")
        assert active(page, "element.id") == "sq-0"
        page.keyboard.press("j")
        assert active(page, "element.id") == "sq-1"
        page.keyboard.press("k")
        assert active(page, "element.id") == "sq-0"
        page.keyboard.press("d")  # "Move down" of the focused card
        wait_until(page, "() => document.activeElement && document.activeElement.value === 'down:1'")
        order = list(task.plans.get(version=1).subquestions.order_by("order").values_list("text", flat=True))
        assert order[:2] == [walk["rewrite"], first[1].text]

        # ? opens the help, listing the page's keys; Esc closes it and focus returns
        page.keyboard.press("?")
        help_dialog = page.get_by_test_id("shortcut-help")
        help_dialog.wait_for(state="visible")
        keys = page.locator('[data-testid="shortcut-row"] kbd').all_inner_texts()
        assert {"u", "d", "x", "s", "a", "r"} <= set(keys)
        assert active(page, "Boolean(element.closest('dialog'))")
        page.keyboard.press("Escape")
        help_dialog.wait_for(state="hidden")
        assert active(page, "element.value") == "down:1"

        # when they reject with feedback
        before = list(task.plans.get(version=1).subquestions.order_by("order").values_list("text", flat=True))
        page.get_by_test_id("plan-reject-form").focus()
        page.keyboard.press("r")  # on the rejection's card, "r" goes to its feedback
        assert active(page, "element.dataset.testid") == "plan-reject-feedback"
        page.keyboard.insert_text(walk["feedback"])
        page.get_by_test_id("plan-reject").click()
        page.wait_for_selector('[data-testid="plan-editor"][data-status="planning"]')
        # then the next version is the rejected one with the feedback applied
        wait_for_plan(page, task, 2)
        second = list(task.plans.get(version=2).subquestions.order_by("order").values_list("text", flat=True))
        assert second == [before[0], *before[2:], walk["added"]]
        assert page.locator("#sq-0-text").input_value() == before[0]
        # and the history shows both versions with the diff between them
        assert page.locator('[data-testid="plan-version"]').count() == 2
        kinds = page.locator('[data-testid="plan-change"]').evaluate_all(
            "rows => rows.map(r => r.dataset.kind)"
        )
        assert sorted(kinds) == ["added", "removed"]
        diff = page.get_by_test_id("plan-diff").first.inner_text()
        assert before[1] in diff and walk["added"] in diff
        assert task.plans.get(version=1).status == Plan.Status.REJECTED

        # the report gate: a quote in the side panel takes focus and gives it back; "a" approves
        report = report_review_task(researcher)
        page.goto(reverse("report_view", args=[report.task.pk]))
        link = page.get_by_test_id("citation").first
        link.click()
        page.wait_for_selector('#side-panel [data-testid="evidence-context"]')
        wait_until(
            page, "() => Boolean(document.activeElement && document.activeElement.closest('#side-panel'))"
        )
        page.keyboard.press("Escape")
        wait_until(page, "() => !document.querySelector('#side-panel').firstElementChild")
        assert active(page, "element.dataset.testid") == "citation"
        page.locator("h1").click()
        page.keyboard.press("j")
        assert active(page, "element.dataset.testid") == "report-decision"
        page.keyboard.press("a")
        page.wait_for_selector('[data-testid="report-decision"][data-draft-status="approved"]')
        assert page.errors == []
