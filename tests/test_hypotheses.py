"""Hypotheses: proposed after the first round (extractively or by a model), stored with the evidence
on each side, decided by analysts at the evidence gate (stale versions refused), reported."""

from __future__ import annotations

import re

import pytest
from django.core.exceptions import ValidationError
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from researchapp.core.enums import FindingStatus, HypothesisStance, Resolution, Stance
from researchapp.models import Event, Hypothesis, HypothesisEvidence, ResearchTask, StaleState
from researchapp.pipeline.analyser.hypotheses import (
    HypothesisLink,
    ModelHypothesisProposer,
    hypotheses_from_answer,
    propose_extractive,
)
from researchapp.pipeline.runner.hypotheses import run_hypotheses
from researchapp.pipeline.values import Evidence, EvidenceLink, ReviewedFinding, UsageLog
from researchapp.providers.chat.openai import OpenAIChat
from researchapp.services.hypotheses import hypothesis_decide
from reviews import services as review_services
from reviews.models import ReviewDecision
from tests.factories import EvidenceFactory, analyst_persona, evidence_review_task
from tests.helpers import HTMX, client_for
from tests.model_stages import KEY
from tests.stubs.openai_api import StubOpenAI, by_stage

Status = ResearchTask.Status


def evidence(evidence_id: int, quote: str) -> Evidence:
    return Evidence(evidence_id, 1, 1, 0, len(quote), quote, 1.0)


def finding(finding_id: int, status: FindingStatus, statement: str, links, *, confidence="medium"):
    return ReviewedFinding(
        id=finding_id,
        subquestion_id=1,
        status=status,
        statement=statement,
        confidence=confidence,
        resolution=Resolution.NONE,
        links=tuple(EvidenceLink(i, stance) for i, stance in links),
        evidence=tuple(evidence(i, f"quote {i}") for i, _ in links),
    )


CONFLICT = finding(
    7,
    FindingStatus.CONFLICT,
    "Sources disagree on the round-trip efficiency of Kestrel S1: 92 percent vs 85 percent",
    [(1, Stance.SUPPORTS), (2, Stance.CONTRADICTS)],
)
SINGLE = finding(8, FindingStatus.SUPPORTED, "The plant opened in 2021.", [(3, Stance.SUPPORTS)])
AGREED = finding(9, FindingStatus.SUPPORTED, "It cost 40 million.", [(4, Stance.SUPPORTS)], confidence="high")
GAP = finding(10, FindingStatus.INSUFFICIENT, "[证据不足] How long it lasts", [])


# --- the extractive proposer --------------------------------------------------------------------


def test_it_proposes_one_hypothesis_per_conflict_with_both_sides():
    # when
    [hypothesis] = propose_extractive("q", [CONFLICT])
    # then the first side's figure is the hypothesis, its quotes support it, the other side's refute it
    assert hypothesis.key == "conflict:7"
    assert hypothesis.statement == "The round-trip efficiency of Kestrel S1 is 92 percent, not 85 percent"
    assert "92 percent" in hypothesis.supports_if and "85 percent" in hypothesis.refutes_if
    assert hypothesis.links == (
        HypothesisLink(1, HypothesisStance.SUPPORT),
        HypothesisLink(2, HypothesisStance.REFUTE),
    )


def test_it_reads_a_chinese_conflict():
    conflict = finding(
        11, FindingStatus.CONFLICT, "来源在储能系统的效率上存在分歧：92% 对 85%", [(1, Stance.SUPPORTS)]
    )
    [hypothesis] = propose_extractive("问题", [conflict])
    assert hypothesis.statement == "储能系统的效率是92%，而不是85%"


def test_it_tests_single_source_findings_and_leaves_agreed_ones_and_gaps_alone():
    # when
    proposed = propose_extractive("q", [GAP, AGREED, SINGLE, CONFLICT])
    # then conflicts first, then findings that rest on one source; nothing for gaps or agreed findings
    assert [h.key for h in proposed] == ["conflict:7", "single-source:8"]
    assert proposed[1].statement == "The plant opened in 2021."
    assert proposed[1].links == (HypothesisLink(3, HypothesisStance.SUPPORT),)


