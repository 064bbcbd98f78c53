"""The offline engine: plans, analyses and writes with templates and verbatim sentences.

No model is called, so nothing is recorded in ``usage``; the same input gives the same output,
which is what makes re-running a stage an upsert rather than a second, different answer.
"""

from __future__ import annotations

from collections.abc import Sequence

from researchapp.pipeline.analyse import analyse_extractive
from researchapp.pipeline.planner import plan_extractive
from researchapp.pipeline.types import (
    CheckIssue,
    Draft,
    Evidence,
    Finding,
    FindingDraft,
    Plan,
    SubQuestion,
    UsageLog,
)
from researchapp.pipeline.writer import write_extractive


class ExtractiveEngine:
    name = "extractive"

    def plan(self, question: str, *, depth: str, feedback: str = "", usage: UsageLog) -> Plan:
        return plan_extractive(question, depth=depth, feedback=feedback)

    def analyse(
        self, subquestion: SubQuestion, evidence: Sequence[Evidence], *, usage: UsageLog
    ) -> list[FindingDraft]:
        return analyse_extractive(subquestion, evidence)

    def write(
        self,
        question: str,
        subquestions: Sequence[SubQuestion],
        findings: Sequence[Finding],
        *,
        feedback: Sequence[CheckIssue] = (),
        usage: UsageLog,
    ) -> Draft:
        return write_extractive(question, subquestions, findings, feedback=feedback)
