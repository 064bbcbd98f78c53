"""A chat-completions client for OpenAI or any OpenAI-compatible server (Ollama, vLLM, llama.cpp).

A transport only: it sends messages and returns the reply with its token counts, and maps the
SDK's failures onto ``ProviderError`` (retryable or not). What to ask and how to read the answer
is the business of the stage that asks (``pipeline.structured``).
"""

from __future__ import annotations

import time
from typing import Any

import httpx
import openai

from researchapp.providers.base import ChatReply, ChatRequest, ConfigurationError, ProviderError, ToolCall


class OpenAIChat:
    """``ChatClient`` over the official ``openai`` SDK."""

    name = "openai"

    def __init__(
        self,
        api_key: str,
        *,
        base_url: str | None = None,
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
        options: dict[str, Any] = {"api_key": api_key.strip(), "timeout": timeout, "max_retries": max_retries}
        if base_url:
            options["base_url"] = base_url
        if http_client is not None:
            options["http_client"] = http_client
        self._client = openai.OpenAI(**options)

    def complete(self, request: ChatRequest) -> ChatReply:
        started = time.monotonic()
        options: dict[str, Any] = {}
        if request.response_format is not None:
            options["response_format"] = request.response_format
        if request.max_tokens is not None:
            options["max_tokens"] = request.max_tokens
        if request.tools:
            options["tools"] = request.tools
        try:
            response = self._client.chat.completions.create(
                model=request.model,
                messages=request.messages,  # type: ignore[arg-type]  # plain dicts are the documented form
                **options,
            )
        except openai.OpenAIError as error:
            raise provider_error_for(error, model=request.model) from error
        choice = response.choices[0] if response.choices else None
        message = choice.message if choice is not None else None
        content = message.content if message is not None else None
        if content is None and message is not None and getattr(message, "refusal", None):
            content = ""  # a refusal is an unusable answer, handled like any malformed one
        return ChatReply(
            content=content,
            finish_reason=choice.finish_reason if choice is not None else None,
            tokens_in=response.usage.prompt_tokens if response.usage else 0,
            tokens_out=response.usage.completion_tokens if response.usage else 0,
            latency_ms=int((time.monotonic() - started) * 1000),
            tool_calls=tool_calls_of(message),
        )

    def close(self) -> None:
        self._client.close()


def tool_calls_of(message: Any) -> tuple[ToolCall, ...]:
    """The function calls of an assistant message (other kinds of tool call are not ours)."""
    calls = getattr(message, "tool_calls", None) or ()
    return tuple(
        ToolCall(id=call.id or "", name=call.function.name or "", arguments=call.function.arguments or "")
        for call in calls
        if getattr(call, "type", "function") == "function" and getattr(call, "function", None) is not None
    )


def provider_error_for(error: openai.OpenAIError, *, model: str) -> ProviderError:
    """Map the SDK's exceptions (``openai/_exceptions.py``) onto retryable or permanent errors."""
    where = f"the call to model {model!r}"
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
