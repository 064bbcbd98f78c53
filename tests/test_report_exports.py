"""The report's exports: the demo's decisions and gaps on record, the PDF's Chinese on a machine without
fonts, a 200-citation report and a Chinese one, and every citation in a PDF linked to its appendix entry."""

from __future__ import annotations

import subprocess
import time
from io import StringIO

import pytest
from django.core.management import call_command
from django.utils import timezone

from researchapp.demo import DEMO_QUESTION
from researchapp.exports.markdown import render_markdown
from researchapp.exports.pdf import render_pdf
from researchapp.exports.report import DEMO_NOTICE, report_of
from researchapp.models import Finding, ReportDraft, ResearchTask
from researchapp.pipeline.report.document import Decision, Document, Gap, Section, Statement, document_json
from researchapp.pipeline.report.markdown import markdown_text
from researchapp.services.dispatch import drain, inline
from researchapp.services.plan_gate import plan_approve
from researchapp.services.submission import task_submit
from reviews.services import finding_decide
from tests.factories import EvidenceFactory, PlanFactory, SourceFactory, TaskFactory
from tests.report_checks import markdown_as_html, pdf_fonts, pdf_links, pdf_words

pytestmark = pytest.mark.django_db
FONT_NAME = "Research-Noto-Sans-CJK-SC"  # the project's CJK face under the family the PDF names


def demo_task(analyst, on_commit) -> ResearchTask:
    """The demo question through the stages as an analyst takes it: the plan approved as proposed,
    the efficiency conflict settled on the lab's 85 percent with a reason, the gap kept."""
    call_command("demo_setup", stdout=StringIO())
    with inline() as queue:
        task = task_submit(owner=analyst, question=DEMO_QUESTION)
        drain(queue)
        plan_approve(plan=task.plans.get(), actor=analyst)
        drain(queue)
        for finding in Finding.objects.filter(task=task).needing_review().order_by("id"):
            lab_side = finding.links.filter(evidence__source__url__contains="batterylab").values_list(
                "stance"
            )
            decision = {"conflict": f"pick_{(lab_side.first() or ['supports'])[0]}", "insufficient": "gap"}
            with on_commit(execute=True):
                finding_decide(
                    finding=finding,
                    actor=analyst,
                    decision=decision[finding.status],
                    version_seen=finding.version,
                    note="The lab measured it; the maker only states it."
                    if finding.status == "conflict"
                    else "",
                )
            drain(queue)
    task.refresh_from_db()
    assert task.status == ResearchTask.Status.AWAITING_REPORT_REVIEW, task.failure_reason
    return task


def test_the_demo_report_keeps_the_decision_both_quotes_and_what_was_searched(
    analyst, django_capture_on_commit_callbacks
):
    # given the demo taken to its report by an analyst who picked the lab's side, with a reason
    task = demo_task(analyst, django_capture_on_commit_callbacks)
    report = report_of(task.drafts.current())

    # then the report states the picked side, and keeps the dispute on record: both quotes, the
    # decision, who made it, when and why
    [dispute] = [
        r
        for r in report.disputes
        if any("92 percent" in (s.quote.text if s.quote else "") for s in r.passages)
    ]
    quotes = " ".join(shown.quote.text for shown in dispute.passages)
    assert "85 percent" in quotes and "92 percent" in quotes
    assert {shown.label.split(" E")[0] for shown in dispute.passages} == {"Kept", "Set aside"}
    assert dispute.decision.resolution == "picked" and dispute.decision.by == "analyst"
    assert dispute.decision.at and dispute.decision.note == "The lab measured it; the maker only states it."
    markdown = render_markdown(task.drafts.current())
    assert "one side picked (by analyst, " in markdown
    assert "Reason: “The lab measured it; the maker only states it.”" in markdown
    # and the gap says what was searched
    [gap] = report.gaps
    assert gap.searched and all(query in markdown_as_html(markdown)[0] for query in gap.searched)
    assert DEMO_NOTICE in markdown  # the invented corpus is named in every export


def test_the_demo_pdf_shows_chinese_on_a_machine_without_fonts(analyst, tmp_path, monkeypatch):
    # given the demo report, approved, and fontconfig pointed at an empty font folder
    call_command("demo_setup", stdout=StringIO())
    call_command("research", DEMO_QUESTION, "--auto-approve", "--user", "analyst", stdout=StringIO())
    draft = ResearchTask.objects.get().drafts.current()
    (tmp_path / "fonts").mkdir()
    config = tmp_path / "fonts.conf"
    config.write_text(
        f'<?xml version="1.0"?><fontconfig><dir>{tmp_path / "fonts"}</dir>'
        f"<cachedir>{tmp_path / 'cache'}</cachedir></fontconfig>"
    )
    monkeypatch.setenv("FONTCONFIG_FILE", str(config))
    listed = subprocess.run(["fc-list"], capture_output=True, text=True, check=True).stdout
    assert listed.strip() == ""  # no system font at all

    # when the PDF is made (the renderer inherits the environment)
    pdf = tmp_path / "demo.pdf"
    pdf.write_bytes(render_pdf(draft))

    # then [证据不足] and the notice are text, in the project's own CJK font, embedded; no other font is used
    words = pdf_words(pdf.read_bytes())
    assert "[证据不足]" in words and "invented demo corpus" in words
    fonts = [line.split() for line in pdf_fonts(pdf).splitlines()[2:]]
    assert fonts and all(FONT_NAME in line[0] for line in fonts)
    assert all("yes" in line[-5:-2] for line in fonts)  # emb column


