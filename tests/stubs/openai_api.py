"""A stub OpenAI-compatible chat API (``POST /v1/chat/completions``) for the ``openai`` SDK.

Answers in the real response shape (id, object, created, model, choices, usage) and the real
error shape (``{"error": {message, type, param, code}}``). Token counts are ``len(text) // 4`` of
the prompt and the answer, so they grow with the input as real ones do.

Without a scripted responder it answers every stage of our engine plausibly (see
``default_responder``), so a whole research run can go through it:

    with StubOpenAI() as llm:
        engine = OpenAIEngine("sk-test", base_url=llm.base_url)
    with StubOpenAI(by_stage(analyse={"findings": []})) as llm: ...
    llm.fail_next(Failure.http(429), Failure.malformed_json(), Failure.slow(5))
"""

from __future__ import annotations

import json
import re
import time
import uuid
from collections.abc import Callable, Iterator, Mapping
from typing import Any

import pytest

from tests.stubs.json_api import Failure, JsonApiStub, RecordedRequest, StubResponse
from tests.stubs.openai_read import other_answer
from tests.stubs.openai_tools import dutiful_researcher

__all__ = ["Failure", "StubOpenAI", "by_stage", "default_responder", "first_sentence", "stub_openai"]

Responder = Callable[[dict[str, Any]], str]
StageAnswer = str | dict[str, Any] | Callable[[dict[str, Any]], str | dict[str, Any]]

_ERROR_TYPES = {
    400: "invalid_request_error",
    401: "invalid_request_error",
    404: "invalid_request_error",
    429: "requests",
    500: "server_error",
    503: "server_error",
}


