"""Writing: reviewed findings become a report draft whose every claim cites evidence ids.

``ExtractiveWriter`` (verbatim sentences, no model) and ``ModelWriter`` (a chat model) both
implement ``Writer``; both render through ``render.render_draft``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from researchapp.pipeline.values import CheckIssue, Draft, ReviewedFinding, SubQuestion, UsageLog


class Writer(Protocol):
    name: str

    def write(
        self,
        question: str,
        subquestions: Sequence[SubQuestion],
        findings: Sequence[ReviewedFinding],
        *,
        feedback: Sequence[CheckIssue] = (),
        usage: UsageLog,
    ) -> Draft: ...
