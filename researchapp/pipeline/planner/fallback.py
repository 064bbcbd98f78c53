"""A planner that stands in for another: two rejected answers cost the model its plan, never the task."""

from __future__ import annotations

from researchapp.pipeline.planner import Planner
from researchapp.pipeline.structured import FallbackStage
from researchapp.pipeline.values import Plan, UsageLog


class FallbackPlanner(FallbackStage[Planner]):
    """``Planner``: the model's plan, or the template plan once the model's answer is rejected twice;
    the analyst sees why at the plan gate (``note``)."""

    NOTE = "The model's plan was rejected twice, so the template planner drafted this one: {reason}"

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
        return self.first_accepted(
            lambda planner: planner.plan(
                question,
                depth=depth,
                feedback=feedback,
                usage=usage,
                dimensions=dimensions,
                previous=previous,
            )
        )