def test_it_is_deterministic_bounded_and_free_of_duplicates():
    findings = [
        finding(i, FindingStatus.SUPPORTED, f"Claim {i % 3}.", [(i, Stance.SUPPORTS)]) for i in range(20)
    ]
    first = propose_extractive("q", findings, limit=5)
    assert first == propose_extractive("q", findings, limit=5)
    assert [h.statement for h in first] == ["Claim 0.", "Claim 1.", "Claim 2."]


# --- the model proposer -------------------------------------------------------------------------


def test_it_drops_invented_ids_and_duplicate_hypotheses_from_a_model_answer():
    answer = {
        "hypotheses": [
            {"statement": "A is cheaper.", "supports_if": "s", "refutes_if": "r",
             "evidence": [{"id": 1, "stance": "support"}, {"id": 99, "stance": "support"},
                          {"id": 2, "stance": "refute"}, {"id": True, "stance": "refute"}]},
            {"statement": "a is  CHEAPER", "supports_if": "s", "refutes_if": "r", "evidence": []},
            {"statement": "B lasts longer.", "supports_if": "s2", "refutes_if": "r2",
             "evidence": [{"id": 2, "stance": "maybe"}]},
        ]
    }  # fmt: skip
    # when
    proposed = hypotheses_from_answer(answer, {1, 2})
    # then
    assert [h.statement for h in proposed] == ["A is cheaper.", "B lasts longer."]
    assert proposed[0].links == (
        HypothesisLink(1, HypothesisStance.SUPPORT),
        HypothesisLink(2, HypothesisStance.REFUTE),
    )
    assert proposed[1].links == ()
    assert proposed[0].key == hypotheses_from_answer(answer, {1, 2})[0].key  # stable


def test_the_model_proposer_shows_findings_as_untrusted_data_and_bounds_ids():
    # given a stub model that answers with a hypothesis citing a shown passage
    answer = {"hypotheses": [{"statement": "92 percent holds.", "supports_if": "s", "refutes_if": "r",
                              "evidence": [{"id": 1, "stance": "support"}]}]}  # fmt: skip
    with StubOpenAI(by_stage(hypotheses=answer), api_key=KEY) as llm:
        proposer = ModelHypothesisProposer(OpenAIChat(KEY, base_url=llm.base_url, max_retries=0), model="m")
        usage = UsageLog()
        # when
        [hypothesis] = proposer.propose("How efficient is it?", [CONFLICT, GAP], usage=usage)
        request = llm.requests[0].json
    # then
    assert hypothesis.links == (HypothesisLink(1, HypothesisStance.SUPPORT),)
    schema = request["response_format"]["json_schema"]["schema"]
    id_schema = schema["properties"]["hypotheses"]["items"]["properties"]["evidence"]["items"]["properties"][
        "id"
    ]
    assert id_schema["enum"] == [1, 2]
    prompt = request["messages"][1]["content"]
    assert "<untrusted_source" in prompt and "How long it lasts" not in prompt  # gaps are not shown
    assert [call.stage for call in usage.calls] == ["hypotheses"]


# --- stored --------------------------------------------------------------------------------------


@pytest.fixture
def gate(researcher):
    return evidence_review_task(researcher)


@pytest.mark.django_db
def test_it_stores_hypotheses_once_with_their_evidence(gate):
    # when proposed twice (a redelivered stage)
    first = run_hypotheses(gate.task)
    second = run_hypotheses(gate.task)
    # then stored once: the conflict and the single-source finding, each with its evidence
    assert [h.pk for h in first] == [h.pk for h in second]
    assert Hypothesis.objects.filter(task=gate.task).count() == 2
    e1, e2, e3 = gate.evidence
    conflict = Hypothesis.objects.get(task=gate.task, key=f"conflict:{gate.conflict.pk}")
    assert set(conflict.links.values_list("evidence_id", "stance")) == {
        (e1.pk, HypothesisStance.SUPPORT),
        (e2.pk, HypothesisStance.REFUTE),
    }
    assert conflict.status == "open" and conflict.proposed_by == "extractive"
    assert Event.objects.filter(task=gate.task, message__startswith="2 hypotheses proposed").count() == 1


