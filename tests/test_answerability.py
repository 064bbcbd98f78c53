"""Honest gaps: a question the corpus does not cover says so at the plan gate and ends [证据不足];
analysts see each passage's relevance, can flag or drop any finding or citation, and a send-back
comment changes the next draft."""

from __future__ import annotations

import json
from io import StringIO

import pytest
from django.core.management import call_command
from django.urls import reverse

from researchapp.core.enums import FindingStatus, Resolution, Stance
from researchapp.demo import DEMO_QUESTION
from researchapp.models import Evidence, Finding, FindingEvidence, ResearchTask
from researchapp.pipeline.values import CheckIssue, EvidenceLink, ReviewedFinding, SubQuestion
from researchapp.pipeline.values import Evidence as EvidenceValue
from researchapp.pipeline.writer.extractive import write_extractive
from reviews.services import finding_decide
from tests.factories import evidence_review_task
from tests.helpers import HTMX, client_for

pytestmark = pytest.mark.django_db
UNCOVERED = "Compare PostgreSQL and MySQL replication"


def research(tmp_path, question: str) -> dict:
    out = tmp_path / "out.json"
    call_command("demo_setup", stdout=StringIO())
    call_command(
        "research", question, "--auto-approve", "--json", str(out), stdout=StringIO(), stderr=StringIO()
    )
    return json.loads(out.read_text())


def test_a_question_the_corpus_does_not_cover_says_so_and_ends_with_every_item_a_gap(tmp_path, analyst):
    # when the demo corpus (home batteries) is asked about database replication, every gate approving
    data = research(tmp_path, UNCOVERED)
    task = ResearchTask.objects.get()

    # then the plan gate said that nothing covers it, per sub-question and for the whole plan
    plan = task.plans.get()
    assert all(sq.coverage["status"] == "uncovered" for sq in plan.subquestions.all())
    assert "'PostgreSQL'" in plan.subquestions.first().coverage["message"]
    page = client_for(analyst).get(reverse("plan_review", args=[task.pk])).content.decode()
    assert 'data-testid="plan-answerability" data-covered="none"' in page
    assert page.count('data-coverage="uncovered"') == plan.subquestions.count()

    # and every item ended [证据不足], none built from the battery pages
    assert data["status"] == "approved"
    assert {f["status"] for f in data["findings"]} == {"insufficient"}
    markdown = data["report"]["markdown"]
    assert "battery" not in markdown.split("## To verify")[0].lower()
    assert markdown.count("### [证据不足]") == plan.subquestions.count()

    # and each [证据不足] item links the closest passages found, marked as not evidence
    closest = Evidence.objects.filter(task=task)
    assert closest.exists() and not closest.filter(clears_bar=True).exists()
    assert FindingEvidence.objects.filter(finding__task=task).exists()
    review = client_for(analyst).get(reverse("evidence_review", args=[task.pk])).content.decode()
    assert 'data-testid="closest-passage"' in review and 'data-testid="searched"' in review
    context = client_for(analyst).get(reverse("evidence_context", args=[closest.first().pk]))
    assert "below the bar" in context.content.decode()


def test_the_demo_question_is_answered_first_and_its_evidence_shows_its_relevance(tmp_path, analyst):
    # when the demo question runs with every gate approving
    data = research(tmp_path, DEMO_QUESTION)
    task = ResearchTask.objects.get()
    # then the plan compares on what the demo pages discuss, after the criterion the question names
    # (fire safety, which no page mentions: an honest gap), and not on risks no page speaks to
    texts = [sq.text for sq in task.plans.get().subquestions.all()]
    assert texts[0].endswith("differ in fire safety?") and "differ in cost?" in texts[1]
    assert not any("risks" in text for text in texts)
    gap = Finding.objects.get(task=task, status="insufficient")
    assert gap.subquestion.text == texts[0]
    # then the report opens with a direct answer, each sentence cited
    answer = data["report"]["markdown"].split("## Answer")[1].split("\n## ")[0]
    assert "[E" in answer and "Kestrel" in answer and "Osprey" in answer
    # and every piece of evidence carries its relevance and what it matched
    kept = Evidence.objects.filter(task=task, clears_bar=True)
    assert kept.exists() and all(e.relevance > 0 and e.matched_terms for e in kept)
    review = client_for(analyst).get(reverse("evidence_review", args=[task.pk])).content.decode()
    assert 'data-testid="relevance"' in review and "matched:" in review


