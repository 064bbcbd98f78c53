"""A report's own headings and labels are in the report's language (its question's), in its page, its
PDF and its Markdown; the page around it stays in the reader's UI language; [证据不足] is verbatim."""

from __future__ import annotations

import pytest
from django.urls import reverse

from researchapp.exports.markdown import render_markdown
from researchapp.exports.pdf import render_pdf
from researchapp.exports.report import report_of
from researchapp.models import ResearchTask
from researchapp.pipeline.report.labels import DISPUTED_SECTION_NOTE, EN, ZH
from researchapp.pipeline.runner import run_write
from tests.factories import evidence_review_task
from tests.helpers import client_for
from tests.report_checks import pdf_words
from tests.test_report_computed import derive

pytestmark = pytest.mark.django_db
Status = ResearchTask.Status
CHINESE_QUESTION = "港城有轨电车有多繁忙？"


def written(researcher, **fields):
    scenario = evidence_review_task(researcher, **fields)
    derive(scenario)
    ResearchTask.objects.filter(pk=scenario.task.pk).update(status=Status.WRITING)
    draft = run_write(scenario.task)
    draft.refresh_from_db()
    ResearchTask.objects.filter(pk=scenario.task.pk).update(status=Status.AWAITING_REPORT_REVIEW)
    return scenario, draft


def headings(labels) -> list[str]:
    return [labels.disputed, labels.to_verify, labels.computed, labels.method, labels.references]


@pytest.mark.parametrize(("question", "words", "other"), [(CHINESE_QUESTION, ZH, EN), (None, EN, ZH)])
def test_the_markdown_headings_and_labels_are_in_the_reports_language(researcher, question, words, other):
    # given a task whose question is in Chinese (or in English)
    scenario, draft = written(researcher, **({"question": question} if question else {}))
    assert draft.status == "checked", draft.check_issues
    # then the draft and the Markdown export write their headings and labels in that language
    for markdown in (draft.markdown, render_markdown(draft)):
        assert f"## {words.disputed}" in markdown and f"## {other.disputed}" not in markdown
        assert f"## {words.to_verify} [证据不足]" in markdown
        assert f"## {words.computed}" in markdown and f"- {words.result}: " in markdown
        assert f"- {words.searched}: " in markdown and f"- {words.decision}: " in markdown
        assert f"{words.role('supports')} E{scenario.evidence[0].pk}: " in markdown
        assert f"## {words.references}" in markdown
    exported = render_markdown(draft)
    assert f"## {words.method}" in exported and f"## {other.method}" not in exported
    assert f"## {words.appendix}" in exported and f"- {words.sources_opened}: " in exported
    # and a section without claims has its note in that language
    assert f"*{words.note_text(DISPUTED_SECTION_NOTE)}*" in draft.markdown


@pytest.mark.parametrize(("question", "words", "other"), [(CHINESE_QUESTION, ZH, EN), (None, EN, ZH)])
def test_the_page_and_the_pdf_use_the_reports_language_inside_the_ui_language(
    researcher, analyst, question, words, other
):
    scenario, draft = written(researcher, **({"question": question} if question else {}))
    report = report_of(draft)
    assert report.labels is words
    # the page, for a reader whose UI is in English: the report's headings in its own language
    body = client_for(analyst).get(reverse("report_view", args=[scenario.task.pk])).content.decode()
    for heading in headings(words):
        assert f"<h2>{heading}" in body
    for heading in (other.disputed, other.method, other.references):
        assert f"<h2>{heading}</h2>" not in body
    assert f"<strong>{words.searched}:</strong>" in body and f"<strong>{words.decision}:</strong>" in body
    conflict = next(record for record in report.disputes)
    assert f"{words.decision}:</strong> {words.decision_summary(conflict.decision)}" in body
    # and the page chrome stays in the reader's UI language (English here), the PDF's contents too
    assert "Approve report" in body and "Cited evidence" in body
    # the PDF: its contents, headings and labels in the report's language
    text = pdf_words(render_pdf(draft))
    for heading in (words.contents, words.disputed, words.computed, words.method, words.references):
        assert heading in text
    assert other.method not in text.split(words.method, 1)[1][:40]


def test_a_chinese_report_reads_in_chinese_for_a_reader_whose_ui_is_in_chinese_too(researcher, analyst):
    scenario, _ = written(researcher, question=CHINESE_QUESTION)
    client = client_for(analyst)
    url = reverse("report_view", args=[scenario.task.pk])
    body = client.get(url, HTTP_ACCEPT_LANGUAGE="zh-hans").content.decode()
    assert f"<h2>{ZH.method}</h2>" in body and f"<h2>{ZH.disputed}</h2>" in body
    assert "批准报告" in body and "Approve report" not in body  # the chrome in the reader's language


def test_an_english_report_reads_in_english_for_a_reader_whose_ui_is_in_chinese(researcher, analyst):
    scenario, _ = written(researcher)
    url = reverse("report_view", args=[scenario.task.pk])
    body = client_for(analyst).get(url, HTTP_ACCEPT_LANGUAGE="zh-hans").content.decode()
    assert f"<h2>{EN.method}</h2>" in body and f"<h2>{ZH.method}</h2>" not in body
    assert "批准报告" in body
