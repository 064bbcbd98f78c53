"""The model's pairwise judgement (``agree | contradict | unrelated``, one reason) with the real
``openai`` SDK against the stub chat API: the request it sends, how its answer joins the rules'."""

from __future__ import annotations

from researchapp.pipeline.analyser.disputes import dispute_statement, group_disputes
from researchapp.pipeline.analyser.judge_model import MAX_TOKENS, ModelJudge
from researchapp.pipeline.text.contradiction import CONTRADICT, Pair, RuleJudge, Side
from researchapp.pipeline.values import UsageLog
from researchapp.providers.chat.openai import OpenAIChat
from tests.model_stages import KEY
from tests.stubs.openai_api import StubOpenAI, by_stage

# The rules see no disagreement here (no figure, no negation, no name in one slot): the model may.
SOLD = "The Quillby ferry company was sold to Maria Okafor last spring."
BOUGHT = "Peter Voss bought the Quillby ferry company last spring."
# The rules see this one.
OWNS = "Joe Briggs owns an island near the Quillby coast."
DENIES = "Joe Briggs does not own an island near Quillby."


def judge_on(stub: StubOpenAI) -> ModelJudge:
    client = OpenAIChat(KEY, base_url=stub.base_url, max_retries=0)
    return ModelJudge(client, model="stub-judge", rules=RuleJudge())


def pair(first: str, second: str, *, evidence: bool = True) -> Pair:
    return Pair(
        Side(1, 0, len(first), first, 11 if evidence else None),
        Side(2, 0, len(second), second, 22 if evidence else None),
    )


def test_it_asks_a_bounded_enum_constrained_question_and_keeps_the_models_contradiction() -> None:
    # given a model that reads the pair as contradicting
    answer = {"verdict": "contradict", "reason": "Two different buyers of one company."}
    with StubOpenAI(by_stage(judge=answer), api_key=KEY) as llm:
        usage = UsageLog()
        # when
        (judgement,) = judge_on(llm).judge([pair(SOLD, BOUGHT)], usage=usage)
        [request] = llm.chats
    # then the request is the bounded pairwise question
    schema = request["response_format"]["json_schema"]["schema"]
    assert schema["properties"]["verdict"]["enum"] == ["agree", "contradict", "unrelated"]
    assert schema["properties"]["reason"]["maxLength"] <= 200
    assert request["max_tokens"] == MAX_TOKENS
    assert '<untrusted_source id="A">' + SOLD in request["messages"][1]["content"]
    # and the model's contradiction is kept, without spans (it does not say which words differ)
    assert judgement.verdict == CONTRADICT and judgement.judge == "model" and judgement.kind == ""
    assert "Two different buyers" in judgement.reason
    assert [(call.stage, call.ok) for call in usage.calls] == [("judge", True)]


def test_a_rule_contradiction_the_model_doubts_stays_a_dispute_with_both_opinions() -> None:
    with StubOpenAI(
        by_stage(judge={"verdict": "agree", "reason": "Both about an island."}), api_key=KEY
    ) as llm:
        (judgement,) = judge_on(llm).judge([pair(OWNS, DENIES)], usage=UsageLog())
    assert judgement.kind == "negation" and judgement.judge == "rules"
    assert "the model: agree (Both about an island.)" in judgement.reason


def test_an_answer_rejected_twice_costs_the_pair_the_models_opinion_not_the_task() -> None:
    with StubOpenAI(by_stage(judge={"verdict": "maybe", "reason": ""}), api_key=KEY) as llm:
        usage = UsageLog()
        judgements = judge_on(llm).judge([pair(OWNS, DENIES), pair(SOLD, BOUGHT)], usage=usage)
    # the rules' judgement stands; the pair only the model could judge is not a dispute
    assert [(j.kind, j.judge) for j in judgements] == [("negation", "rules")]
    assert [call.ok for call in usage.calls] == [False] * 4  # two pairs, two attempts each


def test_passages_that_are_not_evidence_never_go_to_the_model() -> None:
    with StubOpenAI(by_stage(judge={"verdict": "contradict", "reason": "x"}), api_key=KEY) as llm:
        judgements = judge_on(llm).judge([pair(SOLD, BOUGHT, evidence=False)], usage=UsageLog())
        assert llm.chats == []
    assert judgements == []


def test_a_model_only_dispute_reads_as_a_sentence_without_empty_quotes() -> None:
    # given the model's contradiction, which names no differing words
    answer = {"verdict": "contradict", "reason": "Two different buyers of one company."}
    with StubOpenAI(by_stage(judge=answer), api_key=KEY) as llm:
        judgements = judge_on(llm).judge([pair(SOLD, BOUGHT)], usage=UsageLog())
    (dispute,) = group_disputes(judgements)
    # when it is stated, in either language
    english, chinese = dispute_statement(dispute, chinese=False), dispute_statement(dispute, chinese=True)
    # then it says the passages contradict, with no empty quotes
    assert english.startswith("Sources disagree on ")
    assert english.endswith("the passages contradict each other")
    assert "“”" not in english and "“”" not in chinese and "相互矛盾" in chinese