def test_an_analyst_can_flag_a_supported_finding_and_drop_a_citation(researcher, analyst):
    # given the evidence gate with a conflict, a [证据不足] item and a supported finding
    scenario = evidence_review_task(researcher)
    conflict, supported = scenario.conflict, scenario.supported
    e1, _, _ = scenario.evidence
    client = client_for(analyst)
    url = reverse("evidence_review", args=[scenario.task.pk])
    # when the analyst drops one side's citation of the conflict over HTMX
    response = client.post(
        url,
        {"finding": conflict.pk, "version": conflict.version, "decision": "drop_citation", "evidence": e1.pk},
        **HTMX,
    )
    # then that citation is set aside, the item is still to decide, and its version moved on
    assert response.status_code == 200
    conflict.refresh_from_db()
    assert not FindingEvidence.objects.get(finding=conflict, evidence=e1).kept
    assert conflict.resolution == "" and conflict.version == 2
    # when the analyst flags the supported finding as a point to verify
    page = client.get(url).content.decode()
    assert 'data-testid="decide-flag"' in page and 'data-testid="drop-citation"' in page
    finding_decide(finding=supported, actor=analyst, decision="flag", version_seen=supported.version)
    # then it is reported to verify, not as fact
    supported.refresh_from_db()
    assert supported.resolution == Resolution.GAP


def test_dropping_the_last_citation_drops_the_finding(researcher, analyst):
    scenario = evidence_review_task(researcher)
    supported = scenario.supported
    [link] = supported.links.all()
    finding_decide(
        finding=supported,
        actor=analyst,
        decision="drop_citation",
        version_seen=supported.version,
        evidence_id=link.evidence_id,
    )
    supported.refresh_from_db()
    assert supported.resolution == Resolution.DROPPED
    assert Finding.objects.filter(task=scenario.task, status=FindingStatus.SUPPORTED).get() == supported


def test_a_send_back_comment_changes_the_extractive_draft() -> None:
    # given a draft whose claims are about batteries, for a question about databases
    question = "How does PostgreSQL replicate data?"
    subquestion = SubQuestion(1, question, (question,))
    quotes = [
        "PostgreSQL replicates data by streaming its write-ahead log to standby servers.",
        "The Kestrel home battery stores 10 kWh of energy for the house.",
    ]
    evidence = [
        EvidenceValue(i + 1, i + 1, 1, 0, len(q), q, 1.0 - i / 10, cluster=f"c{i}")
        for i, q in enumerate(quotes)
    ]
    findings = [
        ReviewedFinding(i + 1, 1, FindingStatus.SUPPORTED, q, "medium", Resolution.NONE,
                        (EvidenceLink(i + 1, Stance.SUPPORTS),), (evidence[i],))
        for i, q in enumerate(quotes)
    ]  # fmt: skip
    first = write_extractive(question, [subquestion], findings)
    assert any("battery" in claim.text for claim in first.claims)
    # when an analyst sends it back saying what is wrong, without naming a claim
    comment = CheckIssue("analyst_feedback", "These are about batteries, not about databases.")
    revised = write_extractive(question, [subquestion], findings, feedback=[comment])
    # then the next draft leaves those claims out and keeps the rest
    assert not any("battery" in claim.text for claim in revised.claims)
    assert any("write-ahead log" in claim.text for claim in revised.claims)
