"""The ledger's vocabulary, shared by the models (as choices) and the pipeline stages."""

from __future__ import annotations

from enum import StrEnum

# How a finding with too little evidence is marked everywhere: review queues, reports, exports.
INSUFFICIENT_MARK = "[证据不足]"
# How a local corpus's document was "extracted": its text is the corpus's, its URL only what the
# corpus file claims (never fetched, never linked).
CORPUS_EXTRACTION = "corpus"


class ModelStage(StrEnum):
    """The stages that call a chat model, named as their calls are recorded (``LLMCall.stage``).

    Each has its own model setting, ``OPENAI_MODEL_<STAGE>`` (empty: ``OPENAI_MODEL``); a stage that
    starts calling a model is one line here and one row in README's environment table.
    """

    PLAN = "plan"
    ANALYSE = "analyse"
    SUPPORT = "support"  # the verdict on each statement the model analyser proposed
    WRITE = "write"
    DEEP = "deep"  # deep mode's research loop, one call per turn
    HYPOTHESES = "hypotheses"


class Intent(StrEnum):
    DESCRIPTIVE = "descriptive"
    COMPARATIVE = "comparative"
    RECOMMENDATION = "recommendation"


class FindingStatus(StrEnum):
    SUPPORTED = "supported"
    CONFLICT = "conflict"
    INSUFFICIENT = "insufficient"


class Stance(StrEnum):
    SUPPORTS = "supports"
    CONTRADICTS = "contradicts"


class HypothesisStatus(StrEnum):
    OPEN = "open"
    ACCEPTED = "accepted"
    REJECTED = "rejected"


class HypothesisStance(StrEnum):
    """How a piece of evidence bears on a hypothesis."""

    SUPPORT = "support"
    REFUTE = "refute"


class Resolution(StrEnum):
    """What an analyst decided about a finding (``NONE`` for a finding nobody had to review)."""

    NONE = ""
    PICKED = "picked"  # a conflict settled on one side: the kept evidence links say which
    DISPUTED = "disputed"  # kept with both sides, reported under "Disputed findings"
    GAP = "gap"  # an insufficient item kept as a "to verify" gap
    DROPPED = "dropped"  # left out of the report
    MORE_RESEARCH = "more_research"
