"""axe-core in Chromium on every page, in both languages; the task list and the navigation at 390 px.

axe's JavaScript comes from the ``axe-playwright-python`` package (installed by ``make install``). A
serious or critical violation on any page fails the test: the desk's own pages (layout, task list,
queues, audit, preferences, errors, login) and the gate pages (task, plan, evidence, report, a quote
in its source), with the side panel and the person's menu open as well.
"""

from __future__ import annotations

import pytest
from axe_playwright_python.sync_playwright import Axe
from django.urls import reverse

from researchapp.models import Plan, ResearchTask, Step, SubQuestion
from researchapp.pipeline.runner.hypotheses import run_hypotheses
from reviews import services
from tests.browser import chromium_page, log_in
from tests.factories import (
    PlanFactory,
    evidence_review_task,
    plan_review_task,
    report_review_task,
    researcher_persona,
    task_with_plan,
)

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
SEVERE = {"serious", "critical"}
Status = ResearchTask.Status


def severe_violations(page) -> dict[str, list[str]]:
    """axe's serious and critical violations on the page: rule id → the offending elements."""
    results = Axe().run(page)
    assert results.response["passes"], "axe ran no rule"
    return {
        violation["id"]: [node["target"] for node in violation["nodes"]][:5]
        for violation in results.response["violations"]
        if violation["impact"] in SEVERE
    }


@pytest.fixture
def desk(researcher, analyst):
    """A task at each gate, and a few decisions for the audit to show."""
    plan, evidence, report = (
        plan_review_task(researcher),
        evidence_review_task(researcher),
        report_review_task(researcher),
    )
    services.finding_decide(finding=evidence.conflict, actor=analyst, decision="disputed", version_seen=1)
    run_hypotheses(evidence.task)
    # a plan in its second version (history and diff), a task collecting (per sub-question progress)
    revised = plan_review_task(researcher, question="How busy is the tram at night?")
    Plan.objects.filter(pk=revised.plan.pk).update(
        status=Plan.Status.REJECTED, feedback="Drop sub-question 2."
    )
    second = PlanFactory(task=revised.task, version=2, engine="extractive", subquestions=2)
    SubQuestion.objects.filter(plan=second, order=1).update(text="Which grants exist?", queries=["grants"])
    collecting = task_with_plan(researcher, status=Status.COLLECTING, plan_status=Plan.Status.APPROVED)
    progress = [
        {"state": "done", "done": 3, "total": 3, "sources": 2},
        {"state": "fetching", "done": 1, "total": 4},
    ]
    for row, value in zip(collecting.plan.subquestions.order_by("order"), progress, strict=False):
        SubQuestion.objects.filter(pk=row.pk).update(progress=value)
    # the evidence gate with an open conflict and an open [证据不足] item, and with both decided:
    # a side picked, evidence added by hand
    undecided, decided = evidence_review_task(researcher), evidence_review_task(researcher)
    services.finding_decide(
        finding=decided.conflict, actor=analyst, decision="pick_supports", version_seen=1, note="Counted."
    )
    services.evidence_add_by_hand(
        finding=decided.gap, actor=analyst, source=decided.sources[1], start=0, end=61, version_seen=1
    )
    return {
        "plan": plan,
        "evidence": evidence,
        "report": report,
        "undecided": undecided,
        "decided": decided,
        "revised": revised,
        "collecting": collecting,
        "deep": deep_task_with_trace(researcher),
    }


def deep_task_with_trace(owner):
    """A deep task whose loop took a search, a page, a refused call and stopped at its budget."""
    scenario = evidence_review_task(owner, depth="deep")
    item = scenario.evidence[0]
    for index, (tool, status, error) in enumerate(
        [("web_search", "done", ""), ("open_page", "done", ""), ("browse", "error", "unknown tool 'browse'"),
         ("", "stopped", "Stopped: the steps budget was reached (DEEP_MAX_STEPS = 3).")]
    ):  # fmt: skip
        Step.objects.create(
            task=scenario.task,
            subquestion=item.subquestion,
            index=index,
            turn=index,
            tool=tool,
            status=status,
            thought="Look for the figures.",
            arguments={"query": "tidal lagoon"} if tool else {},
            error=error,
            result_ids=[f"S{item.source_id}", f"E{item.pk}"] if tool == "open_page" else [],
            budget="steps" if status == "stopped" else "",
            tokens=120,
        )
    return scenario