@pytest.mark.django_db
def test_it_links_no_evidence_of_another_task(gate, researcher):
    # given a model that cites an evidence id of another task (the enum only allows shown ids,
    # but a server may not enforce it)
    stranger = EvidenceFactory()
    from researchapp.pipeline.analyser.hypotheses import ProposedHypothesis
    from researchapp.pipeline.runner.hypotheses import store_hypothesis

    proposed = ProposedHypothesis(
        "k", "S.", "s", "r", (HypothesisLink(stranger.pk, HypothesisStance.SUPPORT),)
    )
    # when
    row = store_hypothesis(gate.task, proposed, proposed_by="model")
    # then
    assert not HypothesisEvidence.objects.filter(hypothesis=row).exists()


@pytest.mark.django_db
def test_with_the_model_engine_it_falls_back_to_extractive_hypotheses_with_a_warning(gate, settings):
    # given a model whose answers are never valid
    with StubOpenAI(by_stage(hypotheses="not json"), api_key=KEY) as llm:
        settings.RESEARCH = {**settings.RESEARCH, "OPENAI_API_KEY": KEY, "OPENAI_BASE_URL": llm.base_url}
        ResearchTask.objects.filter(pk=gate.task.pk).update(engine="openai")
        gate.task.refresh_from_db()
        # when
        stored = run_hypotheses(gate.task)
    # then
    assert [h.proposed_by for h in stored] == ["extractive", "extractive"]
    warning = Event.objects.get(task=gate.task, kind=Event.Kind.WARNING, data__code="hypotheses_failed")
    assert "rejected twice" in warning.message
    assert gate.task.llm_calls.filter(stage="hypotheses", ok=False).count() == 2


# --- decided ---------------------------------------------------------------------------------------


@pytest.fixture
def hypothesis(gate) -> Hypothesis:
    run_hypotheses(gate.task)
    return Hypothesis.objects.get(task=gate.task, key=f"conflict:{gate.conflict.pk}")


@pytest.mark.django_db
def test_an_analyst_accepts_a_hypothesis_and_the_audit_says_so(analyst, hypothesis):
    # when
    record = review_services.hypothesis_decide(
        hypothesis=hypothesis,
        actor=analyst,
        decision="accept",
        version_seen=1,
        note=" The authority's count is audited. ",
    )
    # then
    hypothesis.refresh_from_db()
    assert (hypothesis.status, hypothesis.version, hypothesis.decided_by) == ("accepted", 2, analyst)
    assert hypothesis.note == "The authority's count is audited."
    assert (record.object_type, record.object_id, record.decision) == ("hypothesis", hypothesis.pk, "accept")
    event = record.events.get()
    assert {key: value for key, value in event.data.items() if key != "said"} == {
        "hypothesis": hypothesis.pk,
        "decision": "accept",
    }
    assert event.text == f"Hypothesis {hypothesis.pk}: accepted. — The authority's count is audited."


@pytest.mark.django_db
def test_a_decision_on_a_stale_version_is_refused(analyst, hypothesis):
    # given another analyst decided first
    other = analyst_persona("analyst2")
    review_services.hypothesis_decide(hypothesis=hypothesis, actor=other, decision="reject", version_seen=1)
    # when / then
    with pytest.raises(StaleState, match="analyst2 changed or decided this item first"):
        review_services.hypothesis_decide(
            hypothesis=hypothesis, actor=analyst, decision="accept", version_seen=1
        )
    hypothesis.refresh_from_db()
    assert hypothesis.status == "rejected"
    assert ReviewDecision.objects.filter(object_type="hypothesis").count() == 1
    # and a verdict can be changed by whoever saw the latest version
    review_services.hypothesis_decide(
        hypothesis=hypothesis, actor=analyst, decision="keep_open", version_seen=2
    )
    hypothesis.refresh_from_db()
    assert (hypothesis.status, hypothesis.version) == ("open", 3)


