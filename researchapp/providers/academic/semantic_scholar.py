"""Semantic Scholar paper search (``GET /graph/v1/paper/search``):
https://api.semanticscholar.org/api-docs/graph#tag/Paper-Data/operation/get_graph_paper_relevance_search

The API sends the abstract as text (or null: some publishers do not allow it) and, for open-access
papers, a PDF link; it does not send the full text itself, so ``text`` is the abstract.
"""

from __future__ import annotations

from typing import Any

from researchapp.providers.academic import Paper, doi_url, normalize_doi
from researchapp.providers.academic.transport import get, json_body, json_object, make_client, malformed

FIELDS = "title,abstract,authors,venue,year,externalIds,url,openAccessPdf"
MAX_LIMIT = 100


class SemanticScholarSearch:
    name = "semantic_scholar"

    def __init__(
        self, base_url: str = "https://api.semanticscholar.org", *, timeout: float = 20.0, api_key: str = ""
    ):
        # Without a key the API shares one rate limit among all keyless callers: 429s are common.
        headers = {"x-api-key": api_key} if api_key else {}
        self._client = make_client(base_url, timeout=timeout, headers=headers)

    def search(self, query: str, *, limit: int = 5) -> list[Paper]:
        where = f"Semantic Scholar search for {query!r}"
        params = {"query": query, "limit": max(1, min(limit, MAX_LIMIT)), "fields": FIELDS}
        body = json_body(get(self._client, "/graph/v1/paper/search", params, where=where), where=where)
        data = body.get("data", [])  # a search that matches nothing answers without "data"
        if not isinstance(data, list):
            raise malformed(where, "'data' is not a list")
        papers = [paper for paper in (paper_from_result(item) for item in data) if paper]
        return papers[:limit]

    def close(self) -> None:
        self._client.close()


def paper_from_result(item: Any) -> Paper | None:
    if not isinstance(item, dict):
        return None
    title = str(item.get("title") or "").strip()
    text = str(item.get("abstract") or "").strip()
    if not title or not text:
        return None
    ids = json_object(item.get("externalIds"))
    doi = normalize_doi(ids.get("DOI"))
    url = doi_url(doi) or str(item.get("url") or "")
    if not url.startswith(("http://", "https://")):
        return None
    year = item.get("year")
    return Paper(
        provider=SemanticScholarSearch.name,
        title=title,
        url=url,
        doi=doi,
        authors=tuple(
            str(author["name"])
            for author in item.get("authors") or []
            if isinstance(author, dict) and author.get("name")
        ),
        venue=str(item.get("venue") or ""),
        year=year if isinstance(year, int) and not isinstance(year, bool) else None,
        text=text,
        full_text=False,
    )
