"""Collection: a sub-question's queries become opened pages, and its pages become evidence.

``search.collect`` searches and fetches through any ``SearchProvider`` and ``Fetcher``
(the web through Tavily and httpx, or ``local.LocalCorpus``, the corpus held in memory);
``passages.select_passages`` picks the passages that bear on the sub-question;
``clusters`` judges each page's density and which pages are one voice; ``followup`` writes the
queries of a follow-up round.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

from researchapp.pipeline.values import CollectResult, SubQuestion

# Told where collecting is: (state, pages opened so far, pages to open).
Progress = Callable[[str, int, int], None]


class Collector(Protocol):
    @property
    def name(self) -> str:
        """Where its pages come from ("local", "tavily"), stored as each source's provider."""
        ...

    def collect(
        self, subquestion: SubQuestion, *, known_urls: frozenset[str], progress: Progress | None = None
    ) -> CollectResult:
        """``progress``, when given, is told where collecting is as pages are opened."""
        ...
