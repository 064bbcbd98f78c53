"""Academic papers stored as sources: the abstract (or open-access full text) is the snapshot."""

from __future__ import annotations

from collections.abc import Sequence

from django.db import IntegrityError, transaction

from researchapp.core.urls import normalize_url
from researchapp.models import ResearchTask, Source, Stage, SubQuestion
from researchapp.pipeline import values
from researchapp.pipeline.collector.clusters import density
from researchapp.pipeline.runner.collect import recluster
from researchapp.pipeline.runner.rows import record_warnings
from researchapp.pipeline.runner.wiring import academic_providers
from researchapp.providers.academic import AcademicSearch, Paper
from researchapp.providers.base import ProviderError

EXTRACTION_ABSTRACT = "abstract"
EXTRACTION_FULL_TEXT = "full_text"


def store_paper(task: ResearchTask, paper: Paper, *, subquestion: SubQuestion, round: int) -> Source:  # noqa: A002
    """Upsert a paper as a source of ``task`` and link it to ``subquestion``.

    (``round`` is the name the deep loop calls it by.)

    1. One source per paper per task: a paper already stored under its DOI or its URL (another
       API found it first) is reused, never stored twice; a paper without text is refused.
    2. Store its text as the snapshot (the SHA-256 is taken on save) with its reference: DOI,
       authors, venue, year.
    3. Link it to the sub-question and re-cluster the task's sources, as for web pages.
    """
    if not paper.text.strip():
        raise ValueError(f"paper {paper.title!r} from {paper.provider} has no text to store")
    source = existing_paper(task, paper) or create_paper_source(task, paper, round_no=round)
    subquestion.sources.add(source)
    recluster(task)
    return source


def existing_paper(task: ResearchTask, paper: Paper) -> Source | None:
    sources = Source.objects.filter(task=task)
    if paper.doi:
        found = sources.filter(doi=paper.doi).first()
        if found:
            return found
    return sources.filter(normalized_url=normalize_url(paper.url)).first()


def create_paper_source(task: ResearchTask, paper: Paper, *, round_no: int) -> Source:
    try:
        with transaction.atomic():
            return Source.objects.create(
                task=task,
                url=paper.url,
                title=paper.title[:500],
                text=paper.text,
                extraction=EXTRACTION_FULL_TEXT if paper.full_text else EXTRACTION_ABSTRACT,
                content_type="text/plain",
                provider=paper.provider,
                density=density(paper.text),
                round=round_no,
                doi=paper.doi[:255],
                authors=list(paper.authors),
                venue=paper.venue[:500],
                year=paper.year if paper.year and 0 < paper.year < 32768 else None,
            )
    except IntegrityError:  # another worker stored it between our look and our insert
        return Source.objects.get(task=task, normalized_url=normalize_url(paper.url))


def search_papers(
    task: ResearchTask,
    subquestion: SubQuestion,
    query: str,
    *,
    round_no: int,
    limit: int = 5,
    providers: Sequence[AcademicSearch] | None = None,
) -> list[Source]:
    """Ask every configured academic API for ``query`` and store what they find, once per paper.

    An API that fails (429, 5xx, a timeout, an unreadable answer) becomes a warning on the task
    and the others still answer: nothing is stored in its place. Returns the sources, in the
    order the APIs answered, without repeats.
    """
    found: dict[int, Source] = {}
    warnings = []
    for provider in academic_providers() if providers is None else providers:
        try:
            papers = provider.search(query, limit=limit)
        except ProviderError as error:
            warnings.append(
                values.StageWarning(code=error.code or "search_failed", message=error.message, query=query)
            )
            continue
        for paper in papers:
            if paper.text.strip():
                source = store_paper(task, paper, subquestion=subquestion, round=round_no)
                found.setdefault(source.pk, source)
    record_warnings(task, Stage.COLLECTING, warnings)
    return list(found.values())
