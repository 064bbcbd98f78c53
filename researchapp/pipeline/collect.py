"""The collect stage: search a sub-question's queries, open the best pages, and judge them.

Pure Python: takes a search provider and a fetcher (protocols of ``providers.base``) and returns
frozen values. Provider failures never escape: they become warnings the runner records, so one
refused page or one failing search costs its own results only.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

from researchapp.pipeline.types import CollectResult, Document, Hit, Source, SubQuestion
from researchapp.pipeline.types import Warning as StageWarning
from researchapp.pipeline.urls import normalize_url, url_host
from researchapp.providers.base import Fetcher, ProviderError, SearchProvider

__all__ = ["cluster_sources", "collect", "default_rewrite", "density"]

logger = logging.getLogger(__name__)

_STOPWORDS = frozenset(
    """a an and are as at be by can do does for from has have how in is it its of on or that the
    their there these this to was were what when where which who why will with vs versus about
    into than then""".split()
)
_OPERATOR = re.compile(r"^(?:-|\+)|^\w+:(?=\S)")  # -exclude, +require, site:/intitle:/filetype:
_BOOLEAN = frozenset({"AND", "OR", "NOT"})
_REWRITE_WORDS = 6


def default_rewrite(query: str) -> str:
    """A broader form of a query that found nothing: no quotes, operators or stopwords, shorter.

    Returns "" when there is nothing to drop, so the caller does not repeat the same search.
    """
    words = []
    for raw in query.replace('"', " ").replace("“", " ").replace("”", " ").split():
        if raw in _BOOLEAN or _OPERATOR.match(raw):
            continue
        word = raw.strip("()[]{}.,;:!?'")
        if word and word.lower() not in _STOPWORDS:
            words.append(word)
    rewritten = " ".join(words[:_REWRITE_WORDS])
    return "" if rewritten == " ".join(query.split()) else rewritten


@dataclass(frozen=True)
class _Ranked:
    """A deduplicated hit and where it ranks: by its best position in any query's results."""

    hit: Hit
    rank: tuple[int, int]  # (position in its query's results, query order)
    query: str
    key: str  # normalised URL


@dataclass(frozen=True)
class _SearchOutcome:
    query: str
    hits: tuple[Hit, ...]
    warnings: tuple[StageWarning, ...]
    searches: int


def _search_warning(error: Exception, query: str) -> StageWarning:
    if isinstance(error, ProviderError):
        code = "rate_limited" if error.code == "rate_limited" or "429" in error.message else "search_failed"
        return StageWarning(code=code, message=error.message, query=query)
    logger.exception("search provider raised an unexpected error for %r", query)
    return StageWarning(code="search_failed", message=f"{type(error).__name__}: {error}", query=query)


def _run_search(
    search: SearchProvider, query: str, max_results: int, rewrite_query: Callable[[str], str] | None
) -> _SearchOutcome:
    """Search once; if that finds nothing, search once more with the rewritten query."""
    try:
        hits = search.search(query, max_results=max_results)
    except Exception as error:  # a provider's failure is a warning, never the stage's
        return _SearchOutcome(query, (), (_search_warning(error, query),), 1)
    if hits or rewrite_query is None:
        return _SearchOutcome(query, tuple(hits), (), 1)
    broader = rewrite_query(query)
    if not broader or broader == query:
        return _SearchOutcome(query, (), (), 1)
    try:
        hits = search.search(broader, max_results=max_results)
    except Exception as error:  # as above: a warning, not the stage's failure
        return _SearchOutcome(query, (), (_search_warning(error, broader),), 2)
    return _SearchOutcome(broader, tuple(hits), (), 2)


def _merge_hits(outcomes: Sequence[_SearchOutcome]) -> list[_Ranked]:
    """Deduplicate by normalised URL, keep the best-scoring hit at the best rank, sort by rank.

    Ranking by position (the top result of every query first, then every second result, ...)
    keeps one query's long list from crowding out the others; scores from different queries are
    not comparable enough to sort by.
    """
    best: dict[str, _Ranked] = {}
    for order, outcome in enumerate(outcomes):
        for position, hit in enumerate(outcome.hits):
            key = normalize_url(hit.url)
            candidate = _Ranked(hit, (position, order), outcome.query, key)
            seen = best.get(key)
            if seen is None:
                best[key] = candidate
                continue
            better_hit = hit if hit.score > seen.hit.score else seen.hit
            best[key] = _Ranked(better_hit, min(seen.rank, candidate.rank), seen.query, key)
    return sorted(best.values(), key=lambda ranked: ranked.rank)


