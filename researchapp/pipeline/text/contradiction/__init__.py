"""Do these two passages disagree? The judge's interface, its values, and the judge by rules.

A ``Pair`` is two passages of different documents about the same thing (``pairs.candidate_pairs``).
A judge answers each pair ``agree``, ``contradict`` or ``unrelated``; a contradiction records its
kind (``number``, ``date``, ``entity``, ``negation``) and the spans of each side that differ, so
the evidence gate can show them. ``RuleJudge`` (``rules``) aligns the two passages' sentences about
one subject (``align``, with the question's terms from ``focus``) and reads the slots where they
differ by kind (``numbers``, ``dates``, ``entities``, ``polarity``, ``claims``), saying only
``contradict`` or nothing; the model judge (``analyser.judge_model``) asks a chat model about the
same pairs. The wiring module picks one per task.
"""

from __future__ import annotations

from researchapp.pipeline.text.contradiction.rules import RuleJudge, judge_pair
from researchapp.pipeline.text.contradiction.values import (
    AGREE,
    CONTRADICT,
    KINDS,
    MAX_CONTEXT_CHARS,
    UNRELATED,
    VERDICTS,
    DisagreementJudge,
    Judgement,
    Pair,
    Side,
    document_context,
    evidence_side,
)

__all__ = [
    "AGREE",
    "CONTRADICT",
    "KINDS",
    "MAX_CONTEXT_CHARS",
    "UNRELATED",
    "VERDICTS",
    "DisagreementJudge",
    "Judgement",
    "Pair",
    "RuleJudge",
    "Side",
    "document_context",
    "evidence_side",
    "judge_pair",
]
