"""Analysis: a sub-question's evidence becomes findings — supported, in conflict, or [证据不足].

``ExtractiveAnalyser`` (verbatim sentences, no model) and ``ModelAnalyser`` (a chat model) both
implement ``Analyser``; the runner picks one per task.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from researchapp.pipeline.values import Evidence, ProposedFinding, SubQuestion, UsageLog


class Analyser(Protocol):
    name: str

    def analyse(
        self,
        subquestion: SubQuestion,
        evidence: Sequence[Evidence],
        *,
        usage: UsageLog,
        question: str = "",
        common: frozenset[str] = frozenset(),
    ) -> list[ProposedFinding]:
        """``question``: the research question the sub-question is part of (a facet asks its focus);
        ``common``: the terms most documents of the task's corpus hold (they name no subject)."""
        ...
