"""Which implementation of each stage a task uses: extractive, or model-backed with its model.

The engine is chosen per task (``task.engine``); the model of each model-backed stage is
configuration (``OPENAI_MODEL`` and the per-stage ``OPENAI_MODEL_<STAGE>``), read through the
provider registry.
"""

from __future__ import annotations

from researchapp.models import ResearchTask
from researchapp.pipeline.analyser import Analyser
from researchapp.pipeline.analyser.extractive import ExtractiveAnalyser
from researchapp.pipeline.analyser.judge_model import ModelJudge
from researchapp.pipeline.analyser.model import ModelAnalyser
from researchapp.pipeline.checker import Checker
from researchapp.pipeline.checker.mechanical import MechanicalChecker
from researchapp.pipeline.planner import Planner
from researchapp.pipeline.planner.extractive import ExtractivePlanner
from researchapp.pipeline.planner.model import ModelPlanner
from researchapp.pipeline.text.contradiction import DisagreementJudge, RuleJudge
from researchapp.pipeline.writer import Writer
from researchapp.pipeline.writer.extractive import ExtractiveWriter
from researchapp.pipeline.writer.model import ModelWriter
from researchapp.providers import registry
from researchapp.providers.base import ConfigurationError


def _uses_model(task: ResearchTask) -> bool:
    if task.engine not in registry.ENGINES:
        raise ConfigurationError(
            f"unknown engine {task.engine!r}; choose one of {', '.join(registry.ENGINES)}"
        )
    return task.engine == "openai"


def planner_for(task: ResearchTask) -> Planner:
    if _uses_model(task):
        return ModelPlanner(registry.chat_client(), model=registry.chat_model("plan"))
    return ExtractivePlanner()


def analyser_for(task: ResearchTask) -> Analyser:
    if _uses_model(task):
        return ModelAnalyser(registry.chat_client(), model=registry.chat_model("analyse"))
    return ExtractiveAnalyser()


def judge_for(task: ResearchTask) -> DisagreementJudge:
    """Do two passages disagree? The rules; with a model, the model too, on the pairs the rules
    flag and on those they pass (``OPENAI_MODEL_JUDGE``, else ``OPENAI_MODEL``)."""
    if _uses_model(task):
        return ModelJudge(registry.chat_client(), model=registry.chat_model("judge"), rules=RuleJudge())
    return RuleJudge()


def writer_for(task: ResearchTask) -> Writer:
    if _uses_model(task):
        return ModelWriter(registry.chat_client(), model=registry.chat_model("write"))
    return ExtractiveWriter()


def checker_for(task: ResearchTask) -> Checker:
    return MechanicalChecker()
