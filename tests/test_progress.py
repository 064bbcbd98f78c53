"""Progress you can watch: each sub-question's collection state on its row while collecting, the
task page polling it (and stopping), warnings grouped by cause with counts."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from django.urls import reverse

from researchapp.models import Event, Plan, ResearchTask, SubQuestion
from researchapp.pipeline.collector.search import SearchCollector, collect
from researchapp.pipeline.runner import collect as collect_stage
from researchapp.pipeline.runner.progress import MIN_INTERVAL, ProgressRecorder
from researchapp.pipeline.values import SubQuestion as SubQuestionValue
from researchapp.providers.base import Document, Hit, ProviderError
from tests.factories import task_with_plan
from tests.helpers import HTMX, client_for

pytestmark = pytest.mark.django_db
Status = ResearchTask.Status
FIXTURES = Path(__file__).parent / "fixtures"


class PagesOf:
    """A search provider and fetcher over made-up pages; ``/broken-*`` pages fail to open."""

    name = "pages"

    def __init__(self, count: int) -> None:
        self.urls = [f"http://pages.test/{'broken-' if i % 3 == 2 else ''}{i}" for i in range(count)]

    def search(self, query: str, *, max_results: int) -> list[Hit]:
        return [Hit(url=url, title=url, score=1.0) for url in self.urls][:max_results]

    def fetch(self, url: str) -> Document:
        if "broken" in url:
            raise ProviderError(f"HTTP 500 from {url}", code="server_error")
        return Document(url=url, title=url, text=f"Tram ridership at {url} rose by 4% in 2023.")


def test_collect_tells_each_page_opened_against_the_pages_to_open():
    # given six hits, two of which fail, and room for four sources
    pages = PagesOf(6)
    told: list[tuple[str, int, int]] = []
    sq = SubQuestionValue(id=1, text="How busy is the tram?", queries=("tram",))
    # when
    result = collect(sq, search=pages, fetcher=pages, max_results=6, max_sources=4, progress=
                     lambda *args: told.append(args))  # fmt: skip
    # then it said how many it meant to open, then counted each page opened up to the total
    assert told[0] == ("fetching", 0, 4)
    counts = [done for _, done, _ in told[1:]]
    assert counts == list(range(1, result.pages_opened + 1))
    assert told[-1][1] == told[-1][2] == result.pages_opened  # a failed page made room for another


def test_the_recorder_writes_a_new_state_always_and_the_same_state_at_most_once_a_tick(researcher):
    # given a sub-question and a clock that does not move
    sq = task_with_plan(researcher).plan.subquestions.first()
    now = [100.0]
    recorder = ProgressRecorder(sq.pk, 1, clock=lambda: now[0])
    # when ten pages are counted at once, then the clock moves and one more is counted
    recorder("searching")
    for done in range(1, 10):
        recorder("fetching", done, 12)
    sq.refresh_from_db()
    assert sq.progress == {"state": "fetching", "done": 1, "total": 12, "round": 1}
    now[0] += MIN_INTERVAL
    recorder("fetching", 10, 12)
    # then the row was written for the states and the tick, not for every page
    assert recorder.writes == 3
    sq.refresh_from_db()
    assert (sq.progress["done"], sq.progress["total"]) == (10, 12)
    # and reaching the total, or a new state, is written at once
    recorder("fetching", 12, 12)
    recorder("selecting")
    sq.refresh_from_db()
    assert recorder.writes == 5 and sq.progress["state"] == "selecting" and sq.progress["done"] == 12


def test_the_collect_stage_leaves_each_sub_question_done_with_its_counts(researcher, monkeypatch):
    # given an approved plan collecting over made-up pages
    scenario = task_with_plan(researcher, status=Status.COLLECTING, plan_status=Plan.Status.APPROVED)
    pages = PagesOf(5)
    collector = SearchCollector(pages, pages, max_results=5, max_sources=3)
    monkeypatch.setattr(collect_stage, "collect_bridges", lambda *args, **kwargs: [])
    sq = scenario.plan.subquestions.order_by("order").first()
    SubQuestion.objects.filter(pk=sq.pk).update(collected_round=0)
    sq.refresh_from_db()
    # when one sub-question is collected
    assert collect_stage.run_collect(scenario.task, sq, 1, collector)
    # then its row says done, with the pages opened and the sources found
    sq.refresh_from_db()
    assert sq.progress["state"] == "done" and sq.progress["round"] == 1
    assert sq.progress["sources"] == 3 and sq.progress["done"] == sq.progress["total"] == 4


def test_the_task_page_shows_each_sub_questions_state_while_collecting(researcher):
    scenario = task_with_plan(researcher, status=Status.COLLECTING, plan_status=Plan.Status.APPROVED)
    first, second, third = scenario.plan.subquestions.order_by("order")
    SubQuestion.objects.filter(pk=first.pk).update(
        progress={"state": "done", "done": 4, "total": 4, "sources": 3}
    )
    SubQuestion.objects.filter(pk=second.pk).update(progress={"state": "fetching", "done": 3, "total": 8})
    client = client_for(researcher)
    # when the page polls
    response = client.get(reverse("task_progress", args=[scenario.task.pk]), **HTMX)
    # then it keeps polling, and lists every sub-question with its state
    body = response.content.decode()
    assert response.status_code == 200 and 'hx-trigger="every 2s"' in body
    assert re.findall(r'data-testid="sq-progress" data-state="(\w+)"', body) == [
        "done",
        "fetching",
        "waiting",
    ]
    assert "fetching 3/8" in body and "done · 3 sources" in body


def test_the_poll_slows_and_the_list_goes_once_collecting_ends(researcher):
    scenario = task_with_plan(
        researcher, status=Status.AWAITING_EVIDENCE_REVIEW, plan_status=Plan.Status.APPROVED
    )
    response = client_for(researcher).get(reverse("task_progress", args=[scenario.task.pk]), **HTMX)
    assert response.status_code == 200 and 'hx-trigger="every 10s"' in response.content.decode()
    assert 'data-testid="sq-progress"' not in response.content.decode()


def test_the_same_failures_for_each_sub_question_are_one_line_each_with_a_count(researcher):
    # given five failures repeated for three sub-questions, and pages refused each at its own URL
    task = task_with_plan(researcher, status=Status.COLLECTING, plan_status=Plan.Status.APPROVED).task

    def warn(message: str, **data) -> None:
        Event.objects.create(
            task=task, stage="collecting", kind=Event.Kind.WARNING, message=message, data=data
        )

    for _ in range(3):
        for n in range(5):
            warn(f"search failed: provider error {n}", code="search_failed")
    for n in range(4):
        url = f"http://10.0.0.{n}/page"
        warn(f"refused to fetch {url}: private address", code="blocked_address", url=url)
    # when the task page is shown
    body = client_for(researcher).get(reverse("task_detail", args=[task.pk])).content.decode()
    # then each cause is one line with its count; the refusals are one cause with examples
    groups = re.findall(r'data-testid="warning-group" data-code="(\w+)" data-count="(\d+)"', body)
    assert sorted(groups) == sorted([("blocked_address", "4")] + [("search_failed", "3")] * 5)
    assert "refused to fetch …: private address" in body and "<code>http://10.0.0.3/page</code>" in body
    assert "Warnings (19)" in body
