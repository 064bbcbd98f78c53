"""A writer that stands in for another: two rejected answers cost the model its draft, never the task."""

from __future__ import annotations

from researchapp.pipeline.structured import FallbackStage
from researchapp.pipeline.values import Brief, Draft, UsageLog
from researchapp.pipeline.writer import Writer


class FallbackWriter(FallbackStage[Writer]):
    """``Writer``: the model's draft, or the extractive writer's once the model's answer is rejected
    twice; the reason goes on the task's record and in the report's method section (``note``)."""

    NOTE = "The model's draft was rejected twice, so the extractive writer wrote this one: {reason}"

    def write(self, brief: Brief, *, usage: UsageLog) -> Draft:
        return self.first_accepted(lambda writer: writer.write(brief, usage=usage))
