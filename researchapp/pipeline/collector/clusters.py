"""Page quality and independence: how dense a page's prose is, and which pages are one voice."""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import lru_cache

from researchapp.core.urls import url_host
from researchapp.pipeline.values import Source

# --- page quality: density -------------------------------------------------------------------

_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff]")
_WORD = re.compile(r"[^\W_]+")
_SENTENCE_END = re.compile(r"[.!?。！？…][\"'”’)\]]*(?:\s|$)")
_LIST_MARK = re.compile(r"^(?:[-*•·▪►>]|\d{1,3}[.)]|#\d+)\s")
_URLISH = re.compile(r"https?://|www\.|\b[\w-]+\.(?:com|net|org|io|info|biz)\b", re.IGNORECASE)
_PROSE_UNITS = 12  # a line this long that ends a sentence reads as prose
_RUN_ON_UNITS = 30  # this long, a line is prose even without a full stop
_FULL_LENGTH_UNITS = 150  # shorter texts are thin whatever their shape


def _units(line: str) -> float:
    """Words in a line; CJK has no spaces, so two characters count as one word."""
    return len(_WORD.findall(_CJK.sub(" ", line))) + len(_CJK.findall(line)) / 2


def density(text: str) -> float:
    """Information density in 0..1: ~1 for an article of prose, low for link farms and listicles.

    The share of the text that sits in prose lines (long, sentence-shaped, not list items),
    scaled down for very short texts and for text full of URLs. Thin pages are weighted down
    by the evidence stage, never dropped, so this only has to order pages sensibly.
    """
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    sized = [(line, _units(line)) for line in lines]
    total = sum(units for _, units in sized)
    if total == 0:
        return 0.0
    prose = sum(
        units
        for line, units in sized
        if not _LIST_MARK.match(line)
        and (units >= _RUN_ON_UNITS or (units >= _PROSE_UNITS and _SENTENCE_END.search(line)))
    )
    # Headings and captions keep a real article's prose share near 0.9; treat that as full.
    shape = min(1.0, (prose / total) / 0.85)
    length = min(1.0, total / _FULL_LENGTH_UNITS)
    links = max(0.0, 1.0 - 8 * len(_URLISH.findall(text)) / total)
    return round(shape * length * links, 3)


# --- independence: clusters of sources ------------------------------------------------------

_TOKEN = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff]|[^\W_]+")
_SHINGLE = 5
_JACCARD_COPY = 0.6  # syndicated reprints with their own header and footer
_CONTAINMENT_COPY = 0.8  # an excerpt or a reprint wrapped in a much longer page
_MIN_SHINGLES = 20  # below this, overlap says little: a shared boilerplate sentence is not a copy


@lru_cache(maxsize=1024)
def _shingles(text: str) -> frozenset[int]:
    # A task clusters its sources again after each sub-question's collection: the same texts.
    tokens = _TOKEN.findall(text.lower())
    return frozenset(hash(tuple(tokens[i : i + _SHINGLE])) for i in range(len(tokens) - _SHINGLE + 1))


def _near_copies(a: frozenset[int], b: frozenset[int]) -> bool:
    if min(len(a), len(b)) < _MIN_SHINGLES:
        return False
    shared = len(a & b)
    return shared / len(a | b) >= _JACCARD_COPY or shared / min(len(a), len(b)) >= _CONTAINMENT_COPY


LOCAL_SCHEME = "corpus://"  # a document of an imported folder named by its file (``services.corpus``)


def _site(source: Source) -> str:
    """Who speaks: a web page's site; a local document's own file. A folder imported as a corpus
    is not one source: documents without a ``url:`` of their own are named ``corpus://NAME/file``,
    and each file speaks for itself (one with a ``url:`` front matter speaks as that site)."""
    if source.url.lower().startswith(LOCAL_SCHEME):
        return source.url
    host = (source.host or url_host(source.url)).lower()
    return host.removeprefix("www.")


def cluster_sources(sources: Sequence[Source]) -> dict[int, tuple[str, bool]]:
    """Source id → (cluster label, is primary). Copies of one text and one site's pages are one
    voice: agreement between them is not independent confirmation.

    Labels are ``c<smallest id>`` and the primary is the smallest id, so a cluster keeps its
    label and its primary when later rounds add members.
    """
    ordered = sorted(sources, key=lambda source: source.id)
    parent = {source.id: source.id for source in ordered}

    def root(source_id: int) -> int:
        while parent[source_id] != source_id:
            parent[source_id] = parent[parent[source_id]]
            source_id = parent[source_id]
        return source_id

    def join(a: int, b: int) -> None:
        ra, rb = root(a), root(b)
        if ra != rb:
            parent[max(ra, rb)] = min(ra, rb)  # the smaller id stays the root: it is the label

    first_of_site: dict[str, int] = {}
    for source in ordered:
        site = _site(source)
        if site:
            join(first_of_site.setdefault(site, source.id), source.id)
    shingled = [(source.id, _shingles(source.text)) for source in ordered]
    for i, (id_a, a) in enumerate(shingled):
        for id_b, b in shingled[i + 1 :]:
            if root(id_a) != root(id_b) and _near_copies(a, b):
                join(id_a, id_b)
    return {source.id: (f"c{root(source.id)}", root(source.id) == source.id) for source in ordered}