def approved_report(owner, question: str, facts: list[str], *, per_source: int = 25) -> ReportDraft:
    """An approved report whose every fact is its own quote of a stored source, cited once, and one gap."""
    task = TaskFactory(owner=owner, question=question, status=ResearchTask.Status.APPROVED)
    plan = PlanFactory(task=task, status="approved", subquestions=2)
    subquestions = list(plan.subquestions.order_by("order"))
    statements: dict[int, list[Statement]] = {sq.pk: [] for sq in subquestions}
    for first in range(0, len(facts), per_source):
        chunk = facts[first : first + per_source]
        source = SourceFactory(task=task, text=" ".join(chunk), url=f"https://s{first}.example/page?x=1&y=2")
        start = 0
        for n, fact in enumerate(chunk):
            subquestion = subquestions[(first + n) % 2]
            evidence = EvidenceFactory(source=source, subquestion=subquestion, start=start, length=len(fact))
            statements[subquestion.pk].append(Statement(fact, (evidence.pk,)))
            start += len(fact) + 1
    gap = Gap(0, subquestions[1].pk, "What nobody measured", searched=("tide gauge", "潮位"))
    document = Document(
        title=question,
        sections=tuple(Section(sq.pk, sq.text, tuple(statements[sq.pk])) for sq in subquestions),
        gaps=(gap,),
    )
    claims = [
        {"text": s.text, "evidence_ids": list(s.evidence_ids), "section": str(sq)}
        for sq, items in statements.items()
        for s in items
    ]
    markdown = "\n".join(f"- {markdown_text(c['text'])} [E{c['evidence_ids'][0]}]" for c in claims)
    return ReportDraft.objects.create(
        task=task, version=1, markdown=markdown, claims=claims, document=document_json(document),
        status=ReportDraft.Status.APPROVED, approved_by=owner, approved_at=timezone.now(),
    )  # fmt: skip


def assert_every_citation_links_to_its_appendix_entry(draft: ReportDraft, pdf: bytes) -> None:
    uris, destinations, named = pdf_links(pdf)
    cited = {f"e{evidence_id}" for evidence_id in draft.cited_evidence_ids}
    citation_links = [name for name in destinations if name.startswith("e") and name[1:].isdigit()]
    assert set(citation_links) == cited  # each citation's link goes to that quote's entry
    assert cited <= named  # and each entry is a destination in the document
    assert len(citation_links) >= len(draft.cited_evidence_ids)
    assert uris and all(uri.startswith("https://") for uri in uris)


@pytest.mark.parametrize(
    ("question", "fact"),
    [
        (
            "How did the tide change at the Marrowby gauge?",
            "Reading {i}: the tide rose {i} centimetres at the gauge.",
        ),
        ("马罗比潮位站的潮位如何变化？", "第{i}次读数：潮位站记录的潮位上升了{i}厘米。"),
    ],
    ids=["200 citations", "Chinese"],
)
def test_a_large_report_and_a_chinese_one_export_with_every_citation_linked(
    researcher, tmp_path, question, fact
):
    # given an approved report of 200 cited facts (the Chinese one in Chinese throughout)
    draft = approved_report(researcher, question, [fact.format(i=i) for i in range(200)])

    # when it is exported
    started = time.monotonic()
    markdown = render_markdown(draft)
    pdf = render_pdf(draft)
    seconds = time.monotonic() - started
    print(f"\n{question}: Markdown {len(markdown):,} chars, PDF {len(pdf):,} bytes in {seconds:.1f} s")

    # then the Markdown marks and links every citation, and shows the facts as written
    for evidence_id in draft.cited_evidence_ids:
        assert f"[E{evidence_id}]: <https://" in markdown
    shown, raw = markdown_as_html(markdown)
    assert raw == [] and fact.format(i=199).split("：")[-1] in shown
    # and the PDF shows the text, with every citation linked to its entry in the appendix
    (tmp_path / "report.pdf").write_bytes(pdf)
    words = pdf_words(pdf)
    assert fact.format(i=7) in words and "[证据不足]" in words
    assert FONT_NAME in pdf_fonts(tmp_path / "report.pdf")
    assert_every_citation_links_to_its_appendix_entry(draft, pdf)


def test_a_decision_taken_by_auto_approval_says_so_and_an_analysts_names_them() -> None:
    # when a gate passed with --auto-approve kept an item as a gap, and an analyst kept another
    auto = Decision(resolution="gap", at="2026-01-02T03:04:05+00:00", note="auto-approved")
    analyst = Decision(resolution="gap", by="analyst", at="2026-01-02T03:04:05+00:00", note="no source yet")
    unnamed = Decision(resolution="gap")
    # then the first reads "auto-approved" (with no reason repeating it), the second names the analyst
    assert auto.summary.endswith("(auto-approved, 2026-01-02 03:04 UTC)") and auto.reason == ""
    assert "(by analyst, 2026-01-02 03:04 UTC)" in analyst.summary and analyst.reason == "no source yet"
    assert "by no analyst named" in unnamed.summary
