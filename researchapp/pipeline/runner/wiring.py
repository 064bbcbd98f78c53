"""One place picks each stage's implementation and model, and builds it.

The only module that imports the provider registry (an import-linter contract keeps it so): the
other runner modules and the services get built stages, collectors, academic APIs and chat models
from here. The engine is chosen per task (``task.engine``): extractive, or a chat model. Each stage
that calls a model (``core.enums.ModelStage``) asks its own, ``OPENAI_MODEL_<STAGE>``, else
``OPENAI_MODEL``. Search and fetch follow the task's search provider: the local corpus (searched in
the database, ``corpus_index``) or the web, through the registry's transports.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.conf import settings

from researchapp.core.enums import ModelStage
from researchapp.models import Corpus, ResearchTask
from researchapp.pipeline.analyser import Analyser
from researchapp.pipeline.analyser.extractive import ExtractiveAnalyser
from researchapp.pipeline.analyser.hypotheses import ModelHypothesisProposer
from researchapp.pipeline.analyser.judge_model import ModelJudge
from researchapp.pipeline.analyser.model import ReadingAnalyser
from researchapp.pipeline.checker import Checker
from researchapp.pipeline.checker.mechanical import MechanicalChecker
from researchapp.pipeline.collector.corpus import IndexedCorpus
from researchapp.pipeline.collector.search import SearchCollector
from researchapp.pipeline.planner import Planner
from researchapp.pipeline.planner.extractive import ExtractivePlanner
from researchapp.pipeline.planner.fallback import FallbackPlanner
from researchapp.pipeline.planner.model import ModelPlanner
from researchapp.pipeline.reader import Reader
from researchapp.pipeline.reader.extractive import ExtractiveReader
from researchapp.pipeline.reader.model import ModelReader
from researchapp.pipeline.runner.corpus_index import DatabaseIndex
from researchapp.pipeline.text.contradiction import DisagreementJudge, RuleJudge
from researchapp.pipeline.writer import Writer
from researchapp.pipeline.writer.extractive import ExtractiveWriter
from researchapp.pipeline.writer.fallback import FallbackWriter
from researchapp.pipeline.writer.model import ModelWriter
from researchapp.providers import registry
from researchapp.providers.academic import AcademicSearch
from researchapp.providers.base import ChatClient, ConfigurationError, Fetcher


@dataclass(frozen=True)
class StageModel:
    """The chat client a stage asks through, and the model it asks."""

    client: ChatClient
    model: str


def check_configuration(task: ResearchTask) -> None:
    """Fail at the start of a task, with a clear reason, if a live provider lacks its key."""
    registry.check_configuration(search=task.search_provider, engine=task.engine)


def model_for(task: ResearchTask, stage: ModelStage) -> StageModel | None:
    """The client and model ``stage`` asks, or ``None`` when the task's engine calls no model."""
    if task.engine not in registry.ENGINES:
        raise ConfigurationError(
            f"unknown engine {task.engine!r}; choose one of {', '.join(registry.ENGINES)}"
        )
    if task.engine != "openai":
        return None
    return StageModel(registry.chat_client(), registry.chat_model(stage))


# --- stages ------------------------------------------------------------------------------------


def planner_for(task: ResearchTask) -> Planner:
    """The template planner, or the model's with the template planner standing in for an answer
    rejected twice."""
    chat = model_for(task, ModelStage.PLAN)
    if chat is None:
        return ExtractivePlanner()
    return FallbackPlanner(ModelPlanner(chat.client, model=chat.model), ExtractivePlanner())


def reader_for(task: ResearchTask) -> Reader:
    """The read stage: the extractive reader (answer types, sentence scoring), or the model's, which
    picks among the candidate sentences the same rule finds, by id (``reader.model``)."""
    chat = model_for(task, ModelStage.ANALYSE)
    if chat is None:
        return ExtractiveReader()
    return ModelReader(chat.client, model=chat.model)


def analyser_for(task: ResearchTask) -> Analyser:
    """Findings from what the task's reader finds the passages state: verbatim pieces, so the model
    engine's findings need no support check (``ReadingAnalyser``)."""
    chat = model_for(task, ModelStage.ANALYSE)
    if chat is None:
        return ExtractiveAnalyser(reader_for(task))
    return ReadingAnalyser(reader_for(task))


def judge_for(task: ResearchTask) -> DisagreementJudge:
    """Do two passages disagree? The rules; with a model, the model too, on the pairs the rules
    flag and on those they pass (``OPENAI_MODEL_JUDGE``, else ``OPENAI_MODEL``)."""
    chat = model_for(task, ModelStage.JUDGE)
    if chat is None:
        return RuleJudge()
    return ModelJudge(chat.client, model=chat.model, rules=RuleJudge())


def writer_for(task: ResearchTask) -> Writer:
    """The extractive writer, or the model's with the extractive writer standing in for an answer
    rejected twice."""
    chat = model_for(task, ModelStage.WRITE)
    if chat is None:
        return ExtractiveWriter()
    return FallbackWriter(ModelWriter(chat.client, model=chat.model), ExtractiveWriter())


def checker_for(task: ResearchTask) -> Checker:
    return MechanicalChecker()


def hypothesis_proposer_for(task: ResearchTask) -> ModelHypothesisProposer | None:
    """The model's proposer, or ``None``: without a model, hypotheses are proposed by rule."""
    chat = model_for(task, ModelStage.HYPOTHESES)
    return None if chat is None else ModelHypothesisProposer(chat.client, model=chat.model)


def deep_model_for(task: ResearchTask) -> StageModel | None:
    """The model that runs deep mode's research loop, or ``None``: the loop runs by rule."""
    return model_for(task, ModelStage.DEEP)


# --- search and fetch --------------------------------------------------------------------------


def local_corpus(task: ResearchTask) -> IndexedCorpus:
    """The task's corpus, searched in the database (``corpus_index``): nothing of it is loaded here."""
    corpus = Corpus.objects.filter(pk=task.corpus_id).first() if task.corpus_id else None
    return IndexedCorpus(DatabaseIndex(corpus))


def collector_for(task: ResearchTask) -> SearchCollector:
    """Search and fetch through the task's corpus, or the web (rate-limited and cached), within the
    task's limits."""
    limits = settings.RESEARCH
    if task.search_provider == "local":
        search = fetcher = local_corpus(task)
    else:
        search = registry.web_search(task.search_provider, depth=task.depth, recency_days=task.recency_days)
        fetcher = registry.http_fetcher()
    return SearchCollector(
        search,
        fetcher,
        max_results=limits["RESULTS_PER_QUERY"],
        max_sources=task.max_sources,
        concurrency=limits["CONCURRENCY"],
    )


# Seconds for the whole fetch of a page an analyst opens by its address: they wait for it.
ANALYST_FETCH_SECONDS = 10.0


def analyst_fetcher() -> Fetcher:
    """The fetcher an analyst waits for (evidence by hand from an address): behind the same SSRF
    guard and limits, at most ``ANALYST_FETCH_SECONDS`` in all, no retry."""
    return registry.inline_fetcher(ANALYST_FETCH_SECONDS)


def academic_providers() -> list[AcademicSearch]:
    """The academic APIs the settings name, in their order; none in the offline profile."""
    return registry.academic_providers()
