"""Quotes of the ledger and the sources they come from, numbered as a report first cites them.

A link is made only from a stored source URL whose scheme is http or https (``safe_link``).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from urllib.parse import urlsplit

from researchapp.core.text import has_hidden
from researchapp.models import Evidence, ResearchTask, Source
from researchapp.pipeline.report import paper_reference

_UNSAFE_IN_URL = frozenset(" \t\r\n\"'<>\\`")


def safe_link(url: str) -> str:
    """``url`` if it is an http(s) address a link may point at; "" for anything else."""
    if not url or any(char in _UNSAFE_IN_URL or ord(char) < 32 for char in url) or has_hidden(url):
        return ""
    try:
        parts = urlsplit(url)
    except ValueError:  # a stored URL that cannot be parsed is shown, never linked
        return ""
    return url if parts.scheme in ("http", "https") and parts.hostname else ""


@dataclass(frozen=True)
class Reference:
    """A source, numbered in the order the report first cites it."""

    number: int
    title: str
    host: str
    url: str
    link: str  # ``url`` if it may be a link, else ""
    accessed: datetime
    sha256: str
    # A paper's reference (academic sources): empty for a web page.
    doi: str = ""
    authors: tuple[str, ...] = ()
    venue: str = ""
    year: int | None = None
    # A local corpus's document: "corpus://<corpus>", where it came from; its URL is only claimed.
    corpus: str = ""

    @property
    def is_paper(self) -> bool:
        return bool(self.doi or self.authors or self.venue or self.year)

    @property
    def byline(self) -> str:
        """ "Lima, Zhang, Okafor et al. · Journal of Photovoltaics · 2023": who, where, when."""
        return paper_reference(self.authors, self.venue, self.year)

    @property
    def doi_link(self) -> str:
        return safe_link(f"https://doi.org/{self.doi}") if self.doi else ""


@dataclass(frozen=True)
class Quote:
    """A quoted passage of the ledger: ``snapshot[start:end] == text``, cut from ``reference``."""

    evidence_id: int
    text: str
    start: int
    end: int
    sha256: str
    relevance: float
    reference: Reference


def evidence_rows(task: ResearchTask, ids: list[int]) -> dict[int, Evidence]:
    rows = Evidence.objects.filter(task=task, pk__in=ids).select_related("source").defer("source__text")
    return {row.pk: row for row in rows}


def quotes_and_references(
    rows: dict[int, Evidence], order: list[int], corpus: str = ""
) -> tuple[dict[int, Quote], list[Reference]]:
    """Quotes for every row; references numbered by first citation in ``order``, then the rest. A
    corpus document's reference names ``corpus`` and is never a link: its URL is only claimed."""
    references: dict[int, Reference] = {}
    quotes: dict[int, Quote] = {}
    for evidence_id in [*order, *sorted(rows)]:
        row = rows.get(evidence_id)
        if row is None or evidence_id in quotes:
            continue
        source: Source = row.source
        if source.pk not in references:
            references[source.pk] = Reference(
                number=len(references) + 1,
                title=source.title or source.host or source.url,
                host=source.host,
                url=source.url,
                link=safe_link(source.link_url),
                accessed=source.fetched_at,
                sha256=source.sha256,
                doi=source.doi,
                authors=tuple(str(name) for name in source.authors or ()),
                venue=source.venue,
                year=source.year,
                corpus=corpus if source.is_corpus_document else "",
            )
        quotes[evidence_id] = Quote(
            evidence_id=row.pk,
            text=row.quote,
            start=row.start,
            end=row.end,
            sha256=row.snapshot_sha256,
            relevance=row.relevance,
            reference=references[source.pk],
        )
    return quotes, list(references.values())
