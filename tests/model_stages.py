"""The model-backed planner, analyser and writer on one chat client, pointed at a stub server."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from researchapp.pipeline.analyser.model import ModelAnalyser
from researchapp.pipeline.planner.model import ModelPlanner
from researchapp.pipeline.values import Brief
from researchapp.pipeline.writer.model import ModelWriter
from researchapp.providers.chat.openai import OpenAIChat

KEY = "sk-test-key"  # the key the stub chat server expects


@dataclass
class ModelStages:
    planner: ModelPlanner
    analyser: ModelAnalyser
    writer: ModelWriter

    def plan(self, *args: Any, **kwargs: Any):
        return self.planner.plan(*args, **kwargs)

    def analyse(self, *args: Any, **kwargs: Any):
        return self.analyser.analyse(*args, **kwargs)

    def write(self, question, subquestions, findings, *, feedback=(), usage):
        brief = Brief(question, tuple(subquestions), tuple(findings), tuple(feedback))
        return self.writer.write(brief, usage=usage)


def model_stages(
    base_url: str,
    *,
    api_key: str,
    model: str = "stub-small",
    stage_models: dict[str, str] | None = None,
    **client_options: Any,
) -> ModelStages:
    """Each stage on ``model`` unless ``stage_models`` names another for it ("plan", "analyse", "write")."""
    client_options.setdefault("max_retries", 0)  # transport retries are tested on their own
    client = OpenAIChat(api_key, base_url=base_url, **client_options)
    models = {stage: (stage_models or {}).get(stage, model) for stage in ("plan", "analyse", "write")}
    return ModelStages(
        planner=ModelPlanner(client, model=models["plan"]),
        analyser=ModelAnalyser(client, model=models["analyse"]),
        writer=ModelWriter(client, model=models["write"]),
    )


def make_engine(stub, **options: Any) -> ModelStages:
    """The model-backed stages against the stub chat server ``stub`` (see the ``llm`` fixture)."""
    return model_stages(stub.base_url, api_key=KEY, **options)
