"""Computed figures in the report: a sandbox result stored as a derived finding is shown with its
code, its result and each input with the quote it was read from (cited: appendix entry, PDF link);
the checker re-reads every input from its quote and refuses one that is not what the quote says."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest
from django.urls import reverse

from researchapp.exports.markdown import render_markdown
from researchapp.exports.pdf import render_pdf
from researchapp.exports.report import report_of
from researchapp.models import Finding, ResearchTask
from researchapp.pipeline.checker.mechanical import check_draft
from researchapp.pipeline.deep import tools
from researchapp.pipeline.report.document import document_from_json, document_json
from researchapp.pipeline.report.markdown import code_block
from researchapp.pipeline.runner import run_write
from researchapp.pipeline.runner.deep_tools import ToolContext, store_derived_finding
from researchapp.pipeline.runner.write import brief_for, ledger_for, recheck
from researchapp.pipeline.text.quantities import figure_value
from researchapp.pipeline.values import Draft
from tests.factories import evidence_review_task
from tests.helpers import client_for
from tests.report_checks import markdown_as_html, pdf_links, pdf_words

pytestmark = pytest.mark.django_db
Status = ResearchTask.Status
CODE = "gap = authority - association\nresult = round(gap / association * 100, 1)"
DESCRIPTION = "Authority count above the riders' count, per cent"
GAP = round((42000 - 31000) / 31000 * 100, 1)  # 35.5


def derive(scenario, *, code: str = CODE) -> Finding:
    """The derived finding deep mode's ``calculate`` stores: 42,000 (E1) against 31,000 (E2)."""
    e1, e2, _ = scenario.evidence
    request = tools.parse_call(
        "calculate",
        json.dumps({"code": code, "description": DESCRIPTION,
                    "inputs": [{"name": "authority", "evidence": f"E{e1.pk}", "number": 1},
                               {"name": "association", "evidence": f"E{e2.pk}", "number": 1}]}),
    )  # fmt: skip
    values = {"authority": figure_value(e1.quote, 1), "association": figure_value(e2.quote, 1)}
    context = ToolContext(scenario.task, e1.subquestion, 1)
    return store_derived_finding(context, request, values, GAP, [e1, e2])


def write(scenario):
    ResearchTask.objects.filter(pk=scenario.task.pk).update(status=Status.WRITING)
    draft = run_write(scenario.task)
    draft.refresh_from_db()
    return draft


@pytest.fixture
def computed(researcher):
    scenario = evidence_review_task(researcher)
    finding = derive(scenario)
    return scenario, finding, write(scenario)


def test_the_derived_finding_stores_its_code_inputs_and_result(computed):
    scenario, finding, _ = computed
    e1, e2, _ = scenario.evidence
    assert finding.calculation == {
        "description": DESCRIPTION,
        "code": CODE,
        "result": GAP,
        "inputs": [
            {"name": "authority", "evidence_id": e1.pk, "number": 1, "value": 42000.0},
            {"name": "association", "evidence_id": e2.pk, "number": 1, "value": 31000.0},
        ],
    }


def test_the_draft_shows_the_figure_with_its_code_and_the_quotes_it_read(computed):
    scenario, finding, draft = computed
    e1, e2, _ = scenario.evidence
    # then the draft passes its checks and its structure holds the figure
    assert draft.status == "checked", draft.check_issues
    (figure,) = draft.document["computed"]
    assert figure["finding_id"] == finding.pk and figure["result"] == GAP
    assert [(i["name"], i["evidence_id"], i["value"]) for i in figure["inputs"]] == [
        ("authority", e1.pk, 42000.0),
        ("association", e2.pk, 31000.0),
    ]
    # and its Markdown shows the result, each input with its quote, and the code
    markdown = draft.markdown
    assert "## Computed figures" in markdown
    assert f"### Authority count above the riders' count, per cent: {GAP}" in markdown
    assert f"- authority = 42000 — Read from E{e1.pk}: “{e1.quote}”" in markdown
    assert f"- association = 31000 — Read from E{e2.pk}: “{e2.quote}”" in markdown
    assert f"```python\n{CODE}\n```" in markdown


