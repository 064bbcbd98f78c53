"""Reports with academic sources and tested hypotheses: a paper's DOI, authors, venue and year in
the references of every format, and a "Hypotheses tested" section with the evidence on each side."""

from __future__ import annotations

import pytest
from django.urls import reverse

from researchapp.exports.markdown import render_markdown
from researchapp.exports.pdf import render_pdf
from researchapp.exports.report import report_of
from researchapp.models import Hypothesis, ResearchTask
from researchapp.pipeline.runner import run_write
from researchapp.pipeline.runner.academic import store_paper
from researchapp.pipeline.runner.hypotheses import run_hypotheses
from researchapp.providers.academic import Paper
from reviews.services import hypothesis_decide
from tests.factories import EvidenceFactory, FindingEvidenceFactory, FindingFactory, evidence_review_task
from tests.helpers import client_for
from tests.report_checks import pdf_words

pytestmark = pytest.mark.django_db
Status = ResearchTask.Status
ABSTRACT = (
    "Tram ridership surveys undercount riders by a quarter on average. Automatic counters are more reliable."
)
PAPER = Paper(
    provider="openalex",
    title="Counting tram riders: surveys versus automatic counters",
    url="https://doi.org/10.5555/tram.2022.3",
    doi="10.5555/tram.2022.3",
    authors=("Mara Okafor", "Jun Sato", "Ines Duarte", "Piet de Vries"),
    venue="Journal of Transit Data",
    year=2022,
    text=ABSTRACT,
)


@pytest.fixture
def written(researcher, analyst):
    """The tram task with a paper cited by a supported finding, its hypotheses proposed and one
    accepted at the evidence gate, then written."""
    scenario = evidence_review_task(researcher)
    task = scenario.task
    sq1, sq2, _ = scenario.plan.subquestions.order_by("order")
    source = store_paper(task, PAPER, subquestion=sq1, round=1)
    quote = "Automatic counters are more reliable."
    paper_evidence = EvidenceFactory(
        source=source, subquestion=sq1, start=ABSTRACT.index(quote), length=len(quote), score=1.0
    )
    paper_finding = FindingFactory(subquestion=sq1, status="supported", statement=quote, confidence="medium")
    FindingEvidenceFactory(finding=paper_finding, evidence=paper_evidence)
    run_hypotheses(task)
    accepted = Hypothesis.objects.get(task=task, key=f"conflict:{scenario.conflict.pk}")
    hypothesis_decide(hypothesis=accepted, actor=analyst, decision="accept", version_seen=1,
                      note="Counters are audited.")  # fmt: skip
    ResearchTask.objects.filter(pk=task.pk).update(status=Status.WRITING)
    draft = run_write(task)
    draft.refresh_from_db()
    return scenario, draft, paper_evidence, accepted


def test_the_draft_has_a_hypotheses_section_with_both_sides_and_the_verdict(written):
    scenario, draft, paper_evidence, accepted = written
    e1, e2, _ = scenario.evidence
    # then the stored structure holds every hypothesis with its passages
    hypotheses = draft.document["hypotheses"]
    assert [h["hypothesis_id"] for h in hypotheses] == list(
        Hypothesis.objects.filter(task=scenario.task).order_by("id").values_list("pk", flat=True)
    )
    tested = next(h for h in hypotheses if h["hypothesis_id"] == accepted.pk)
    assert tested["passages"] == [
        {"evidence_id": e1.pk, "role": "for"},
        {"evidence_id": e2.pk, "role": "against"},
    ]
    assert tested["decision"]["resolution"] == "accepted" and tested["decision"]["by"] == "analyst"
    # and the draft's Markdown says so
    assert "## Hypotheses tested" in draft.markdown
    assert f"For E{e1.pk}: “{e1.quote}”" in draft.markdown
    assert f"Against E{e2.pk}: “{e2.quote}”" in draft.markdown
    assert "Decision: accepted (by analyst" in draft.markdown and "Counters are audited." in draft.markdown
    # and the draft's references name the paper as a paper
    reference = (
        "Mara Okafor, Jun Sato, Ines Duarte et al. · Journal of Transit Data · 2022 · DOI 10.5555/tram.2022.3"
    )
    assert (
        f"[E{paper_evidence.pk}] “{paper_evidence.quote}” — {PAPER.title}, {reference}, https"
        in draft.markdown
    )
    # and the checks still pass: a hypothesis is a record, not a claim
    assert draft.status == "checked", draft.check_issues


def test_the_report_model_quotes_each_side_and_lists_the_paper_with_its_reference(written):
    scenario, draft, paper_evidence, accepted = written
    report = report_of(draft)
    record = next(r for r in report.hypotheses if r.heading.text == accepted.statement)
    assert [shown.label for shown in record.passages] == [f"For E{e.pk}" for e in scenario.evidence[:1]] + [
        f"Against E{scenario.evidence[1].pk}"
    ]
    assert all(shown.quote is not None for shown in record.passages)
    assert ("hypotheses", "Hypotheses tested") in report.contents()
    paper = next(ref for ref in report.references if ref.doi)
    assert (paper.doi, paper.venue, paper.year) == ("10.5555/tram.2022.3", "Journal of Transit Data", 2022)
    assert paper.byline == "Mara Okafor, Jun Sato, Ines Duarte et al. · Journal of Transit Data · 2022"
    assert paper.doi_link == "https://doi.org/10.5555/tram.2022.3"
    web = next(ref for ref in report.references if not ref.doi)
    assert not web.is_paper