class StubOpenAI(JsonApiStub):
    def __init__(self, responder: Responder | None = None, *, api_key: str | None = None) -> None:
        """``api_key``: when set, any other key gets the real 401 ``invalid_api_key`` answer."""
        super().__init__()
        self.responder: Responder = responder or default_responder
        self.api_key = api_key
        self.delay = 0.0  # seconds every answer waits (a slow model), unless a Failure says otherwise
        # What the model does in a conversation with ``tools``: {"content", "tool_calls": [{name,
        # arguments}]} (``tests.stubs.openai_tools``: a dutiful researcher, or a scripted one).
        self.tool_responder: Callable[[dict[str, Any]], dict[str, Any]] = dutiful_researcher

    @property
    def base_url(self) -> str:
        """What ``OpenAI(base_url=...)`` wants: the SDK appends ``/chat/completions``."""
        return self.origin + "/v1"

    @property
    def chats(self) -> list[dict[str, Any]]:
        """The JSON bodies of every chat completion request received, in order."""
        return [request.json for request in self.requests if request.path == "/v1/chat/completions"]

    def prompt_text(self, index: int = -1) -> str:
        """Everything one request sent the model, joined: for asserting what it did or did not see."""
        return "\n".join(str(message.get("content") or "") for message in self.chats[index]["messages"])

    def respond(self, request: RecordedRequest, failure: Failure | None) -> StubResponse:
        if request.method != "POST" or request.path != "/v1/chat/completions":
            return _error(404, f"Unknown request URL: {request.method} {request.path}.", code="unknown_url")
        bearer = request.headers.get("authorization", "").removeprefix("Bearer ").strip()
        if not bearer or (self.api_key is not None and bearer != self.api_key):
            return _error(401, "Incorrect API key provided.", code="invalid_api_key")
        body = request.json
        if not body.get("model") or not body.get("messages"):
            return _error(400, "'model' and 'messages' are required.", code="missing_required_parameter")
        if failure is not None and failure.status != 200:
            return _error(failure.status, failure.message, code=failure.code, headers=failure.headers)
        if body.get("tools") and (failure is None or failure.content is None):
            return self.tool_turn(body, failure)
        content = (
            failure.content if failure is not None and failure.content is not None else self.responder(body)
        )
        prompt = "".join(str(message.get("content") or "") for message in body["messages"])
        tokens_in, tokens_out = max(1, len(prompt) // 4), max(1, len(content) // 4)
        # As the real API does: an answer longer than max_tokens is cut there, finish_reason "length".
        finish_reason = "stop"
        if body.get("max_tokens") and tokens_out > body["max_tokens"]:
            content, tokens_out, finish_reason = (
                content[: body["max_tokens"] * 4],
                body["max_tokens"],
                "length",
            )
        return StubResponse(
            200,
            {
                "id": f"chatcmpl-{uuid.uuid4().hex[:24]}",
                "object": "chat.completion",
                "created": int(time.time()),
                "model": body["model"],
                "choices": [
                    {
                        "index": 0,
                        "message": {"role": "assistant", "content": content, "refusal": None},
                        "logprobs": None,
                        "finish_reason": finish_reason,
                    }
                ],
                "usage": {
                    "prompt_tokens": tokens_in,
                    "completion_tokens": tokens_out,
                    "total_tokens": tokens_in + tokens_out,
                },
                "system_fingerprint": "fp_stub",
            },
            delay=failure.delay if failure is not None else self.delay,
        )

    def tool_turn(self, body: dict[str, Any], failure: Failure | None) -> StubResponse:
        """A turn of a tool-using conversation: ``tool_responder`` says what the model does, and the
        answer goes out as the API sends it (``tool_calls`` with ids, ``finish_reason: tool_calls``)."""
        turn = self.tool_responder(body)
        calls = [
            {
                "id": f"call_{uuid.uuid4().hex[:24]}",
                "type": "function",
                "function": {
                    "name": call["name"],
                    "arguments": call["arguments"]
                    if isinstance(call["arguments"], str)
                    else json.dumps(call["arguments"], ensure_ascii=False),
                },
            }
            for call in turn.get("tool_calls", [])
        ]
        content = turn.get("content")
        prompt = json.dumps(body["messages"], ensure_ascii=False)
        answer = (content or "") + json.dumps(calls)
        tokens_in, tokens_out = max(1, len(prompt) // 4), max(1, len(answer) // 4)
        message: dict[str, Any] = {"role": "assistant", "content": content, "refusal": None}
        if calls:
            message["tool_calls"] = calls
        return StubResponse(
            200,
            {
                "id": f"chatcmpl-{uuid.uuid4().hex[:24]}",
                "object": "chat.completion",
                "created": int(time.time()),
                "model": body["model"],
                "choices": [
                    {"index": 0, "message": message, "logprobs": None,
                     "finish_reason": "tool_calls" if calls else "stop"}
                ],
                "usage": {"prompt_tokens": tokens_in, "completion_tokens": tokens_out,
                          "total_tokens": tokens_in + tokens_out},
                "system_fingerprint": "fp_stub",
            },
            delay=failure.delay if failure is not None else self.delay,
        )  # fmt: skip


def _error(
    status: int, message: str, *, code: str = "", headers: Mapping[str, str] | None = None
) -> StubResponse:
    retry_headers = {"retry-after-ms": "10"} if status == 429 or status >= 500 else {}
    return StubResponse(
        status,
        {
            "error": {
                "message": message,
                "type": _ERROR_TYPES.get(status, "api_error"),
                "param": None,
                "code": code or None,
            }
        },
        headers={**retry_headers, **(headers or {})},
    )


# --- scripting answers ------------------------------------------------------------------------


def schema_name(request: dict[str, Any]) -> str:
    return str(((request.get("response_format") or {}).get("json_schema") or {}).get("name") or "")


def by_stage(**answers: StageAnswer) -> Responder:
    """A responder with scripted answers per stage (``plan=``, ``analyse=``, ``write=``): a JSON
    string, a dict, or a function of the request. Unscripted stages get the default answer."""

    def respond(request: dict[str, Any]) -> str:
        answer = answers.get(schema_name(request))
        if answer is None:
            return default_responder(request)
        if callable(answer):
            answer = answer(request)
        return answer if isinstance(answer, str) else json.dumps(answer, ensure_ascii=False)

    return respond


# --- the default answers ----------------------------------------------------------------------

_TAGS = (
    "untrusted_source|statement|finding|findings|subquestion|subquestions|question|analyst_feedback"
    "|problems_to_fix|passages"
)
_DEFUSED = re.compile(rf"&lt;(\s*/?\s*)({_TAGS})\b", re.IGNORECASE)
_SOURCE = re.compile(r'<untrusted_source id="E(\d+)"([^>]*)>(.*?)</untrusted_source>', re.DOTALL)
_FINDING = re.compile(r'<finding subquestion="(\d+)"[^>]*>(.*?)</finding>', re.DOTALL)
_QUESTION = re.compile(r"<question>(.*?)</question>", re.DOTALL)
_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff]")
# Where a sentence ends (Latin: the punctuation and the space after it; CJK: right after it).
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+|(?<=[。！？])")


def default_responder(request: dict[str, Any]) -> str:
    """Answer any of our three stages from the prompt alone, as a dutiful model would.

    It reads the first user turn (a correction turn adds nothing it needs). Claims are verbatim
    sentences of the quotes they cite, so a draft written this way passes the verbatim and number
    checks.
    """
    prompt = next(
        (m.get("content") or "" for m in request.get("messages", []) if m.get("role") == "user"), ""
    )
    stage = schema_name(request)
    if stage == "plan":
        answer: dict[str, Any] = _plan_answer(prompt)
    elif stage == "analyse":
        answer = _analyse_answer(prompt)
    elif stage == "write":
        answer = _write_answer(prompt)
    elif stage == "support":
        answer = _support_answer(prompt)
    elif stage == "hypotheses":
        answer = _hypotheses_answer(prompt)
    else:
        answer = other_answer(stage, prompt)
    return json.dumps(answer, ensure_ascii=False)


def first_sentence(quote: str, *, min_length: int = 20) -> str:
    """The first sentence of a quote long enough to say something, as a verbatim slice of it.

    Sentences too short on their own ("U.S.") are joined to the next within one line; lines are
    never joined, so a claim has no line break. A CJK character counts three towards
    ``min_length``, since it carries about a word.
    """
    for line in quote.splitlines():
        line = line.strip()
        start = 0
        for boundary in [*_SENTENCE_END.finditer(line), None]:
            end = boundary.start() if boundary is not None else len(line)
            candidate = line[start:end].strip()
            if candidate and len(candidate) + 2 * len(_CJK.findall(candidate)) >= min_length:
                return candidate
    return next((line.strip() for line in quote.splitlines() if line.strip()), quote.strip())


_PREVIOUS_PLAN = re.compile(r"<previous_plan>\n(.*?)\n</previous_plan>", re.DOTALL)
_PREVIOUS_ROW = re.compile(r"^(\d+)\. (.*) \(queries: (.*)\)$", re.MULTILINE)
_FEEDBACK = re.compile(r"<analyst_feedback>(.*?)</analyst_feedback>", re.DOTALL)


def _revised_plan(prompt: str) -> dict[str, Any] | None:
    """What a model asked to revise the previous plan answers: the rows it was shown, less those the
    feedback drops by number ("drop sub-question 2", "删除第2个"), plus one per "add …" clause."""
    shown, feedback = _PREVIOUS_PLAN.search(prompt), _FEEDBACK.search(prompt)
    if not shown or not feedback:
        return None
    rows = {int(n): (text, queries.split("; ")) for n, text, queries in _PREVIOUS_ROW.findall(shown.group(1))}
    note = feedback.group(1)
    for number in re.findall(r"(?:drop|remove|删除|去掉)\D{0,20}?(\d+)", note, re.IGNORECASE):
        rows.pop(int(number), None)
    kept = [{"text": text, "rationale": "Kept from the previous version.", "queries": queries}
            for _, (text, queries) in sorted(rows.items())]  # fmt: skip
    for aspect in re.findall(r"\badd\s+(?:the\s+)?([^.;]+)", note, re.IGNORECASE):
        asked = aspect.strip()
        kept.append({"text": f"What is known about {asked}?", "rationale": "Asked for.", "queries": [asked]})
    return {"intent": "descriptive", "subquestions": kept[:6]}


def _plan_answer(prompt: str) -> dict[str, Any]:
    revised = _revised_plan(prompt)
    if revised is not None and len(revised["subquestions"]) >= 3:
        return revised
    match = _QUESTION.search(prompt)
    question = (match.group(1) if match else prompt).strip()
    topic = question.rstrip("?？.。 ").strip() or "the question"
    lowered = question.lower()
    if any(word in lowered for word in (" vs ", " versus ", "compare", "difference between", "区别", "对比")):
        intent = "comparative"
    elif any(word in lowered for word in ("should ", "which is best", "recommend", "推荐", "应该")):
        intent = "recommendation"
    else:
        intent = "descriptive"
    if _CJK.search(question):  # answer in the question's language, as a real model would
        rows = [
            (f"{topic}的现状如何？", "确定基本事实。", [topic, f"{topic} 现状"]),
            (f"{topic}有哪些关键数据和日期？", "数字让结论可核查。", [f"{topic} 数据"]),
            (f"{topic}还有哪些风险和未决问题？", "说明结论的边界。", [f"{topic} 风险", f"{topic} 争议"]),
        ]
    else:
        rows = [
            (f"What is the current state of {topic}?", "Sets the baseline facts.",
             [topic, f"{topic} overview"]),
            (f"What figures and dates describe {topic}?", "Numbers make the answer checkable.",
             [f"{topic} statistics"]),
            (f"What risks and open questions remain about {topic}?", "Shows the limits.",
             [f"{topic} risks", f"{topic} criticism"]),
        ]  # fmt: skip
    return {
        "intent": intent,
        "subquestions": [{"text": text, "rationale": why, "queries": queries} for text, why, queries in rows],
    }


def _sources(text: str) -> list[tuple[int, str, str]]:
    """(evidence id, stance, quote) of every untrusted source in ``text``, quotes un-defused."""
    found = []
    for evidence_id, attributes, quote in _SOURCE.findall(text):
        stance = re.search(r'stance="(\w+)"', attributes)
        found.append(
            (int(evidence_id), stance.group(1) if stance else "supports", _DEFUSED.sub(r"<\1\2", quote))
        )
    return found


def _analyse_answer(prompt: str) -> dict[str, Any]:
    findings = [
        {
            "statement": first_sentence(quote),
            "status": "supported",
            "evidence": [{"id": evidence_id, "stance": "supports"}],
        }
        for evidence_id, _, quote in _sources(prompt)[:5]
    ]
    return {"findings": findings}


_STATEMENT_NUMBER = re.compile(r'<statement number="(\d+)">')


def _support_answer(prompt: str) -> dict[str, Any]:
    """Every statement supported: the dutiful analyser's statements are verbatim sentences."""
    return {
        "judgements": [
            {"statement": int(number), "verdict": "supported", "reason": "The passage states it."}
            for number in _STATEMENT_NUMBER.findall(prompt)
        ]
    }


_HYPOTHESIS_FINDING = re.compile(
    r'<finding id="\d+"[^>]*>\s*<statement>(.*?)</statement>(.*?)</finding>', re.DOTALL
)


def _hypotheses_answer(prompt: str) -> dict[str, Any]:
    """One hypothesis per finding shown: that it holds, supported by its first passage."""
    hypotheses = []
    for statement, block in _HYPOTHESIS_FINDING.findall(prompt)[:5]:
        sources = _sources(block)
        hypotheses.append(
            {
                "statement": f"{statement.strip()} (holds beyond the sources found so far)",
                "supports_if": "Another independent source states the same.",
                "refutes_if": "An independent source states otherwise.",
                "evidence": [{"id": sources[0][0], "stance": "support"}] if sources else [],
            }
        )
    return {"hypotheses": hypotheses}


def _write_answer(prompt: str) -> dict[str, Any]:
    claims: list[dict[str, Any]] = []
    seen: set[tuple[str, str]] = set()  # a sentence once per section: two sections may share a source
    for subquestion_id, block in _FINDING.findall(prompt):
        sources = _sources(block)
        supporting = [source for source in sources if source[1] == "supports"] or sources
        if not supporting:
            continue
        evidence_id, _, quote = supporting[0]
        text = first_sentence(quote)
        if (subquestion_id, text) not in seen:
            seen.add((subquestion_id, text))
            claims.append({"section": subquestion_id, "text": text, "evidence_ids": [evidence_id]})
    return {"claims": claims}


@pytest.fixture
def stub_openai() -> Iterator[StubOpenAI]:
    """A running ``StubOpenAI`` with the default responder; set ``stub_openai.responder`` to script it."""
    with StubOpenAI() as stub:
        yield stub
