"""Analysis: a sub-question's evidence becomes findings — supported, in conflict, or [证据不足].

``ExtractiveAnalyser`` (verbatim pieces its reader finds, no model), ``ReadingAnalyser`` (the same
around the model reader: the model engine's) and ``ModelAnalyser`` (free statements a chat model
proposes, checked for support) all implement ``Analyser``; the runner picks one per task.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Protocol

from researchapp.pipeline.values import Evidence, ProposedFinding, SubQuestion, UsageLog


class Analyser(Protocol):
    """``disputed``: per evidence id, the spans of its quote that state a side of a disagreement
    the task's judge found (``analyser.disputes``): no supported statement may state one."""

    name: str

    def analyse(
        self,
        subquestion: SubQuestion,
        evidence: Sequence[Evidence],
        *,
        usage: UsageLog,
        disputed: Mapping[int, Sequence[tuple[int, int]]] | None = None,
        question: str = "",
        common: frozenset[str] = frozenset(),
    ) -> list[ProposedFinding]:
        """``question``: the research question the sub-question is part of (a facet asks its focus);
        ``common``: the terms most documents of the task's corpus hold (they name no subject)."""
        ...
