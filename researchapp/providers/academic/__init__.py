"""Academic search: papers from scholarly APIs, normalised to ``Paper`` values.

One module per API (``openalex``, ``arxiv``, ``semantic_scholar``), each behind ``AcademicSearch``.
A paper's ``text`` is what becomes its source snapshot: the abstract, or the open-access full text
when the API itself sends it (``full_text`` says which). A paper without any text is skipped, never
padded with a made-up one; a failing API raises ``ProviderError`` and the caller turns it into a
warning, with nothing invented in its place.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from researchapp.providers.ratelimit import RateLimiter

__all__ = ["AcademicSearch", "Paper", "RateLimitedAcademic", "normalize_doi"]


@dataclass(frozen=True)
class Paper:
    provider: str  # "openalex", "arxiv", "semantic_scholar"
    title: str
    url: str  # the landing page (https://doi.org/<doi> when there is a DOI)
    doi: str  # bare and lower-cased ("10.1000/xyz"), "" when the API gives none
    authors: tuple[str, ...]
    venue: str
    year: int | None
    text: str  # the abstract, or the open-access full text (``full_text``)
    full_text: bool = False


class AcademicSearch(Protocol):
    name: str

    def search(self, query: str, *, limit: int = 5) -> list[Paper]: ...


def normalize_doi(value: object) -> str:
    """ "https://doi.org/10.1000/XYZ" or "doi:10.1000/xyz" → "10.1000/xyz" (DOIs are case-insensitive)."""
    if not isinstance(value, str):
        return ""
    doi = value.strip()
    for prefix in (
        "https://doi.org/",
        "http://doi.org/",
        "https://dx.doi.org/",
        "http://dx.doi.org/",
        "doi:",
    ):
        if doi.lower().startswith(prefix):
            doi = doi[len(prefix) :]
            break
    return doi.lower() if doi.startswith("10.") else ""


def doi_url(doi: str) -> str:
    return f"https://doi.org/{doi}" if doi else ""


class RateLimitedAcademic:
    """An academic API that waits its turn in a budget shared by every worker (see ``RateLimiter``)."""

    def __init__(
        self, search: AcademicSearch, limiter: RateLimiter, *, rate_per_second: float, timeout: float
    ):
        self.inner = search
        self.name = search.name
        self.limiter = limiter
        self.rate_per_second = rate_per_second
        self.timeout = timeout

    def search(self, query: str, *, limit: int = 5) -> list[Paper]:
        self.limiter.acquire(
            f"academic:{self.name}", rate_per_second=self.rate_per_second, timeout=self.timeout
        )
        return self.inner.search(query, limit=limit)
