"""Writing: reviewed findings become a report draft whose every claim cites evidence ids.

``ExtractiveWriter`` (verbatim sentences, no model) and ``ModelWriter`` (a chat model) both
implement ``Writer``; both render through ``render.render_draft``. ``FallbackWriter`` lets the first
stand in for the second when the model's answer is rejected twice.
"""

from __future__ import annotations

from typing import Protocol

from researchapp.pipeline.values import Brief, Draft, UsageLog


class Writer(Protocol):
    # Who wrote the last draft ("extractive", "openai"), stored as the draft's engine.
    name: str
    # Why another writer wrote the last draft ("" when this one did): shown in the report's method.
    note: str

    def write(self, brief: Brief, *, usage: UsageLog) -> Draft: ...
