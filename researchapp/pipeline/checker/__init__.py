"""Checking: a draft against the evidence ledger, before any analyst sees it.

``MechanicalChecker`` verifies what can be verified without judgement (ids, offsets, figures,
coverage); every issue it returns sends the draft back to its writer.
"""

from __future__ import annotations

from typing import Protocol

from researchapp.pipeline.values import Brief, CheckIssue, Draft, Ledger


class Checker(Protocol):
    name: str

    def check(self, draft: Draft, brief: Brief, ledger: Ledger) -> list[CheckIssue]: ...
