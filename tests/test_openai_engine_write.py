"""The model-backed writer, and a whole plan → analyse → write run on the stub's default answers."""

from __future__ import annotations

import re

import pytest

from researchapp.core.enums import FindingStatus, Resolution, Stance
from researchapp.pipeline.checker.mechanical import check_draft
from researchapp.pipeline.values import (
    Brief,
    CheckIssue,
    Evidence,
    EvidenceLink,
    Ledger,
    ReviewedFinding,
    SubQuestion,
    UsageLog,
)
from researchapp.providers.base import ProviderError
from tests.model_stages import make_engine
from tests.stubs.openai_api import StubOpenAI, by_stage

EFFICIENCY = SubQuestion(id=7, text="How efficient are heat pumps?", queries=("heat pump COP",), order=0)
COST = SubQuestion(id=8, text="What do heat pumps cost?", queries=("heat pump cost",), order=1)


def evidence(evidence_id: int, quote: str, subquestion: SubQuestion = EFFICIENCY) -> Evidence:
    return Evidence(
        id=evidence_id, source_id=evidence_id * 10, subquestion_id=subquestion.id, start=0, end=len(quote),
        quote=quote, score=1.0,
        source_url=f"https://s{evidence_id}.example/", cluster=f"s{evidence_id}.example",
    )  # fmt: skip


COP = evidence(12, "The survey measured a seasonal COP of 3.2 in 2023. Waits were shorter.")
COLD = evidence(15, "In colder homes the COP fell to 2.7 on average.")
PRICE = evidence(21, "A typical installation cost 11,500 euros in 2024.", COST)


def finding(
    finding_id: int,
    subquestion: SubQuestion,
    *items: Evidence,
    status: FindingStatus = FindingStatus.SUPPORTED,
    resolution: Resolution = Resolution.NONE,
    stances: tuple[Stance, ...] = (),
) -> ReviewedFinding:
    links = tuple(
        EvidenceLink(item.id, stances[n] if stances else Stance.SUPPORTS) for n, item in enumerate(items)
    )
    return ReviewedFinding(
        id=finding_id, subquestion_id=subquestion.id, status=status, statement=f"Statement {finding_id}",
        confidence="medium", resolution=resolution, links=links, evidence=items,
    )  # fmt: skip


SUPPORTED = finding(1, EFFICIENCY, COP)
DISPUTED = finding(2, EFFICIENCY, COP, COLD, status=FindingStatus.CONFLICT, resolution=Resolution.DISPUTED,
                   stances=(Stance.SUPPORTS, Stance.CONTRADICTS))  # fmt: skip
PICKED = finding(3, COST, PRICE, status=FindingStatus.CONFLICT, resolution=Resolution.PICKED)
GAP = ReviewedFinding(id=4, subquestion_id=COST.id, status=FindingStatus.INSUFFICIENT,
                      statement="[证据不足] x", confidence="", resolution=Resolution.GAP, links=(),
                      evidence=())  # fmt: skip


def test_it_writes_claims_for_findings_stated_as_fact(llm: StubOpenAI) -> None:
    # given a supported finding, a disputed one, a picked conflict and a gap
    usage = UsageLog()
    # when
    draft = make_engine(llm).write(
        "Are heat pumps worth it?", [EFFICIENCY, COST], [SUPPORTED, DISPUTED, PICKED, GAP], usage=usage
    )
    # then the model saw only the findings the body states, with their quotes wrapped as untrusted
    prompt = llm.prompt_text()
    assert (
        f'<untrusted_source id="E12" stance="supports" url="https://s12.example/">{COP.quote}</untrusted_source>'
        in prompt
    )
    assert PRICE.quote in prompt
    assert COLD.quote not in prompt  # only the disputed finding cites it: the writer renders that section
    assert "[证据不足]" not in prompt
    # and its claims came back verbatim from the quotes and cite them
    body_claims = [claim for claim in draft.claims if claim.section in {"7", "8"}]
    assert [(claim.section, claim.evidence_ids) for claim in body_claims] == [("7", (12,)), ("8", (21,))]
    assert (
        body_claims[0].text == "The survey measured a seasonal COP of 3.2 in 2023."
        and body_claims[0].text in draft.markdown
    )
    assert [(call.stage, call.ok) for call in usage.calls] == [("write", True)]


def test_it_asks_the_model_to_fix_the_checkers_problems(llm: StubOpenAI) -> None:
    # given issues from the mechanical check of the previous draft
    feedback = [CheckIssue("number_not_in_quote", "3.5 does not appear in E12", claim_index=0),
                CheckIssue("uncovered", "sub-question 8 has no claim")]  # fmt: skip
    # when
    make_engine(llm).write("q?", [EFFICIENCY, COST], [SUPPORTED, PICKED], feedback=feedback, usage=UsageLog())
    # then
    prompt = llm.prompt_text()
    assert "<problems_to_fix>" in prompt
    assert "- [number_not_in_quote] (claim 0) 3.5 does not appear in E12" in prompt
    assert "- [uncovered] sub-question 8 has no claim" in prompt


