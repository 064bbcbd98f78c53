"""Checking: a draft against the evidence ledger, before any analyst sees it.

``MechanicalChecker`` verifies what can be verified without judgement (ids, offsets, figures,
coverage); every issue it returns sends the draft back to its writer.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Protocol

from researchapp.pipeline.values import CheckIssue, Draft, Evidence, ReviewedFinding, SubQuestion


class Checker(Protocol):
    name: str

    def check(
        self,
        draft: Draft,
        *,
        evidence: Mapping[int, Evidence],
        snapshots: Mapping[int, str],
        subquestions: Sequence[SubQuestion],
        findings: Sequence[ReviewedFinding],
    ) -> list[CheckIssue]: ...
