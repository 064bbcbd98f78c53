"""The chat client's mapping of API failures, with the real ``openai`` SDK against a stub chat API."""

from __future__ import annotations

import json

import httpx
import pytest

from researchapp.pipeline.values import UsageLog
from researchapp.providers.base import ProviderError
from tests.model_stages import KEY, make_engine, model_stages
from tests.stubs.openai_api import Failure, StubOpenAI

# --- API errors -------------------------------------------------------------------------------


def test_it_reports_a_rate_limit_as_retryable_and_records_the_failed_call(llm: StubOpenAI) -> None:
    # given
    llm.fail_next(Failure.http(429, "Rate limit reached for requests", code="rate_limit_exceeded"))
    usage = UsageLog()
    # when
    with pytest.raises(ProviderError) as raised:
        make_engine(llm).plan("q?", depth="quick", usage=usage)
    # then
    assert (raised.value.code, raised.value.retryable) == ("rate_limited", True)
    [call] = usage.calls
    assert (call.stage, call.ok, call.tokens_in, call.tokens_out) == ("plan", False, 0, 0)
    assert call.error.startswith("rate_limited:")


def test_it_lets_the_client_retry_a_rate_limit_once_by_itself(llm: StubOpenAI) -> None:
    # given one 429 and the default transport retry budget of one
    llm.fail_next(Failure.http(429, code="rate_limit_exceeded"))
    # when
    plan = make_engine(llm, max_retries=1).plan("What is CRISPR?", depth="quick", usage=UsageLog())
    # then
    assert len(plan.subquestions) == 3
    assert len(llm.chats) == 2


def test_it_reports_a_spent_quota_as_permanent(llm: StubOpenAI) -> None:
    # given OpenAI's 429 for an account without credit
    llm.fail_next(Failure.http(429, "You exceeded your current quota", code="insufficient_quota"))
    # when
    with pytest.raises(ProviderError) as raised:
        make_engine(llm).plan("q?", depth="quick", usage=UsageLog())
    # then
    assert (raised.value.code, raised.value.retryable) == ("quota_exceeded", False)


def test_it_reports_a_wrong_key_as_refused_and_permanent(llm: StubOpenAI) -> None:
    # given
    engine = model_stages(llm.base_url, api_key="sk-wrong")
    usage = UsageLog()
    # when
    with pytest.raises(ProviderError) as raised:
        engine.plan("q?", depth="quick", usage=usage)
    # then
    assert (raised.value.code, raised.value.retryable) == ("refused", False)
    assert "401" in raised.value.message
    assert [call.ok for call in usage.calls] == [False]


@pytest.mark.parametrize("status", [400, 404])
def test_it_reports_bad_requests_as_permanent(llm: StubOpenAI, status: int) -> None:
    # given
    llm.fail_next(Failure.http(status))
    # when
    with pytest.raises(ProviderError) as raised:
        make_engine(llm).plan("q?", depth="quick", usage=UsageLog())
    # then
    assert (raised.value.code, raised.value.retryable) == ("refused", False)


@pytest.mark.parametrize("status", [500, 503])
def test_it_reports_server_errors_as_retryable(llm: StubOpenAI, status: int) -> None:
    # given
    llm.fail_next(Failure.http(status))
    # when
    with pytest.raises(ProviderError) as raised:
        make_engine(llm).plan("q?", depth="quick", usage=UsageLog())
    # then
    assert (raised.value.code, raised.value.retryable) == ("unavailable", True)


def test_it_reports_a_slow_answer_as_a_retryable_timeout(llm: StubOpenAI) -> None:
    # given an answer slower than the timeout
    llm.fail_next(Failure.slow(3.0))
    usage = UsageLog()
    # when
    with pytest.raises(ProviderError) as raised:
        make_engine(llm, timeout=0.3).plan("q?", depth="quick", usage=usage)
    # then
    assert (raised.value.code, raised.value.retryable) == ("timeout", True)
    assert usage.calls[0].error.startswith("timeout:")
    assert usage.calls[0].latency_ms >= 300


def test_it_reports_an_unreachable_server_as_retryable() -> None:
    # given a port nobody listens on any more
    with StubOpenAI() as stub:
        base_url = stub.base_url
    engine = model_stages(base_url, api_key=KEY)
    # when
    with pytest.raises(ProviderError) as raised:
        engine.plan("q?", depth="quick", usage=UsageLog())
    # then
    assert (raised.value.code, raised.value.retryable) == ("unavailable", True)


def test_it_sends_the_key_as_a_bearer_token(llm: StubOpenAI) -> None:
    # when
    make_engine(llm).plan("q?", depth="quick", usage=UsageLog())
    # then
    assert llm.requests[0].headers["authorization"] == f"Bearer {KEY}"
    assert json.loads(llm.requests[0].body)["messages"][0]["role"] == "system"


def test_it_sends_through_a_given_http_client(llm: StubOpenAI) -> None:
    # given a caller-owned client (a proxy, custom TLS) that tags its requests
    with httpx.Client(headers={"X-Egress": "research-desk"}, timeout=5) as http_client:
        engine = model_stages(llm.base_url, api_key=KEY, http_client=http_client)
        # when
        engine.plan("q?", depth="quick", usage=UsageLog())
    # then
    assert llm.requests[0].headers["x-egress"] == "research-desk"
