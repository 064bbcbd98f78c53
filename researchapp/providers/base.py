"""What the outside world looks like to the pipeline: typed results, small protocols, one error.

Providers are transports (a search API, the web, a chat model). They return these values and
raise ``ProviderError``, whose ``retryable`` flag says whether trying again can help.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from typing import Any, Protocol

from researchapp.core.hashing import sha256_text
from researchapp.core.messages import Message


class ProviderError(Exception):
    """A provider could not do what was asked. ``retryable`` says whether trying again can help."""

    def __init__(
        self,
        message: str,
        *,
        retryable: bool = False,
        code: str = "provider_error",
        said: Message | None = None,
    ):
        super().__init__(message)
        self.message = message
        self.retryable = retryable
        self.code = code
        # The message in words a page can show in its reader's language (``core.messages``), when the
        # provider gave one; ``message`` is its English, and the only text of the others.
        self.said = said


class ConfigurationError(ProviderError):
    """A provider is selected but not configured (a missing key): never retryable."""

    def __init__(self, message: str, *, said: Message | None = None):
        super().__init__(message, retryable=False, code="configuration", said=said)


@dataclass(frozen=True)
class Hit:
    """One search result: a page worth opening."""

    url: str
    title: str = ""
    snippet: str = ""
    score: float = 0.0
    published: date | None = None
    provider: str = ""


@dataclass(frozen=True)
class Document:
    """An opened page: its extracted text is the snapshot every quote points into."""

    url: str
    title: str
    text: str
    published: date | None = None
    http_status: int | None = None
    content_type: str = ""
    extraction: str = ""  # how the text was obtained: "trafilatura", "plain", "corpus", ...
    final_url: str = ""  # after redirects; empty when the same as ``url``

    @property
    def sha256(self) -> str:
        return sha256_text(self.text)


@dataclass(frozen=True)
class ChatRequest:
    """One call to a chat model: the conversation so far and the shape the answer must take."""

    model: str
    messages: list[dict[str, Any]]
    response_format: dict[str, Any] | None = None
    max_tokens: int | None = None
    tools: list[dict[str, Any]] | None = None  # OpenAI function schemas the model may call


@dataclass(frozen=True)
class ToolCall:
    """A function call the model asked for; ``arguments`` is its raw JSON text, unchecked."""

    id: str
    name: str
    arguments: str


@dataclass(frozen=True)
class ChatReply:
    """One answer of a chat model, as the API returned it."""

    content: str | None
    finish_reason: str | None
    tokens_in: int
    tokens_out: int
    latency_ms: int
    tool_calls: tuple[ToolCall, ...] = ()


class SearchProvider(Protocol):
    name: str

    def search(self, query: str, *, max_results: int) -> list[Hit]: ...


class Fetcher(Protocol):
    def fetch(self, url: str) -> Document: ...


class ChatClient(Protocol):
    """A chat-completions API. Raises ``ProviderError`` (retryable or not) when the call fails."""

    def complete(self, request: ChatRequest) -> ChatReply: ...
