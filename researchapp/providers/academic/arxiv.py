"""arXiv search through its API (``GET /api/query?search_query=``), which answers an Atom feed:
https://info.arxiv.org/help/api/user-manual.html

An entry's ``summary`` is the abstract. A refused query is answered with one entry whose ``id``
points into ``/api/errors``: that is an error, not a paper.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ElementTree

from researchapp.providers.academic import Paper, normalize_doi
from researchapp.providers.academic.transport import get, make_client, malformed
from researchapp.providers.base import ProviderError

ATOM = "{http://www.w3.org/2005/Atom}"
ARXIV = "{http://arxiv.org/schemas/atom}"
MAX_RESULTS = 50
# arXiv mints a DataCite DOI for every paper (https://info.arxiv.org/help/doi.html); a journal DOI,
# when the authors added one (``arxiv:doi``), is the one we keep.
ARXIV_DOI_PREFIX = "10.48550/arxiv."
WORD = re.compile(r"[^\W_]+(?:[-.][^\W_]+)*")
VERSION = re.compile(r"v\d+$")


class ArxivSearch:
    name = "arxiv"

    def __init__(self, base_url: str = "https://export.arxiv.org", *, timeout: float = 20.0):
        self._client = make_client(base_url, timeout=timeout)

    def search(self, query: str, *, limit: int = 5) -> list[Paper]:
        where = f"arXiv search for {query!r}"
        search_query = arxiv_query(query)
        if not search_query:
            return []
        params = {"search_query": search_query, "start": 0, "max_results": max(1, min(limit, MAX_RESULTS))}
        response = get(self._client, "/api/query", params, where=where)
        return parse_feed(response.content, where=where)[:limit]

    def close(self) -> None:
        self._client.close()


def arxiv_query(query: str) -> str:
    """Free text → arXiv's field syntax: every word in any field (``all:a AND all:b``)."""
    words = WORD.findall(query)
    return " AND ".join(f"all:{word}" for word in words[:12])


def parse_feed(content: bytes, *, where: str) -> list[Paper]:
    try:
        root = ElementTree.fromstring(content)  # expat ≥ 2.4 refuses entity-expansion bombs
    except ElementTree.ParseError as error:
        raise malformed(where, f"not an Atom feed ({error})") from error
    if root.tag != f"{ATOM}feed":
        raise malformed(where, f"not an Atom feed (root element {root.tag!r})")
    papers = []
    for entry in root.findall(f"{ATOM}entry"):
        entry_id = _text(entry, f"{ATOM}id")
        if "/api/errors" in entry_id:
            raise ProviderError(f"{where} was refused: {_text(entry, f'{ATOM}summary')}", code="refused")
        paper = paper_from_entry(entry, entry_id)
        if paper:
            papers.append(paper)
    return papers


def paper_from_entry(entry: ElementTree.Element, entry_id: str) -> Paper | None:
    title = _squash(_text(entry, f"{ATOM}title"))
    text = _squash(_text(entry, f"{ATOM}summary"))
    arxiv_id = VERSION.sub("", entry_id.rsplit("/abs/", 1)[-1]) if "/abs/" in entry_id else ""
    if not title or not text or not arxiv_id:
        return None
    doi = normalize_doi(_text(entry, f"{ARXIV}doi")) or f"{ARXIV_DOI_PREFIX}{arxiv_id}".lower()
    published = _text(entry, f"{ATOM}published")
    year = int(published[:4]) if published[:4].isdigit() else None
    return Paper(
        provider=ArxivSearch.name,
        title=title,
        url=f"https://arxiv.org/abs/{arxiv_id}",
        doi=doi,
        authors=tuple(
            name
            for name in (_squash(_text(author, f"{ATOM}name")) for author in entry.findall(f"{ATOM}author"))
            if name
        ),
        venue=_squash(_text(entry, f"{ARXIV}journal_ref")) or "arXiv",
        year=year,
        text=text,
        full_text=False,
    )


def _text(element: ElementTree.Element, tag: str) -> str:
    found = element.find(tag)
    return (found.text or "").strip() if found is not None else ""


def _squash(text: str) -> str:
    """arXiv wraps titles and abstracts at ~80 columns; the snapshot reads as one paragraph."""
    return " ".join(text.split())
