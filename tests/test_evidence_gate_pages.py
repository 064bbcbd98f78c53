"""The evidence gate's pages in 简体中文, and a quote added by hand shown in its source."""

from __future__ import annotations

import re

import pytest
from django.urls import reverse

from researchapp.models import FindingEvidence
from reviews import services
from reviews.selectors import audit
from tests.factories import EvidenceFactory, SourceFactory, evidence_review_task
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
    evidence = services.evidence_add_by_hand(
        finding=scenario.gap, actor=analyst, source=scenario.sources[1], start=0, end=61, version_seen=1
    )
    page = client_for(researcher).get(reverse("evidence_context", args=[evidence.pk])).content.decode()
    assert re.search(rf'data-testid="added-by">{analyst.username} · ', page)
    assert "quote = snapshot[start:end], hash matches" in page


def test_a_quote_in_a_long_snapshot_shows_its_paragraphs_clipped_at_the_windows_edges(analyst, researcher):
    # given a conflict quoting the middle of a long page of one-line paragraphs
    scenario = evidence_review_task(researcher)
    filler = "\n".join(f"Paragraph {i} says nothing of riders at all, only words." for i in range(60))
    quote = "The line carries 55,000 passengers a day on weekdays."
    long_page = SourceFactory(task=scenario.task, text=f"{filler}\n{quote}\n{filler}")
    evidence = EvidenceFactory(
        source=long_page, subquestion=scenario.conflict.subquestion, start=len(filler) + 1, length=len(quote)
    )
    FindingEvidence.objects.create(finding=scenario.conflict, evidence=evidence, stance="supports")
    body = client_for(analyst).get(reverse("evidence_review", args=[scenario.task.pk])).content.decode()

    # then the quote is shown with the paragraph before and after it, whole, and marked
    figure = body[body.index(f'data-evidence="{evidence.pk}"') :]
    figure = figure[: figure.index("</figure>")]
    paragraphs = re.findall(r"<p>(.*?)</p>", figure)
    assert paragraphs[0] == "Paragraph 59 says nothing of riders at all, only words."
    assert paragraphs[1].startswith('<mark data-testid="quote">The line carries <strong class="differs"')
    assert paragraphs[2] == "Paragraph 0 says nothing of riders at all, only words."
    assert "…" not in figure  # whole paragraphs: the window's clipped edges are further out


def test_a_quote_inside_one_long_paragraph_is_shown_clipped_on_both_sides(analyst, researcher):
    scenario = evidence_review_task(researcher)
    words = " ".join(["Words of a very long paragraph."] * 60)
    quote = "The line carries 55,000 passengers a day on weekdays."
    long_page = SourceFactory(task=scenario.task, text=f"{words} {quote} {words}")
    evidence = EvidenceFactory(
        source=long_page, subquestion=scenario.conflict.subquestion, start=len(words) + 1, length=len(quote)
    )
    FindingEvidence.objects.create(finding=scenario.conflict, evidence=evidence, stance="supports")
    body = client_for(analyst).get(reverse("evidence_review", args=[scenario.task.pk])).content.decode()
    figure = body[body.index(f'data-evidence="{evidence.pk}"') :]
    (paragraph,) = re.findall(r"<p>(.*?)</p>", figure[: figure.index("</figure>")])
    assert paragraph.startswith("…") and paragraph.endswith("…")
    assert len(paragraph) < len(long_page.text) // 2  # a window of the snapshot, not all of it


def test_the_audit_has_one_line_for_evidence_added_by_hand_saying_what(analyst, researcher):
    scenario = evidence_review_task(researcher)
    evidence = services.evidence_add_by_hand(
        finding=scenario.gap, actor=analyst, source=scenario.sources[1], start=0, end=61, version_seen=1
    )
    lines = [line for line in audit.task_audit(scenario.task) if line.who == analyst.username]
    assert [line.what for line in lines] == [f"Item {scenario.gap.pk}: evidence added by hand"]
    assert (
        f"E{evidence.pk} “{evidence.quote}” — Riders' association survey [0:{evidence.end}]" in lines[0].note
    )
