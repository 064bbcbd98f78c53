"""The small protocols every provider implements, and the one error type they raise."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from researchapp.pipeline.types import (
    CheckIssue,
    Document,
    Draft,
    Evidence,
    Finding,
    FindingDraft,
    Hit,
    Plan,
    SubQuestion,
    UsageLog,
)


class ProviderError(Exception):
    """A provider could not do what was asked. ``retryable`` says whether trying again can help."""

    def __init__(self, message: str, *, retryable: bool = False, code: str = "provider_error"):
        super().__init__(message)
        self.message = message
        self.retryable = retryable
        self.code = code


class ConfigurationError(ProviderError):
    """A provider is selected but not configured (a missing key): never retryable."""

    def __init__(self, message: str):
        super().__init__(message, retryable=False, code="configuration")


class SearchProvider(Protocol):
    name: str

    def search(self, query: str, *, max_results: int) -> list[Hit]: ...


class Fetcher(Protocol):
    def fetch(self, url: str) -> Document: ...


class Engine(Protocol):
    """Plans, analyses and writes. ``extractive`` does it without a model; ``openai`` with one."""

    name: str

    def plan(self, question: str, *, depth: str, feedback: str = "", usage: UsageLog) -> Plan: ...

    def analyse(
        self, subquestion: SubQuestion, evidence: Sequence[Evidence], *, usage: UsageLog
    ) -> list[FindingDraft]: ...

    def write(
        self,
        question: str,
        subquestions: Sequence[SubQuestion],
        findings: Sequence[Finding],
        *,
        feedback: Sequence[CheckIssue] = (),
        usage: UsageLog,
    ) -> Draft: ...
