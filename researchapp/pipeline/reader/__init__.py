"""Reading: a sub-question and its passages become the answer spans the passages state.

``ExtractiveReader`` (answer types, sentence scoring, no model) and ``ModelReader`` (a chat model
picks among the candidate sentences by id and names the span, checked by the same answer-type
rule) both implement ``Reader``; the analyser turns answers into findings.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from researchapp.pipeline.values import Answers, Evidence, SubQuestion, UsageLog


class Reader(Protocol):
    name: str

    def read(
        self,
        subquestion: SubQuestion,
        evidence: Sequence[Evidence],
        *,
        question: str = "",
        usage: UsageLog,
        avoid: dict[int, list[tuple[int, int]]] | None = None,
        common: frozenset[str] = frozenset(),
    ) -> Answers:
        """``avoid``: spans of quotes (by evidence id) that state a disputed figure: never an answer.
        ``common``: terms most documents of the task's corpus hold (its name): they name no subject."""
        ...
