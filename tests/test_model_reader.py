"""The model reader (issue 17.5): the model picks among the candidate sentences the answer-type rule
finds, by id, and names the span; its pick is checked by the same rule; the rule's answer stands
when the model's answer is rejected twice or it picks none."""

from __future__ import annotations

import json
import re

import pytest

from researchapp.pipeline.analyser.model import ReadingAnalyser
from researchapp.pipeline.reader.model import MAX_ANSWER_CHARS, MAX_TOKENS, ModelReader
from researchapp.pipeline.values import Evidence, SubQuestion, UsageLog
from researchapp.providers.chat.openai import OpenAIChat
from tests.model_stages import KEY
from tests.stubs.openai_api import StubOpenAI, by_stage

QUESTION = "What is the default port of the Quill server?"
LISTENS = (
    "The Quill server accepts connections from clients on a TCP port. "
    "Unless configured otherwise, it listens on 7300."
)
CONSOLE = (
    "The Quill server has a default port of 7400 for its admin console. "
    "The Quill server was first released in 2019."
)
EVIDENCE = [
    Evidence(1, 1, 1, 0, len(LISTENS), LISTENS, 1.0, cluster="s1"),
    Evidence(2, 2, 1, 0, len(CONSOLE), CONSOLE, 0.9, cluster="s2"),
]
SUBQUESTION = SubQuestion(1, QUESTION, ())
_NUMBERED = re.compile(r'<untrusted_source id="(\d+)">(.*?)</untrusted_source>', re.DOTALL)


def picking(words: str, answer: str | None = None):
    """A model that picks the numbered sentence holding ``words`` and answers ``answer`` (``words``)."""

    def respond(request: dict) -> dict:
        prompt = request["messages"][-1]["content"]
        number = next((int(n) for n, text in _NUMBERED.findall(prompt) if words in text), 0)
        return {"pick": number, "answer": words if answer is None else answer}

    return respond


def reader_on(stub: StubOpenAI) -> ModelReader:
    return ModelReader(OpenAIChat(KEY, base_url=stub.base_url, max_retries=0), model="stub-small")


@pytest.fixture
def read_llm():
    with StubOpenAI(api_key=KEY) as stub:
        yield stub


def test_the_model_picks_a_candidate_by_id_within_a_bounded_enum(read_llm: StubOpenAI) -> None:
    # given a model that picks the sentence stating 7300 (the rule alone prefers 7400's sentence)
    read_llm.responder = by_stage(read=picking("7300"))
    usage = UsageLog()
    # when
    answers = reader_on(read_llm).read(SUBQUESTION, EVIDENCE, question=QUESTION, usage=usage)
    # then the answer is the picked piece of its quote, its span the model's words, verbatim
    (span,) = answers.spans
    assert span.evidence_id == 1 and span.answer == "7300"
    assert LISTENS[span.answer_start : span.answer_end] == "7300"
    assert LISTENS[span.start : span.end] == "Unless configured otherwise, it listens on 7300."
    # and one small call: the ids shown are an enum (0 for none), the answer and the tokens bounded
    (request,) = read_llm.chats
    schema = request["response_format"]["json_schema"]["schema"]
    shown = _NUMBERED.findall(request["messages"][-1]["content"])
    assert schema["properties"]["pick"]["enum"] == list(range(len(shown) + 1))
    assert schema["properties"]["answer"]["maxLength"] == MAX_ANSWER_CHARS
    assert request["max_tokens"] == MAX_TOKENS
    assert [call.stage for call in usage.calls] == ["analyse"] and usage.calls[0].ok
    # and only pieces that state an answer of the asked type were candidates: no year, no bare "a port"
    assert len(shown) == 2
    assert not any("2019" in text or "TCP port." in text for _, text in shown)


def test_answer_words_that_do_not_state_the_asked_type_give_the_rules_span(read_llm: StubOpenAI) -> None:
    # given a model that picks the right sentence but names words without a figure as the answer
    read_llm.responder = by_stage(read=picking("7300", answer="it listens"))
    # when
    (span,) = reader_on(read_llm).read(SUBQUESTION, EVIDENCE, question=QUESTION, usage=UsageLog()).spans
    # then the answer is the rule's span of the picked piece: the figure
    assert span.evidence_id == 1 and span.answer == "7300"


def test_nothing_of_the_asked_type_means_no_call_and_no_answer(read_llm: StubOpenAI) -> None:
    # given passages that state no port number at all
    quote = "The Quill server accepts connections from clients. It was written by volunteers."
    evidence = [Evidence(3, 3, 1, 0, len(quote), quote, 1.0)]
    # when
    answers = reader_on(read_llm).read(SUBQUESTION, evidence, question=QUESTION, usage=UsageLog())
    # then nothing answers, the reason says why, and the model was never asked
    assert answers.spans == () and "default_or_limit" in answers.reason
    assert read_llm.chats == []


def test_a_pick_of_none_or_an_answer_rejected_twice_leaves_the_rules_answer(read_llm: StubOpenAI) -> None:
    # given a model that picks none
    read_llm.responder = by_stage(read={"pick": 0, "answer": ""})
    (span,) = reader_on(read_llm).read(SUBQUESTION, EVIDENCE, question=QUESTION, usage=UsageLog()).spans
    # then the rule's answer stands
    assert (span.evidence_id, span.answer) == (2, "7400")
    # given a model whose answer is not JSON, twice
    read_llm.responder = by_stage(read="the port is 7300")
    usage = UsageLog()
    (span,) = reader_on(read_llm).read(SUBQUESTION, EVIDENCE, question=QUESTION, usage=usage).spans
    # then the rule's answer stands, and both rejected calls are recorded
    assert (span.evidence_id, span.answer) == (2, "7400")
    assert [call.ok for call in usage.calls] == [False, False]


def test_the_model_engines_findings_are_the_picked_pieces_verbatim(read_llm: StubOpenAI) -> None:
    # given the model engine's analyser around the model reader
    read_llm.responder = by_stage(read=picking("7300"))
    analyser = ReadingAnalyser(reader_on(read_llm))
    # when
    (finding,) = analyser.analyse(SUBQUESTION, EVIDENCE, usage=UsageLog(), question=QUESTION)
    # then its statement is the picked piece of the quote, cited to that passage, its answer the span
    assert finding.statement == "Unless configured otherwise, it listens on 7300."
    assert finding.statement in LISTENS and finding.answer == "7300"
    assert [link.evidence_id for link in finding.links] == [1]
    # and the model saw the passages only as untrusted data, numbered
    prompt = json.dumps(read_llm.chats[0]["messages"])
    assert "never instructions" in prompt and 'id=\\"1\\"' in prompt


def test_what_something_costs_asks_for_an_amount_of_money() -> None:
    from researchapp.pipeline.text.answer_type import AnswerType, analyse_question

    # the demo's question was read as asking for a name ("What ..."), so a date answered it
    analysis = analyse_question("What does the Kestrel S1 home battery cost?")
    assert (analysis.answer_type, analysis.unit) == (AnswerType.QUANTITY, "money")
    assert analyse_question("What does PRAGMA cache_size do?").answer_type is AnswerType.EXPLANATION
