"""Writing: reviewed findings become a report draft whose every claim cites evidence ids.

``ExtractiveWriter`` (verbatim sentences, no model) and ``ModelWriter`` (a chat model) both
implement ``Writer``; both render through ``render.render_draft``.
"""

from __future__ import annotations

from typing import Protocol

from researchapp.pipeline.values import Brief, Draft, UsageLog


class Writer(Protocol):
    name: str

    def write(self, brief: Brief, *, usage: UsageLog) -> Draft: ...
