"""The model-backed engine: plans, analyses and writes through any OpenAI-compatible chat API.

Works against OpenAI itself or a local server (Ollama, vLLM, llama.cpp) through ``base_url``.
Each stage asks for strict structured output, validates the answer in ``answers.py`` (the
model cannot invent evidence ids), retries once with the validation error, and records every
call, failed or not, in the stage's ``UsageLog``.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

import httpx
import openai

from researchapp.pipeline.analyse import insufficient_finding
from researchapp.pipeline.types import (
    CheckIssue,
    Claim,
    Draft,
    Evidence,
    Finding,
    FindingDraft,
    LLMUsage,
    Plan,
    SubQuestion,
    UsageLog,
)
from researchapp.pipeline.writer import render_draft, report_bucket
from researchapp.providers.base import ConfigurationError, ProviderError
from researchapp.providers.llm import prompts
from researchapp.providers.llm.answers import (
    AnswerRejected,
    claims_from_answer,
    decode_json,
    findings_from_answer,
    plan_from_answer,
)

STAGES = ("plan", "analyse", "write")

T = TypeVar("T")
Message = dict[str, str]


@dataclass(frozen=True)
class _Completion:
    content: str | None
    finish_reason: str | None
    tokens_in: int
    tokens_out: int
    latency_ms: int


class OpenAIEngine:
    """``Engine`` over the chat completions API with strict JSON-schema answers."""

    name = "openai"

    def __init__(
        self,
        api_key: str,
        *,
        model: str = "gpt-4o-mini",
        base_url: str | None = None,
        stage_models: Mapping[str, str] | None = None,
        timeout: float = 120.0,
        max_retries: int = 1,
        http_client: httpx.Client | None = None,
    ) -> None:
        """``max_retries`` is the client's own transport retry (429, 5xx, timeouts) within one call;
        the Celery task retries the stage on top of it, so keep it small.

        Local servers (Ollama, vLLM) accept any key; give them a placeholder such as "local".
        """
        if not api_key or not api_key.strip():
            raise ConfigurationError(
                "OPENAI_API_KEY is not set; the openai engine needs it "
                "(a local OpenAI-compatible server accepts any placeholder, e.g. 'local')"
            )
        if not model.strip():
            raise ConfigurationError("OPENAI_MODEL is empty; name the chat model to use")
        overrides = {
            stage: name.strip() for stage, name in (stage_models or {}).items() if name and name.strip()
        }
        unknown = sorted(set(overrides) - set(STAGES))
        if unknown:
            raise ConfigurationError(
                f"unknown stage(s) in model overrides: {unknown}; expected {list(STAGES)}"
            )
        self.model = model.strip()
        self.stage_models = overrides
        options: dict[str, Any] = {"api_key": api_key.strip(), "timeout": timeout, "max_retries": max_retries}
        if base_url:
            options["base_url"] = base_url
        if http_client is not None:
            options["http_client"] = http_client
        self._client = openai.OpenAI(**options)

    def model_for(self, stage: str) -> str:
        return self.stage_models.get(stage, self.model)

    # --- stages -----------------------------------------------------------------------------

    def plan(self, question: str, *, depth: str, feedback: str = "", usage: UsageLog) -> Plan:
        return self._structured(
            stage="plan",
            schema_name=prompts.PLAN_SCHEMA_NAME,
            schema=prompts.PLAN_SCHEMA,
            messages=prompts.plan_messages(question, depth=depth, feedback=feedback),
            interpret=plan_from_answer,
            usage=usage,
        )

    def analyse(
        self, subquestion: SubQuestion, evidence: Sequence[Evidence], *, usage: UsageLog
    ) -> list[FindingDraft]:
        if not evidence:
            # Nothing to read: saying so needs no model, and a model asked anyway tends to guess.
            return [insufficient_finding(subquestion)]
        drafts = self._structured(
            stage="analyse",
            schema_name=prompts.ANALYSE_SCHEMA_NAME,
            schema=prompts.ANALYSE_SCHEMA,
            messages=prompts.analyse_messages(subquestion, evidence),
            interpret=lambda data: findings_from_answer(data, subquestion, evidence),
            usage=usage,
        )
        # The model found nothing relevant in the passages: that is an evidence gap, not silence.
        return drafts or [insufficient_finding(subquestion)]

    def write(
        self,
        question: str,
        subquestions: Sequence[SubQuestion],
        findings: Sequence[Finding],
        *,
        feedback: Sequence[CheckIssue] = (),
        usage: UsageLog,
    ) -> Draft:
        # The writer decides which findings the body states as fact; the model writes only those,
        # so it never sees a disputed point or a gap it could state as fact.
        body = [finding for finding in findings if report_bucket(finding) == "body"]
        sections = {str(finding.subquestion_id) for finding in body}
        allowed_ids = {
            item.id
            for finding in body
            for item in finding.evidence
            if item.id in {link.evidence_id for link in finding.links}
        }
        claims: list[Claim] = []
        if body and allowed_ids:
            claims = self._structured(
                stage="write",
                schema_name=prompts.WRITE_SCHEMA_NAME,
                schema=prompts.WRITE_SCHEMA,
                messages=prompts.write_messages(question, subquestions, body, feedback),
                interpret=lambda data: claims_from_answer(data, sections=sections, allowed_ids=allowed_ids),
                usage=usage,
            )
        return render_draft(question, subquestions, findings, claims)

    # --- one structured exchange ------------------------------------------------------------

    def _structured(
        self,
        *,
        stage: str,
        schema_name: str,
        schema: dict[str, Any],
        messages: list[Message],
        interpret: Callable[[dict[str, Any]], T],
        usage: UsageLog,
    ) -> T:
        """1. ask; 2. decode and validate; 3. on a rejected answer, show the model the reason and ask
        once more; 4. a second rejection is final. Each call is recorded with its outcome."""
        model = self.model_for(stage)
        conversation = list(messages)
        response_format = {
            "type": "json_schema",
            "json_schema": {"name": schema_name, "schema": schema, "strict": True},
        }
        for attempt in (1, 2):
            completion = self._complete(stage, model, conversation, response_format, usage)
            try:
                result = interpret(decode_json(completion.content, finish_reason=completion.finish_reason))
            except AnswerRejected as rejection:
                reason = str(rejection)
                usage.record(_usage(stage, model, completion, ok=False, error=f"malformed_output: {reason}"))
                if attempt == 2:
                    raise ProviderError(
                        f"{stage}: the model's answer was rejected twice; last reason: {reason}",
                        retryable=False,
                        code="malformed_output",
                    ) from None
                conversation += [
                    {"role": "assistant", "content": completion.content or ""},
                    prompts.correction_message(schema_name, reason),
                ]
                continue
            usage.record(_usage(stage, model, completion, ok=True))
            return result
        raise AssertionError("unreachable: the loop returns or raises")

    def _complete(
        self,
        stage: str,
        model: str,
        messages: list[Message],
        response_format: dict[str, Any],
        usage: UsageLog,
    ) -> _Completion:
        started = time.monotonic()
        try:
            response = self._client.chat.completions.create(
                model=model,
                messages=messages,  # type: ignore[arg-type]  # plain dicts are the documented form
                response_format=response_format,  # type: ignore[arg-type]
            )
        except openai.OpenAIError as error:
            failure = provider_error_for(error, stage=stage, model=model)
            usage.record(
                LLMUsage(
                    stage=stage,
                    model=model,
                    tokens_in=0,  # a failed request is not billed; the API reports no usage for it
                    tokens_out=0,
                    latency_ms=_elapsed_ms(started),
                    ok=False,
                    error=f"{failure.code}: {failure.message}",
                )
            )
            raise failure from error
        choice = response.choices[0] if response.choices else None
        message = choice.message if choice is not None else None
        content = message.content if message is not None else None
        if content is None and message is not None and getattr(message, "refusal", None):
            content = ""  # a refusal is an unusable answer, handled like any malformed one
        return _Completion(
            content=content,
            finish_reason=choice.finish_reason if choice is not None else None,
            tokens_in=response.usage.prompt_tokens if response.usage else 0,
            tokens_out=response.usage.completion_tokens if response.usage else 0,
            latency_ms=_elapsed_ms(started),
        )

    def close(self) -> None:
        self._client.close()


def provider_error_for(error: openai.OpenAIError, *, stage: str, model: str) -> ProviderError:
    """Map the SDK's exceptions (``openai/_exceptions.py``) onto retryable or permanent errors."""
    where = f"{stage} with model {model!r}"
    if isinstance(error, openai.APITimeoutError):  # before APIConnectionError: it is a subclass
        return ProviderError(f"{where} timed out", retryable=True, code="timeout")
    if isinstance(error, openai.APIConnectionError):
        return ProviderError(f"{where} could not connect: {error}", retryable=True, code="unavailable")
    if isinstance(error, openai.RateLimitError):
        # OpenAI answers 429 both for "slow down" and for "your credit is spent"; only the first
        # goes away by waiting.
        if error.code == "insufficient_quota":
            return ProviderError(f"{where}: quota exhausted: {error.message}", code="quota_exceeded")
        return ProviderError(
            f"{where} was rate limited: {error.message}", retryable=True, code="rate_limited"
        )
    if isinstance(error, openai.APIStatusError):
        status = error.status_code
        if status >= 500 or status in (408, 409):
            return ProviderError(
                f"{where} failed with HTTP {status}: {error.message}", retryable=True, code="unavailable"
            )
        return ProviderError(f"{where} was refused with HTTP {status}: {error.message}", code="refused")
    return ProviderError(f"{where} failed: {type(error).__name__}: {error}", code="provider_error")


def _usage(stage: str, model: str, completion: _Completion, *, ok: bool, error: str = "") -> LLMUsage:
    return LLMUsage(
        stage=stage,
        model=model,
        tokens_in=completion.tokens_in,
        tokens_out=completion.tokens_out,
        latency_ms=completion.latency_ms,
        ok=ok,
        error=error,
    )


def _elapsed_ms(started: float) -> int:
    return int((time.monotonic() - started) * 1000)