@pytest.mark.django_db
def test_decisions_need_the_evidence_gate_and_a_known_decision(analyst, hypothesis):
    with pytest.raises(ValidationError):
        hypothesis_decide(hypothesis=hypothesis, actor=analyst, decision="maybe", version_seen=1)
    ResearchTask.objects.filter(pk=hypothesis.task_id).update(status=Status.WRITING)
    hypothesis.task.refresh_from_db()
    with pytest.raises(StaleState, match="not under review"):
        hypothesis_decide(hypothesis=hypothesis, actor=analyst, decision="accept", version_seen=1)
    hypothesis.refresh_from_db()
    assert hypothesis.status == "open"


# --- the view --------------------------------------------------------------------------------------


@pytest.mark.django_db
def test_an_analyst_decides_over_htmx_and_sees_the_stored_verdict(analyst, hypothesis):
    url = reverse("hypotheses_review", args=[hypothesis.task_id])
    data = {"hypothesis": hypothesis.pk, "version": 1, "decision": "reject", "note": "Counted twice."}
    # when
    response = client_for(analyst).post(url, data, **HTMX)
    # then the partial, re-rendered from what is stored
    body = response.content.decode()
    assert response.status_code == 200 and "<html" not in body
    assert f'data-hypothesis="{hypothesis.pk}" data-status="rejected"' in body
    assert "Counted twice." in body and "Recorded for hypothesis" in body
    # and a second post of the same version is refused with the reason, nothing changed
    again = client_for(analyst).post(url, {**data, "decision": "accept"}, **HTMX).content.decode()
    assert f"{analyst.username} changed or decided this item first" in again
    assert Hypothesis.objects.get(pk=hypothesis.pk).status == "rejected"


@pytest.mark.django_db
def test_a_researcher_cannot_decide_and_an_outsider_cannot_see(researcher, outsider, hypothesis):
    url = reverse("hypotheses_review", args=[hypothesis.task_id])
    data = {"hypothesis": hypothesis.pk, "version": 1, "decision": "accept"}
    assert client_for(researcher).post(url, data, **HTMX).status_code == 403
    assert client_for(outsider).get(url, **HTMX).status_code == 404
    assert client_for(researcher).get(url, **HTMX).status_code == 200  # the owner reads them
    assert Hypothesis.objects.get(pk=hypothesis.pk).status == "open"


@pytest.mark.django_db
def test_without_htmx_it_is_a_page_and_a_decision_redirects_back_to_it(analyst, hypothesis):
    url = reverse("hypotheses_review", args=[hypothesis.task_id])
    data = {"hypothesis": hypothesis.pk, "version": 1, "decision": "keep_open"}
    response = client_for(analyst).post(url, data, follow=True)
    assert response.redirect_chain == [(url, 302)]
    body = response.content.decode()
    assert "<html" in body and f'data-hypothesis="{hypothesis.pk}" data-status="open"' in body
    assert "Recorded for hypothesis" in body
    assert Hypothesis.objects.get(pk=hypothesis.pk).decided_by == analyst


@pytest.mark.django_db
def test_the_partial_takes_the_same_queries_for_many_hypotheses(analyst, gate):
    run_hypotheses(gate.task)
    url = reverse("hypotheses_review", args=[gate.task.pk])
    client = client_for(analyst)

    def queries() -> int:
        with CaptureQueriesContext(connection) as captured:
            assert client.get(url, **HTMX).status_code == 200
        return len(captured)

    few = queries()
    e1, e2, _ = gate.evidence
    for i in range(6):
        row = Hypothesis.objects.create(task=gate.task, key=f"more-{i}", statement=f"H{i}", supports_if="s",
                                        refutes_if="r")  # fmt: skip
        HypothesisEvidence.objects.create(hypothesis=row, evidence=e1, stance="support")
        HypothesisEvidence.objects.create(hypothesis=row, evidence=e2, stance="refute")
    assert queries() == few