def test_it_rejects_a_claim_citing_evidence_outside_the_body(llm: StubOpenAI) -> None:
    # given a model that cites the disputed finding's other side (E15) as fact
    llm.responder = by_stage(
        write={"claims": [{"section": "7", "text": "COP fell to 2.7.", "evidence_ids": [15]}]}
    )
    # when
    with pytest.raises(ProviderError) as raised:
        make_engine(llm).write("q?", [EFFICIENCY], [SUPPORTED, DISPUTED], usage=UsageLog())
    # then
    assert raised.value.code == "malformed_output"
    assert "evidence id 15, which was not given; cite only: 12" in raised.value.message
    assert len(llm.chats) == 2


def test_it_rejects_a_claim_for_an_unknown_section(llm: StubOpenAI) -> None:
    # given a first answer filed under a section that does not exist, then the default answer
    answers = iter([{"claims": [{"section": "Efficiency", "text": "x", "evidence_ids": [12]}]}])
    llm.responder = by_stage(write=lambda request: next(answers, None) or _verbatim_claims())
    # when
    draft = make_engine(llm).write("q?", [EFFICIENCY], [SUPPORTED], usage=UsageLog())
    # then
    assert "section 'Efficiency' is not a sub-question id" in llm.chats[1]["messages"][-1]["content"]
    assert [claim.evidence_ids for claim in draft.claims if claim.section == "7"] == [(12,)]


def _verbatim_claims() -> dict[str, object]:
    return {
        "claims": [
            {
                "section": "7",
                "text": "The survey measured a seasonal COP of 3.2 in 2023.",
                "evidence_ids": [12],
            }
        ]
    }


def test_it_renders_without_asking_when_nothing_is_stated_as_fact(llm: StubOpenAI) -> None:
    # given only a disputed finding and a gap
    usage = UsageLog()
    # when
    draft = make_engine(llm).write("q?", [EFFICIENCY, COST], [DISPUTED, GAP], usage=usage)
    # then
    assert llm.chats == [] and usage.calls == []
    assert not [claim for claim in draft.claims if claim.section in {"7", "8"}]


# --- a whole run on the default responder -----------------------------------------------------

PAGES = {
    1: "Grid-scale batteries stored 42 GWh in 2024, up from 15 GWh in 2022. "
    "Most new capacity was lithium iron phosphate.",
    2: "Costs fell sharply. "
    "The average pack price dropped 20% in 2024 to 115 dollars per kWh, according to the survey.",
    3: "Fire incidents remain rare: 12 were reported worldwide in 2023.\n"
    "Safety codes now require spacing between units.",
}
_NUMBER = re.compile(r"\d+(?:[.,]\d+)*%?")


def test_it_runs_plan_analyse_write_into_claims_that_quote_their_sources(llm: StubOpenAI) -> None:
    # given the default responder and one passage per sub-question
    engine, usage = make_engine(llm), UsageLog()
    plan = engine.plan("How are grid batteries developing?", depth="quick", usage=usage)
    subquestions = [SubQuestion(id=100 + n, text=sq.text, queries=sq.queries, order=n)
                    for n, sq in enumerate(plan.subquestions)]  # fmt: skip
    ledger: dict[int, Evidence] = {}
    findings: list[ReviewedFinding] = []
    # when every sub-question is analysed and the findings are written up
    for n, subquestion in enumerate(subquestions):
        items = [evidence(n + 1, PAGES[n + 1], subquestion)]
        ledger.update({item.id: item for item in items})
        for draft in engine.analyse(subquestion, items, usage=usage):
            findings.append(ReviewedFinding(
                id=len(findings) + 1, subquestion_id=draft.subquestion_id, status=draft.status,
                statement=draft.statement, confidence=draft.confidence, resolution=Resolution.NONE,
                links=draft.links, evidence=tuple(ledger[link.evidence_id] for link in draft.links),
            ))  # fmt: skip
    report = engine.write("How are grid batteries developing?", subquestions, findings, usage=usage)
    # then every sub-question has a claim, each a verbatim piece of a quote it cites
    claims = [claim for claim in report.claims if claim.section.isdigit()]
    assert sorted(claim.section for claim in claims) == ["100", "101", "102"]
    for claim in claims:
        cited = " ".join(ledger[evidence_id].quote for evidence_id in claim.evidence_ids)
        assert claim.text in cited
        assert all(number in cited for number in _NUMBER.findall(claim.text))
    # and the mechanical check finds nothing to fix
    snapshots = {item.source_id: item.quote for item in ledger.values()}  # each quote is its whole page
    brief = Brief("How are grid batteries developing?", tuple(subquestions), tuple(findings))
    assert check_draft(report, brief, Ledger(evidence=ledger, snapshots=snapshots)) == []
    # and every model call was recorded with tokens
    stages = ["plan", *["analyse", "support"] * 3, "write"]  # each analysis has its support checked
    assert [call.stage for call in usage.calls] == stages
    assert all(call.ok and call.tokens_in > 0 and call.tokens_out > 0 for call in usage.calls)