def test_the_markdown_export_shows_doi_authors_venue_and_year(written):
    _, draft, _, accepted = written
    markdown = render_markdown(draft)
    line = next(
        line for line in markdown.splitlines() if "Counting tram riders" in line and "accessed" in line
    )
    assert "Mara Okafor, Jun Sato, Ines Duarte et al. · Journal of Transit Data · 2022" in line
    # ("10." would open a numbered list at the start of a line: escaped wherever text is written)
    assert "DOI [10\\.5555/tram.2022.3](<https://doi.org/10.5555/tram.2022.3>)" in line
    assert "## Hypotheses tested" in markdown and "Would refute it:" in markdown


def test_the_report_page_shows_the_reference_and_the_hypotheses(written, analyst):
    scenario, _, _, accepted = written
    ResearchTask.objects.filter(pk=scenario.task.pk).update(status=Status.AWAITING_REPORT_REVIEW)
    body = client_for(analyst).get(reverse("report_view", args=[scenario.task.pk])).content.decode()
    assert 'data-testid="report-hypotheses"' in body and 'data-testid="hypothesis-record"' in body
    assert 'data-testid="paper-reference"' in body
    link = '<a href="https://doi.org/10.5555/tram.2022.3" rel="noopener noreferrer nofollow">'
    assert f"{link}10.5555/tram.2022.3</a>" in body


def test_the_pdf_shows_the_reference_and_the_hypotheses(written):
    _, draft, _, _ = written
    words = pdf_words(render_pdf(draft))
    assert "Hypotheses tested" in words
    assert "10.5555/tram.2022.3" in words and "Journal of Transit Data" in words


def test_hostile_reference_fields_are_escaped_in_every_format(researcher):
    # given a paper whose API sent markup in its authors and venue
    scenario = evidence_review_task(researcher)
    sq1 = scenario.plan.subquestions.order_by("order").first()
    hostile = Paper(**{**PAPER.__dict__, "authors": ("<img src=x onerror=alert(1)>", "*Bold*"),
                       "venue": "[click](javascript:alert(1))", "doi": "10.1/<b>"})  # fmt: skip
    source = store_paper(scenario.task, hostile, subquestion=sq1, round=1)
    quote = "Automatic counters are more reliable."
    evidence = EvidenceFactory(source=source, subquestion=sq1, start=ABSTRACT.index(quote), length=len(quote))
    finding = FindingFactory(subquestion=sq1, status="supported", statement=quote, confidence="medium")
    FindingEvidenceFactory(finding=finding, evidence=evidence)
    ResearchTask.objects.filter(pk=scenario.task.pk).update(status=Status.WRITING)
    draft = run_write(scenario.task)
    # then
    markdown = render_markdown(draft)
    assert "\\<img src=x onerror=alert(1)\\>" in markdown and "\\*Bold\\*" in markdown
    assert "\\[click\\](javascript:alert(1))" in markdown.replace("\\:", ":")
    assert "](<https://doi.org/10.1/<b>>)" not in markdown  # no link from an unsafe DOI
    ResearchTask.objects.filter(pk=scenario.task.pk).update(status=Status.AWAITING_REPORT_REVIEW)
    from django.test import Client  # noqa: F401  (the analyst's client below)

    from tests.factories import analyst_persona

    body = client_for(analyst_persona("reader")).get(reverse("report_view", args=[scenario.task.pk])).content
    assert b"<img src=x" not in body and b"&lt;img src=x onerror=alert(1)&gt;" in body


def test_the_json_ledger_holds_the_papers_reference_and_the_hypotheses(written):
    import json

    from researchapp.exports.ledger import ledger_json

    scenario, draft, paper_evidence, accepted = written
    data = json.loads(ledger_json(draft))
    paper = next(source for source in data["sources"] if source["id"] == paper_evidence.source_id)
    assert (paper["doi"], paper["venue"], paper["year"], paper["provider"]) == (
        "10.5555/tram.2022.3",
        "Journal of Transit Data",
        2022,
        "openalex",
    )
    assert paper["authors"] == list(PAPER.authors)
    web = next(source for source in data["sources"] if source["id"] == scenario.sources[0].pk)
    assert "doi" not in web
    verdict = next(h for h in data["hypotheses"] if h["id"] == accepted.pk)
    assert (verdict["status"], verdict["decided_by"], verdict["note"]) == (
        "accepted",
        "analyst",
        "Counters are audited.",
    )
    e1, e2, _ = scenario.evidence
    assert sorted((e["id"], e["stance"]) for e in verdict["evidence"]) == [
        (e1.pk, "support"),
        (e2.pk, "refute"),
    ]