def test_every_format_cites_both_input_quotes(computed, analyst):
    scenario, _, draft = computed
    e1, e2, _ = scenario.evidence
    # the report model: one computed record, its inputs quoted and cited, both quotes in the appendix
    report = report_of(draft)
    (record,) = report.computed
    assert record.result == str(GAP) and record.code == CODE
    assert [shown.label for shown in record.passages] == [
        "authority = 42000 — read from",
        "association = 31000 — read from",
    ]
    assert [shown.cites for shown in record.passages] == [(e1.pk,), (e2.pk,)]
    assert [shown.quote.text for shown in record.passages] == [e1.quote, e2.quote]
    assert {e1.pk, e2.pk} <= {quote.evidence_id for quote in report.appendix}
    assert ("computed", "Computed figures") in report.contents()
    # the Markdown export: the section, and both quotes in its appendix
    exported = render_markdown(draft)
    appendix = exported.split("## Appendix", 1)[1]
    assert "## Computed figures" in exported
    assert f"**E{e1.pk}**" in appendix and f"**E{e2.pk}**" in appendix
    html, raw = markdown_as_html(exported)
    assert not raw and f'<code class="language-python">{CODE.replace("'", "&#x27;")}\n</code>' in html
    # the page: the record, the code, each input's citation marker
    ResearchTask.objects.filter(pk=scenario.task.pk).update(status=Status.AWAITING_REPORT_REVIEW)
    body = client_for(analyst).get(reverse("report_view", args=[scenario.task.pk])).content.decode()
    assert 'data-testid="report-computed"' in body and 'data-testid="computed-record"' in body
    assert "gap = authority - association" in body
    inputs = body.split('data-testid="computed-input"')[1:]
    assert len(inputs) == 2 and f"E{e1.pk}" in inputs[0] and f"E{e2.pk}" in inputs[1]
    # the PDF: the section, and each input's marker links to its appendix entry
    pdf = render_pdf(draft)
    words = pdf_words(pdf)
    assert "Computed figures" in words and "gap = authority - association" in words
    _, dests, named = pdf_links(pdf)
    assert {f"e{e1.pk}", f"e{e2.pk}"} <= set(dests) and {f"e{e1.pk}", f"e{e2.pk}"} <= named


def test_the_checker_refuses_an_input_that_is_not_its_quotes_number(computed):
    scenario, _, draft = computed
    e1, _, _ = scenario.evidence
    document = document_from_json(draft.document)
    (figure,) = document.computed
    tampered_input = replace(figure.inputs[0], value=52000.0)
    tampered = replace(document, computed=(replace(figure, inputs=(tampered_input, *figure.inputs[1:])),))
    value = Draft(markdown=draft.markdown, claims=(), document=document_json(tampered))
    ledger = ledger_for(scenario.task, [i.evidence_id for i in figure.inputs])
    issues = check_draft(value, brief_for(scenario.task), ledger)
    mismatches = [issue for issue in issues if issue.code == "computed_input_mismatch"]
    assert len(mismatches) == 1
    assert f"authority = 52000 is not number 1 of [E{e1.pk}] (which reads 42000)" in mismatches[0].message
    # the untouched figure passes
    value = Draft(markdown=draft.markdown, claims=(), document=document_json(document))
    assert not [i for i in check_draft(value, brief_for(scenario.task), ledger) if "computed" in i.code]


def test_a_stored_draft_whose_figure_was_tampered_with_fails_its_recheck(computed):
    _, _, draft = computed
    assert recheck(draft) == []
    # when its first input is said to be the quote's second number (the quote has only one)
    (figure,) = draft.document["computed"]
    first, second = figure["inputs"]
    draft.document = {**draft.document, "computed": [{**figure, "inputs": [{**first, "number": 2}, second]}]}
    assert [issue.code for issue in recheck(draft)] == ["computed_input_mismatch"]


def test_a_figure_whose_input_is_not_its_quotes_number_is_not_shown(researcher):
    # given a derived finding whose stored input value is not the number its quote holds
    scenario = evidence_review_task(researcher)
    finding = derive(scenario)
    calculation = dict(finding.calculation)
    calculation["inputs"] = [{**calculation["inputs"][0], "value": 4200.0}, calculation["inputs"][1]]
    Finding.objects.filter(pk=finding.pk).update(calculation=calculation)
    # when the report is written
    draft = write(scenario)
    # then the first revision failed its check on that figure, and the draft kept has no figure
    first = scenario.task.drafts.get(write_pass=draft.write_pass, revision=1)
    assert first.status == "failed_checks"
    assert any(issue["code"] == "computed_input_mismatch" for issue in first.check_issues)
    assert draft.revision == 2 and draft.status == "checked", draft.check_issues
    assert "computed" not in draft.document or draft.document["computed"] == []
    assert "Computed figures" not in draft.markdown


def test_code_cannot_close_its_block_or_carry_markup():
    # given model-written code holding a fence, a heading and raw HTML
    code = "x = 1\n```\n# Heading\n<script>alert(1)</script>\nresult = x"
    lines = code_block(code)
    # then the fence is longer than any run of backticks in it, and nothing inside renders as Markdown
    assert lines[0] == "````python" and lines[-1] == "````"
    html, raw = markdown_as_html("\n".join(lines))
    assert not raw and "<h1>" not in html and "&lt;script&gt;" in html
