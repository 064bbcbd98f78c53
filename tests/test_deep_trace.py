"""Deep mode's trace on the task page: every step with its thought, tool, arguments, results, errors
and budget stops, in both languages."""

from __future__ import annotations

import pytest
from django.urls import reverse

from researchapp.models import Step
from tests.factories import evidence_review_task
from tests.helpers import client_for

pytestmark = pytest.mark.django_db


@pytest.fixture
def traced(researcher):
    scenario = evidence_review_task(researcher, depth="deep")
    item = scenario.evidence[0]
    rows = [
        ("web_search", {"query": "<b>tidal</b> lagoon"}, "done", [], ""),
        ("open_page", {"url": item.source.url}, "done", [f"S{item.source_id}", f"E{item.pk}"], ""),
        ("browse", {"_raw": '{"url": "x"}'}, "error", [], "unknown tool 'browse'"),
        ("", {}, "stopped", [], "Stopped: the tokens budget was reached (DEEP_MAX_TOKENS = 1500)."),
    ]
    for index, (tool, arguments, status, results, error) in enumerate(rows):
        Step.objects.create(
            task=scenario.task, subquestion=item.subquestion, index=index, turn=index, tool=tool,
            arguments=arguments, status=status, result_ids=results, error=error, tokens=100 + index,
            thought=f"Thought {index} <script>alert(1)</script>",
            budget="tokens" if status == "stopped" else "",
        )  # fmt: skip
    return scenario


def test_the_task_page_shows_every_step_of_the_loop(traced, researcher):
    page = client_for(researcher).get(reverse("task_detail", args=[traced.task.pk])).content.decode()
    assert page.count('data-testid="trace-step"') == 4
    evidence_id = traced.evidence[0].pk
    assert f'href="/evidence/{evidence_id}/" data-testid="trace-result">E{evidence_id}<' in page
    assert "unknown tool &#x27;browse&#x27;" in page and '{"url": "x"}'.replace('"', "&quot;") in page
    assert 'data-budget="tokens"' in page and "DEEP_MAX_TOKENS = 1500" in page
    # and what the model wrote is text, never markup
    assert "<script>alert(1)</script>" not in page and "&lt;b&gt;tidal&lt;/b&gt;" in page


def test_a_quick_task_has_no_trace(researcher):
    scenario = evidence_review_task(researcher)
    page = client_for(researcher).get(reverse("task_detail", args=[scenario.task.pk])).content.decode()
    assert 'data-testid="deep-trace"' not in page


def test_the_trace_reads_in_chinese(traced, researcher):
    client = client_for(researcher)
    client.cookies["django_language"] = "zh-hans"
    page = client.get(reverse("task_detail", args=[traced.task.pk])).content.decode()
    assert "研究轨迹" in page and "4 步" in page and "因预算上限停止" in page


def test_the_trace_reads_as_sentences_not_json(traced, researcher):
    page = client_for(researcher).get(reverse("task_detail", args=[traced.task.pk])).content.decode()
    item = traced.evidence[0]
    # each step says what it did, the model's query shown as text
    assert "Searched the web for “&lt;b&gt;tidal&lt;/b&gt; lagoon”." in page
    assert f"Opened {item.source.url}." in page
    assert f"Stored 1 page, found E{item.pk}." in page
    assert "Asked for a tool the desk does not have (its name is under the toggle)." in page
    # and the loop, in one line; the raw arguments only behind a toggle
    assert f"searched 1 time, opened 1 page, found E{item.pk}" in page
    assert '<details class="trace-raw">' in page


def test_evidence_ids_read_as_ranges():
    from researchapp.templatetags.deep_trace import evidence_ranges

    assert evidence_ranges(["E9", "S3", "E4", "E5", "E6", "E12", "E5"]) == "E4–E6, E9, E12"
    assert evidence_ranges(["S1"]) == ""


def test_the_trace_reads_as_sentences_in_chinese(traced, researcher):
    client = client_for(researcher)
    client.cookies["django_language"] = "zh-hans"
    page = client.get(reverse("task_detail", args=[traced.task.pk])).content.decode()
    assert "在网上搜索了“&lt;b&gt;tidal&lt;/b&gt; lagoon”。" in page
    assert f"搜索了 1 次，打开了 1 个网页，找到 E{traced.evidence[0].pk}" in page