def analyst_pages(desk) -> dict[str, str]:
    evidence, task = desk["evidence"], desk["evidence"].task.pk
    pages = {
        "task_list": "/",
        "task_detail": reverse("task_detail", args=[task]),
        "task_detail_deep_trace": reverse("task_detail", args=[desk["deep"].task.pk]),
        "plan_review": reverse("plan_review", args=[desk["plan"].task.pk]),
        "plan_review_v2_with_history": reverse("plan_review", args=[desk["revised"].task.pk]),
        "task_detail_collecting": reverse("task_detail", args=[desk["collecting"].task.pk]),
        "evidence_review": reverse("evidence_review", args=[task]),
        "hypotheses_review": reverse("hypotheses_review", args=[task]),
        "report_view": reverse("report_view", args=[desk["report"].task.pk]),
        "evidence_context": reverse("evidence_context", args=[evidence.evidence[0].pk]),
        "evidence_review_undecided": reverse("evidence_review", args=[desk["undecided"].task.pk]),
        "evidence_review_decided": reverse("evidence_review", args=[desk["decided"].task.pk]),
        "evidence_source": reverse("evidence_source", args=[desk["undecided"].task.pk])
        + f"?source={desk['undecided'].sources[0].pk}&finding={desk['undecided'].gap.pk}",
        "task_audit": reverse("task_audit", args=[task]),
        "desk_audit": reverse("desk_audit"),
        "preferences": reverse("preferences"),
        "not_found": "/tasks/999999/",
    }
    for queue in ("plans", "conflicts", "gaps", "reports"):
        pages[f"queue_{queue}"] = f"{reverse('review_queue')}?queue={queue}"
    return pages


@pytest.mark.parametrize("language", ["en", "zh-hans"])
def test_no_page_has_a_serious_or_critical_axe_violation(live_server, analyst, researcher, desk, language):
    found: dict[str, dict[str, list[str]]] = {}
    cookies = [{"name": "django_language", "value": language, "url": live_server.url}]
    with chromium_page(live_server.url) as page:
        page.context.add_cookies(cookies)
        page.goto("/login/")
        found["login"] = severe_violations(page)
        log_in(page, analyst.username)
        for name, url in analyst_pages(desk).items():
            page.goto(url)
            assert page.locator("html").get_attribute("lang") == language
            found[name] = severe_violations(page)
        page.goto("/")
        page.get_by_test_id("nav-user").click()
        found["task_list with the menu open"] = severe_violations(page)
        page.goto(reverse("evidence_review", args=[desk["evidence"].task.pk]))
        page.get_by_test_id("evidence-link").first.click()
        page.wait_for_selector('#side-panel [data-testid="evidence-context"]')
        found["evidence_review with the side panel open"] = severe_violations(page)
        page.goto(reverse("plan_review", args=[desk["revised"].task.pk]))
        page.get_by_test_id("open-shortcuts").click()
        page.get_by_test_id("shortcut-help").wait_for(state="visible")
        found["plan_review with the keyboard help open"] = severe_violations(page)
        page.goto(reverse("evidence_review", args=[desk["undecided"].task.pk]))
        page.get_by_test_id("open-source").first.click()
        page.wait_for_selector('#side-panel [data-testid="source-select"]')
        found["evidence_review with a source open to select from"] = severe_violations(page)
        page.context.clear_cookies()
        page.context.add_cookies(cookies)
        log_in(page, researcher.username)
        page.goto(reverse("review_queue"))
        found["forbidden"] = severe_violations(page)
    for name, violations in found.items():
        print(f"{language} {name}: {violations or 'none'}")
    assert {name: violations for name, violations in found.items() if violations} == {}


def test_the_task_list_fits_a_390_px_screen_and_the_navigation_two_lines(live_server, analyst, tmp_path):
    # given a desk of tasks with long questions, one of them a single unbroken word
    owner = researcher_persona("a_researcher_with_a_long_name")
    for i in range(6):
        evidence_review_task(owner, question=f"How busy is the Harbor City tram on weekday {i}? " * 4)
    evidence_review_task(owner, question="Supercalifragilistic" * 12)

    with chromium_page(live_server.url, viewport={"width": 390, "height": 844}) as page:
        log_in(page, analyst.username)
        task = ResearchTask.objects.first().pk
        for url in (
            "/",
            f"{reverse('review_queue')}?queue=conflicts",
            reverse("task_audit", args=[task]),
            "/preferences/",
        ):
            page.goto(url)
            page.screenshot(
                path=str(tmp_path / f"390px-{url.strip('/').replace('/', '-') or 'tasks'}.png"),
                full_page=True,
            )
            # then nothing is wider than the screen
            widths = page.evaluate("[document.documentElement.scrollWidth, window.innerWidth]")
            assert widths[0] <= widths[1], f"{url} scrolls sideways: {widths}"
        # and the navigation's items sit on at most two lines
        page.goto("/")
        tops = page.evaluate(
            "[...document.querySelectorAll('.nav > *')].map(e => e.getBoundingClientRect())"
            ".filter(box => box.width > 0 && box.height > 0).map(box => Math.round(box.top))"
        )
        lines = [
            top for i, top in enumerate(sorted(set(tops))) if i == 0 or top - sorted(set(tops))[i - 1] > 12
        ]
        assert len(lines) <= 2, tops
        assert page.get_by_test_id("task-row").first.is_visible()
