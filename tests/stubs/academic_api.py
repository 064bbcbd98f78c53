"""Stubs of the three academic search APIs, in their real wire formats, on one 127.0.0.1 server.

- OpenAlex ``GET /works?search=&per-page=&select=``: ``{meta, results: [work], group_by}``, a work's
  abstract as ``abstract_inverted_index`` (word → positions), its DOI as a doi.org URL.
- arXiv ``GET /api/query?search_query=all:a AND all:b&start=&max_results=``: an Atom feed.
- Semantic Scholar ``GET /graph/v1/paper/search?query=&limit=&fields=``: ``{total, offset, data}``;
  a search that finds nothing answers ``{total: 0, offset: 0}`` without ``data``.

Papers are given once (``StubPaper``) and rendered in each format; a search finds the papers whose
title or abstract holds every word of the query. ``fail_next(Failure.http(429))`` and
``Failure.http(500)`` answer the next request with that error, as the real APIs word it.

    with StubAcademic([StubPaper(title=..., abstract=..., doi="10.1/x")]) as api:
        OpenAlexSearch(api.origin).search("solar")
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qs, urlsplit
from xml.sax.saxutils import escape

import pytest

from tests.stubs.json_api import Failure, JsonApiStub, RecordedRequest, StubResponse

__all__ = ["Failure", "StubAcademic", "StubPaper", "stub_academic"]

ATOM_TYPE = "application/atom+xml; charset=utf-8"


@dataclass(frozen=True)
class StubPaper:
    title: str
    abstract: str | None  # None: the API has the paper but not its abstract
    doi: str = ""
    authors: tuple[str, ...] = ()
    venue: str = ""
    year: int | None = None
    arxiv_id: str = ""  # e.g. "2301.01234"; empty: arXiv does not have it
    paper_id: str = field(default="")

    def words(self) -> set[str]:
        return set(re.findall(r"\w+", f"{self.title} {self.abstract or ''}".lower()))


class StubAcademic(JsonApiStub):
    def __init__(self, papers: Sequence[StubPaper] = ()) -> None:
        super().__init__()
        self.papers = list(papers)

    def paths(self) -> list[str]:
        return [urlsplit(request.path).path for request in self.requests]

    def queries(self) -> list[dict[str, list[str]]]:
        return [parse_qs(urlsplit(request.path).query) for request in self.requests]

    def respond(self, request: RecordedRequest, failure: Failure | None) -> StubResponse:
        parts = urlsplit(request.path)
        query = {name: values[-1] for name, values in parse_qs(parts.query).items()}
        route = {
            "/works": self._openalex,
            "/api/query": self._arxiv,
            "/graph/v1/paper/search": self._semantic_scholar,
        }.get(parts.path)
        if request.method != "GET" or route is None:
            return StubResponse(404, {"error": "Not Found"})
        if failure is not None and failure.status != 200:
            return _failure(parts.path, failure)
        response = route(query)
        return StubResponse(
            response.status, response.body, response.headers, delay=failure.delay if failure else 0
        )

    def _found(self, words: Sequence[str], limit: int) -> list[StubPaper]:
        wanted = {word.lower() for word in words if word}
        return [paper for paper in self.papers if wanted and wanted <= paper.words()][:limit]

    def _openalex(self, query: dict[str, str]) -> StubResponse:
        found = self._found(re.findall(r"\w+", query.get("search", "")), int(query.get("per-page", 25)))
        return StubResponse(
            200,
            {
                "meta": {"count": len(found), "db_response_time_ms": 12, "page": 1, "per_page": len(found)},
                "results": [openalex_work(paper, index) for index, paper in enumerate(found)],
                "group_by": [],
            },
        )

    def _arxiv(self, query: dict[str, str]) -> StubResponse:
        words = re.findall(r"all:(\S+)", query.get("search_query", ""))
        found = [p for p in self._found(words, int(query.get("max_results", 10))) if p.arxiv_id]
        return StubResponse(
            200, atom_feed(query.get("search_query", ""), found).encode(), {"Content-Type": ATOM_TYPE}
        )

    def _semantic_scholar(self, query: dict[str, str]) -> StubResponse:
        found = self._found(re.findall(r"\w+", query.get("query", "")), int(query.get("limit", 100)))
        if not found:
            return StubResponse(200, {"total": 0, "offset": 0})
        fields = set(query.get("fields", "").split(","))
        data = [
            {k: v for k, v in s2_paper(p, i).items() if k == "paperId" or k in fields}
            for i, p in enumerate(found)
        ]
        return StubResponse(200, {"total": len(found), "offset": 0, "data": data})


def inverted_index(text: str) -> dict[str, list[int]]:
    index: dict[str, list[int]] = {}
    for position, word in enumerate(text.split()):
        index.setdefault(word, []).append(position)
    return index


def openalex_work(paper: StubPaper, index: int) -> dict[str, Any]:
    return {
        "id": f"https://openalex.org/W{4000000000 + index}",
        "doi": f"https://doi.org/{paper.doi}" if paper.doi else None,
        "display_name": paper.title,
        "publication_year": paper.year,
        "authorships": [
            {"author_position": "first" if i == 0 else "middle", "author": {"id": f"https://openalex.org/A{i}",
             "display_name": name}, "institutions": []}
            for i, name in enumerate(paper.authors)
        ],
        "primary_location": {
            "is_oa": True,
            "landing_page_url": f"https://doi.org/{paper.doi}" if paper.doi else f"https://journal.example/{index}",
            "source": {"id": "https://openalex.org/S1", "display_name": paper.venue, "type": "journal"}
            if paper.venue else None,
        },
        "abstract_inverted_index": inverted_index(paper.abstract) if paper.abstract else None,
    }  # fmt: skip


def atom_feed(search_query: str, papers: Sequence[StubPaper]) -> str:
    entries = "".join(atom_entry(paper) for paper in papers)
    return (
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        '<feed xmlns="http://www.w3.org/2005/Atom" xmlns:opensearch="http://a9.com/-/spec/opensearch/1.1/" '
        'xmlns:arxiv="http://arxiv.org/schemas/atom">\n'
        f'  <link href="http://arxiv.org/api/query?search_query={escape(search_query)}" rel="self" '
        'type="application/atom+xml"/>\n'
        f'  <title type="html">ArXiv Query: search_query={escape(search_query)}</title>\n'
        "  <id>http://arxiv.org/api/stub</id>\n  <updated>2025-01-01T00:00:00-05:00</updated>\n"
        f"  <opensearch:totalResults>{len(papers)}</opensearch:totalResults>\n"
        "  <opensearch:startIndex>0</opensearch:startIndex>\n"
        f"  <opensearch:itemsPerPage>{len(papers)}</opensearch:itemsPerPage>\n{entries}</feed>\n"
    )


def atom_entry(paper: StubPaper) -> str:
    # arXiv wraps titles and abstracts at ~80 columns, with leading spaces.
    summary = "\n  ".join(re.findall(r".{1,70}(?:\s|$)", paper.abstract or ""))
    authors = "".join(
        f"    <author>\n      <name>{escape(name)}</name>\n    </author>\n" for name in paper.authors
    )
    doi = f"    <arxiv:doi>{escape(paper.doi)}</arxiv:doi>\n" if paper.doi else ""
    journal = f"    <arxiv:journal_ref>{escape(paper.venue)}</arxiv:journal_ref>\n" if paper.venue else ""
    year = paper.year or 2024
    return (
        "  <entry>\n"
        f"    <id>http://arxiv.org/abs/{paper.arxiv_id}v2</id>\n"
        f"    <updated>{year}-03-01T00:00:00Z</updated>\n    <published>{year}-01-15T18:00:00Z</published>\n"
        f"    <title>{escape(paper.title)}</title>\n    <summary>  {escape(summary)}\n</summary>\n"
        f"{authors}{doi}{journal}"
        f'    <link href="http://arxiv.org/abs/{paper.arxiv_id}v2" rel="alternate" type="text/html"/>\n'
        f'    <link title="pdf" href="http://arxiv.org/pdf/{paper.arxiv_id}v2" rel="related" '
        'type="application/pdf"/>\n'
        '    <arxiv:primary_category term="cs.LG" scheme="http://arxiv.org/schemas/atom"/>\n'
        "  </entry>\n"
    )


def s2_paper(paper: StubPaper, index: int) -> dict[str, Any]:
    paper_id = paper.paper_id or f"{index:040x}"
    external: dict[str, Any] = {"CorpusId": 1000 + index}
    if paper.doi:
        external["DOI"] = paper.doi
    if paper.arxiv_id:
        external["ArXiv"] = paper.arxiv_id
    return {
        "paperId": paper_id,
        "url": f"https://www.semanticscholar.org/paper/{paper_id}",
        "title": paper.title,
        "abstract": paper.abstract,
        "venue": paper.venue,
        "year": paper.year,
        "externalIds": external,
        "authors": [{"authorId": str(100 + i), "name": name} for i, name in enumerate(paper.authors)],
        "openAccessPdf": {"url": f"https://pdfs.example/{paper_id}.pdf", "status": "GREEN"}
        if paper.doi
        else None,
    }


def _failure(path: str, failure: Failure) -> StubResponse:
    """Errors as each API words them."""
    status = failure.status
    if path == "/api/query":
        body = f'<?xml version="1.0" encoding="UTF-8"?><html><body>{escape(failure.message)}</body></html>'
        return StubResponse(status, body.encode(), {"Content-Type": "text/html", **failure.headers})
    if path == "/graph/v1/paper/search":
        return StubResponse(status, {"message": failure.message, "code": str(status)}, dict(failure.headers))
    return StubResponse(status, {"error": failure.message, "message": failure.message}, dict(failure.headers))


@pytest.fixture
def stub_academic() -> Iterator[StubAcademic]:
    with StubAcademic() as stub:
        yield stub
