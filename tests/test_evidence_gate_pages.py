"""The evidence gate's pages in 简体中文, and a quote added by hand shown in its source."""

from __future__ import annotations

import re

import pytest
from django.urls import reverse

from reviews import services
from tests.factories import evidence_review_task
from tests.helpers import client_for

pytestmark = pytest.mark.django_db


def test_the_evidence_gate_reads_in_chinese_with_the_mark_verbatim(analyst, researcher):
    # given the tram task at the evidence gate, read by an analyst who chose 简体中文
    scenario = evidence_review_task(researcher)
    client = client_for(analyst)
    client.cookies["django_language"] = "zh-hans"
    body = client.get(reverse("evidence_review", args=[scenario.task.pk])).content.decode()

    # then the conflict's and the gap's words are Chinese, and [证据不足] stays as it is
    assert '<html lang="zh-hans">' in body
    for words in (
        "选择 A 方：transit.example",
        "选择 B 方：riders.example",
        "保留为有争议",
        "理由（选择一方时必填）",
    ):
        assert words in body, words
    for words in ("保留为缺口", "舍弃该子问题", "手动添加证据", "添加为证据", "已尝试的检索"):
        assert words in body, words
    gap = body[body.index(f'id="finding-{scenario.gap.pk}"') :]
    assert gap[: gap.index("</article>")].count("[证据不足]") == 1
    # and none of the English decision words is left
    for english in ("Pick side", "Keep as disputed", "Keep as gap", "Add evidence by hand", "What was tried"):
        assert english not in body, english


def test_a_quote_added_by_hand_says_who_added_it_in_its_source(analyst, researcher):
    scenario = evidence_review_task(researcher)
    evidence = services.add_evidence_by_hand(
        finding=scenario.gap, reviewer=analyst, source=scenario.sources[1], start=0, end=61, version_seen=1
    )
    page = client_for(researcher).get(reverse("evidence_context", args=[evidence.pk])).content.decode()
    assert re.search(rf'data-testid="added-by">{analyst.username} · ', page)
    assert "quote = snapshot[start:end], hash matches" in page