def test_a_conflict_worded_by_a_model_is_tested_as_it_stands():
    conflict = finding(
        12, FindingStatus.CONFLICT, "The tram carries 42,000 riders a day.", [(1, Stance.SUPPORTS)]
    )
    [hypothesis] = propose_extractive("q", [conflict])
    assert hypothesis.statement == "The tram carries 42,000 riders a day."
    assert "otherwise" in hypothesis.refutes_if


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
def test_in_the_browser_an_analyst_accepts_a_hypothesis_and_opens_its_quote(live_server, researcher, analyst):
    from tests.browser import chromium_page, log_in

    # given the tram task's hypotheses
    scenario = evidence_review_task(researcher)
    run_hypotheses(scenario.task)
    hypothesis = Hypothesis.objects.get(task=scenario.task, key=f"conflict:{scenario.conflict.pk}")
    supports = scenario.evidence[0]
    with chromium_page(live_server.url) as page:
        page.add_init_script("window.htmxErrors = []; document.addEventListener('htmx:targetError', "
                             "e => window.htmxErrors.push(e.type));")  # fmt: skip
        log_in(page, analyst.username)
        page.goto(reverse("hypotheses_review", args=[scenario.task.pk]))
        card = page.locator(f'[data-testid="hypothesis"][data-hypothesis="{hypothesis.pk}"]')
        # when the analyst reads the supporting quote in its source, then accepts with a note
        card.get_by_test_id("hypothesis-support").get_by_test_id("evidence-link").click()
        page.wait_for_selector(f'#side-panel [data-testid="evidence-context"][data-evidence="{supports.pk}"]')
        page.locator("#side-panel [data-close-panel]").click()  # the panel covers the page's right side
        card.get_by_test_id("hypothesis-note").fill("The authority's count is audited.")
        card.get_by_test_id("hypothesis-accept").click()
        # then the card shows the stored verdict, swapped in place
        page.wait_for_selector(
            f'[data-testid="hypothesis"][data-hypothesis="{hypothesis.pk}"][data-status="accepted"]'
        )
        assert "The authority's count is audited." in card.get_by_test_id("hypothesis-status").inner_text()
        assert page.evaluate("window.htmxErrors") == []
    hypothesis.refresh_from_db()
    assert (hypothesis.status, hypothesis.decided_by) == ("accepted", analyst)


@pytest.mark.django_db
def test_the_partial_renders_included_in_another_page_with_the_selectors_context(analyst, hypothesis):
    # given the include line the evidence review adds, and the context its view adds
    from django.template import engines
    from django.test import RequestFactory

    from reviews.selectors.hypotheses import hypotheses_context

    page = engines["django"].from_string('<main>{% include "partials/hypotheses.html" %}</main>')
    request = RequestFactory().get("/")
    request.user = analyst
    task = hypothesis.task
    # when
    html = page.render({"task": task, **hypotheses_context(task, analyst)}, request)
    # then every hypothesis is there with its buttons, and the page's own messages are left to it
    assert html.count('data-testid="hypothesis"') == 2
    assert 'data-testid="hypothesis-accept"' in html
    assert 'data-testid="messages"' not in html


@pytest.mark.django_db
def test_the_evidence_gate_shows_the_hypotheses_with_their_decision_forms(analyst, researcher, hypothesis):
    page = client_for(analyst).get(reverse("evidence_review", args=[hypothesis.task_id])).content.decode()
    assert f'data-hypothesis="{hypothesis.pk}" data-status="open"' in page
    assert reverse("hypotheses_review", args=[hypothesis.task_id]) in page  # the analyst's form
    owner_view = client_for(researcher).get(reverse("evidence_review", args=[hypothesis.task_id]))
    assert f'data-hypothesis="{hypothesis.pk}"' in owner_view.content.decode()
    assert reverse("hypotheses_review", args=[hypothesis.task_id]) not in owner_view.content.decode()


@pytest.mark.django_db
def test_each_hypothesis_is_an_item_card_with_decision_keys(analyst, hypothesis):
    # the desk's keys work on hypotheses as on findings: j/k move to the card, y/x/o decide, n the note
    body = client_for(analyst).get(reverse("evidence_review", args=[hypothesis.task_id])).content.decode()
    card = body.split(f'data-item="hypothesis-{hypothesis.pk}"')[1].split("</article>")[0]
    for testid, key in (("accept", "y"), ("reject", "x"), ("keep-open", "o"), ("note", "n")):
        assert re.search(rf'data-testid="hypothesis-{testid}" data-shortcut="{key}"', card), testid
