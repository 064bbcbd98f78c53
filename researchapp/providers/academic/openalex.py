"""OpenAlex works search (``GET /works?search=``): https://docs.openalex.org/api-entities/works.

OpenAlex does not send abstracts as text: ``abstract_inverted_index`` maps each word to the
positions it takes, and the abstract is rebuilt by putting the words back in order.
"""

from __future__ import annotations

from typing import Any

from researchapp.providers.academic import Paper, doi_url, normalize_doi
from researchapp.providers.academic.transport import get, json_body, json_object, make_client, malformed

# Only the fields we read: a smaller answer, and the API documents ``select`` for exactly this.
SELECT = "id,doi,display_name,publication_year,authorships,primary_location,abstract_inverted_index"
MAX_PER_PAGE = 50


class OpenAlexSearch:
    name = "openalex"

    def __init__(
        self, base_url: str = "https://api.openalex.org", *, timeout: float = 20.0, mailto: str = ""
    ):
        self.mailto = mailto  # OpenAlex's "polite pool": faster answers for a contact address
        self._client = make_client(base_url, timeout=timeout)

    def search(self, query: str, *, limit: int = 5) -> list[Paper]:
        where = f"OpenAlex search for {query!r}"
        params: dict[str, Any] = {
            "search": query,
            "per-page": max(1, min(limit, MAX_PER_PAGE)),
            "select": SELECT,
        }
        if self.mailto:
            params["mailto"] = self.mailto
        body = json_body(get(self._client, "/works", params, where=where), where=where)
        results = body.get("results")
        if not isinstance(results, list):
            raise malformed(where, "no 'results' list")
        papers = [paper for paper in (paper_from_work(work) for work in results) if paper]
        return papers[:limit]

    def close(self) -> None:
        self._client.close()


def paper_from_work(work: Any) -> Paper | None:
    """One OpenAlex work → ``Paper``; a work without a title or an abstract is skipped."""
    if not isinstance(work, dict):
        return None
    title = str(work.get("display_name") or work.get("title") or "").strip()
    text = rebuild_abstract(work.get("abstract_inverted_index"))
    if not title or not text:
        return None
    doi = normalize_doi(work.get("doi"))
    location = json_object(work.get("primary_location"))
    source = json_object(location.get("source"))
    url = doi_url(doi) or str(location.get("landing_page_url") or work.get("id") or "")
    if not url.startswith(("http://", "https://")):
        return None
    year = work.get("publication_year")
    return Paper(
        provider=OpenAlexSearch.name,
        title=title,
        url=url,
        doi=doi,
        authors=tuple(
            str(a["author"]["display_name"])
            for a in work.get("authorships") or []
            if isinstance(a, dict) and isinstance(a.get("author"), dict) and a["author"].get("display_name")
        ),
        venue=str(source.get("display_name") or ""),
        year=year if isinstance(year, int) and not isinstance(year, bool) else None,
        text=text,
        full_text=False,
    )


def rebuild_abstract(index: Any) -> str:
    """``{"Solar": [0], "panels": [1, 5], ...}`` → "Solar panels ..."; anything else → ""."""
    if not isinstance(index, dict):
        return ""
    placed: dict[int, str] = {}
    for word, positions in index.items():
        if not isinstance(positions, list):
            return ""
        for position in positions:
            if isinstance(position, int) and not isinstance(position, bool) and position >= 0:
                placed[position] = str(word)
    return " ".join(placed[position] for position in sorted(placed)).strip()
