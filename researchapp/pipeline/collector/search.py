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
from dataclasses import dataclass, field

from researchapp.core.urls import normalize_url
from researchapp.pipeline.collector import Progress
from researchapp.pipeline.values import CollectResult, StageWarning, SubQuestion
from researchapp.providers.base import Document, Fetcher, Hit, ProviderError, SearchProvider

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


def _silent(state: str, done: int, total: int) -> None:
    return None


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


def search_warning(error: Exception, query: str) -> StageWarning:
    if isinstance(error, ProviderError):
        code = "rate_limited" if error.code == "rate_limited" or "429" in error.message else "search_failed"
        return StageWarning(code=code, message=error.message, query=query, said=error.said)
    logger.exception("search provider raised an unexpected error for %r", query)
    return StageWarning(code="search_failed", message=f"{type(error).__name__}: {error}", query=query)


def _run_search(
    search: SearchProvider, query: str, max_results: int, rewrite_query: Callable[[str], str] | None
) -> _SearchOutcome:
    """Search once; if that finds nothing, search once more with the rewritten query."""
    try:
        hits = search.search(query, max_results=max_results)
    except Exception as error:  # a provider's failure is a warning, never the stage's
        return _SearchOutcome(query, (), (search_warning(error, query),), 1)
    if hits or rewrite_query is None:
        return _SearchOutcome(query, tuple(hits), (), 1)
    broader = rewrite_query(query)
    if not broader or broader == query:
        return _SearchOutcome(query, (), (), 1)
    try:
        hits = search.search(broader, max_results=max_results)
    except Exception as error:  # as above: a warning, not the stage's failure
        return _SearchOutcome(query, (), (search_warning(error, broader),), 2)
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
        return StageWarning(
            code=error.code, message=error.message, url=ranked.hit.url, query=ranked.query, said=error.said
        )
    except Exception as error:  # a bug in one page's handling must not lose the others
        logger.exception("fetcher raised an unexpected error for %s", ranked.hit.url)
        return StageWarning(
            code="fetch_failed",
            message=f"{type(error).__name__}: {error}",
            url=ranked.hit.url,
            query=ranked.query,
        )


@dataclass
class _Fetched:
    """What the fetch waves brought: documents with their hit's rank, warnings, pages reused, pages opened."""

    documents: list[tuple[tuple[int, int], Document]] = field(default_factory=list)
    warnings: list[StageWarning] = field(default_factory=list)
    reused: list[str] = field(default_factory=list)
    pages_opened: int = 0


def _search_all(
    queries: list[str],
    search: SearchProvider,
    *,
    max_results: int,
    workers: int,
    rewrite_query: Callable[[str], str] | None,
) -> list[_SearchOutcome]:
    with ThreadPoolExecutor(max_workers=min(workers, len(queries)), thread_name_prefix="search") as pool:
        return list(pool.map(lambda q: _run_search(search, q, max_results, rewrite_query), queries))


def _fetch_in_waves(
    to_fetch: list[_Ranked],
    fetcher: Fetcher,
    *,
    known: set[str],
    max_sources: int,
    workers: int,
    tell: Progress,
) -> _Fetched:
    """Fetch in rank order, in waves of the sources still missing, so a failed page makes room for
    the next hit; a page the task already has (after redirects) is reused, one seen twice kept once."""
    fetched = _Fetched()
    seen_pages: set[str] = set()  # two hits may redirect to one page: keep it once
    finished = 0
    planned = min(len(to_fetch), max_sources)
    tell("fetching", 0, planned)
    with ThreadPoolExecutor(max_workers=workers, thread_name_prefix="fetch") as pool:
        while to_fetch and len(fetched.documents) < max_sources:
            missing = max_sources - len(fetched.documents)
            wave, to_fetch = to_fetch[:missing], to_fetch[missing:]
            fetched.pages_opened += len(wave)
            planned = max(planned, fetched.pages_opened)  # a failed page made room for the next hit
            for ranked, result in zip(wave, pool.map(lambda r: _fetch(fetcher, r), wave), strict=True):
                finished += 1
                tell("fetching", finished, planned)
                if isinstance(result, StageWarning):
                    fetched.warnings.append(result)
                    continue
                page = normalize_url(result.final_url or result.url)
                if page in known:
                    fetched.reused.append(page)
                elif page not in seen_pages:
                    seen_pages.add(page)
                    fetched.documents.append((ranked.rank, result))
    return fetched


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
    progress: Progress | None = None,
) -> CollectResult:
    """Search and fetch for one sub-question.

    1. Run every query at once (at most ``concurrency`` in flight); an empty result is retried
       once with ``rewrite_query``; a failing search becomes a warning.
    2. Merge the hits: one per normalised URL, ranked by position.
    3. Hits the task already stored (``known_urls``, normalised) are reused, not fetched.
    4. Fetch the rest in rank order, in waves of the sources still missing, so a failed page makes
       room for the next hit; at most ``max_sources`` documents, each failure a warning.
    5. Documents come back in hit rank order, whatever order the fetches finished in.

    ``progress("fetching", opened, to_open)`` is told as pages are opened (in the calling thread).
    """
    queries = list(dict.fromkeys(q.strip() for q in subquestion.queries if q.strip())) or [subquestion.text]
    workers = max(1, concurrency)
    outcomes = _search_all(
        queries, search, max_results=max_results, workers=workers, rewrite_query=rewrite_query
    )
    known = {normalize_url(url) for url in known_urls}
    ranked = _merge_hits(outcomes)
    reused = [hit.key for hit in ranked if hit.key in known]
    to_fetch = [hit for hit in ranked if hit.key not in known]
    fetched = _fetch_in_waves(
        to_fetch, fetcher, known=known, max_sources=max_sources, workers=workers, tell=progress or _silent
    )
    return CollectResult(
        documents=tuple(doc for _, doc in sorted(fetched.documents, key=lambda item: item[0])),
        warnings=(*(warning for outcome in outcomes for warning in outcome.warnings), *fetched.warnings),
        reused_urls=tuple(dict.fromkeys([*reused, *fetched.reused])),
        searches=sum(outcome.searches for outcome in outcomes),
        pages_opened=fetched.pages_opened,
    )


class SearchCollector:
    """``Collector`` over a search provider and a fetcher, with the task's limits."""

    def __init__(
        self,
        search: SearchProvider,
        fetcher: Fetcher,
        *,
        max_results: int = 5,
        max_sources: int = 8,
        concurrency: int = 4,
    ):
        self.search = search
        self.fetcher = fetcher
        self.max_results = max_results
        self.max_sources = max_sources
        self.concurrency = concurrency

    @property
    def name(self) -> str:
        return self.search.name

    def collect(
        self, subquestion: SubQuestion, *, known_urls: frozenset[str], progress: Progress | None = None
    ) -> CollectResult:
        return collect(
            subquestion,
            search=self.search,
            fetcher=self.fetcher,
            max_results=self.max_results,
            max_sources=self.max_sources,
            known_urls=known_urls,
            concurrency=self.concurrency,
            progress=progress,
        )
