"""Planning: a question becomes 3–6 sub-questions, each with search queries, and an intent.

``ExtractivePlanner`` (templates, no model) and ``ModelPlanner`` (a chat model) both implement
``Planner``; so does ``FallbackPlanner``, which lets the first stand in for the second when the
model's answer is rejected twice. ``runner.wiring`` picks them per task.
"""

from __future__ import annotations

from typing import Protocol

from researchapp.pipeline.values import Plan, UsageLog


class Planner(Protocol):
    # Who drafted the last plan ("extractive", "openai"), stored as the plan's engine.
    name: str
    # What the analyst should know about how the last plan was drafted ("" when nothing).
    note: str

    def plan(
        self,
        question: str,
        *,
        depth: str,
        feedback: str = "",
        usage: UsageLog,
        dimensions: tuple[str, ...] | None = None,
        previous: Plan | None = None,
    ) -> Plan:
        """``dimensions``: what the sources found for a comparison's options discuss (``None``: not asked).
        ``previous``: the rejected version ``feedback`` is about; the new plan is it, feedback applied."""
        ...