def _fetch(fetcher: Fetcher, ranked: _Ranked) -> Document | StageWarning:
    try:
        return fetcher.fetch(ranked.hit.url)
    except ProviderError as error:
        return StageWarning(code=error.code, message=error.message, url=ranked.hit.url, query=ranked.query)
    except Exception as error:  # a bug in one page's handling must not lose the others
        logger.exception("fetcher raised an unexpected error for %s", ranked.hit.url)
        return StageWarning(
            code="fetch_failed",
            message=f"{type(error).__name__}: {error}",
            url=ranked.hit.url,
            query=ranked.query,
        )


def collect(
    subquestion: SubQuestion,
    *,
    search: SearchProvider,
    fetcher: Fetcher,
    max_results: int = 5,
    max_sources: int = 8,
    known_urls: frozenset[str] = frozenset(),
    concurrency: int = 4,
    rewrite_query: Callable[[str], str] | None = default_rewrite,
) -> CollectResult:
    """Search and fetch for one sub-question.

    1. Run every query at once (at most ``concurrency`` in flight); an empty result is retried
       once with ``rewrite_query``; a failing search becomes a warning.
    2. Merge the hits: one per normalised URL, ranked by position.
    3. Hits the task already stored (``known_urls``, normalised) are reused, not fetched.
    4. Fetch the rest in rank order, in waves of the sources still missing, so a failed page makes
       room for the next hit; at most ``max_sources`` documents, each failure a warning.
    5. Documents come back in hit rank order, whatever order the fetches finished in.
    """
    queries = list(dict.fromkeys(q.strip() for q in subquestion.queries if q.strip())) or [subquestion.text]
    workers = max(1, concurrency)
    with ThreadPoolExecutor(max_workers=min(workers, len(queries)), thread_name_prefix="search") as pool:
        outcomes = list(pool.map(lambda q: _run_search(search, q, max_results, rewrite_query), queries))
    warnings = [warning for outcome in outcomes for warning in outcome.warnings]

    known = {normalize_url(url) for url in known_urls}
    reused: list[str] = []
    to_fetch: list[_Ranked] = []
    for ranked in _merge_hits(outcomes):
        if ranked.key in known:
            reused.append(ranked.key)
        else:
            to_fetch.append(ranked)

    documents: list[tuple[tuple[int, int], Document]] = []
    seen_pages: set[str] = set()  # two hits may redirect to one page: keep it once
    pages_opened = 0
    with ThreadPoolExecutor(max_workers=workers, thread_name_prefix="fetch") as pool:
        while to_fetch and len(documents) < max_sources:
            missing = max_sources - len(documents)
            wave, to_fetch = to_fetch[:missing], to_fetch[missing:]
            pages_opened += len(wave)
            for ranked, result in zip(wave, pool.map(lambda r: _fetch(fetcher, r), wave), strict=True):
                if isinstance(result, StageWarning):
                    warnings.append(result)
                    continue
                page = normalize_url(result.final_url or result.url)
                if page in known:
                    reused.append(page)
                elif page not in seen_pages:
                    seen_pages.add(page)
                    documents.append((ranked.rank, result))

    return CollectResult(
        documents=tuple(doc for _, doc in sorted(documents, key=lambda item: item[0])),
        warnings=tuple(warnings),
        reused_urls=tuple(dict.fromkeys(reused)),
        searches=sum(outcome.searches for outcome in outcomes),
        pages_opened=pages_opened,
    )


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


def _shingles(text: str) -> frozenset[int]:
    tokens = _TOKEN.findall(text.lower())
    return frozenset(hash(tuple(tokens[i : i + _SHINGLE])) for i in range(len(tokens) - _SHINGLE + 1))


def _near_copies(a: frozenset[int], b: frozenset[int]) -> bool:
    if min(len(a), len(b)) < _MIN_SHINGLES:
        return False
    shared = len(a & b)
    return shared / len(a | b) >= _JACCARD_COPY or shared / min(len(a), len(b)) >= _CONTAINMENT_COPY


def _site(source: Source) -> str:
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
