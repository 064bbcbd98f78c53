from researchapp.models.event import Event, LLMCall
from researchapp.models.evidence import Evidence
from researchapp.models.finding import Finding, FindingEvidence
from researchapp.models.hypothesis import Hypothesis, HypothesisEvidence
from researchapp.models.job import Job, StageJob
from researchapp.models.plan import Plan, SubQuestion
from researchapp.models.quota import SubmissionQuota
from researchapp.models.report import ReportDraft
from researchapp.models.source import Corpus, CorpusDocument, CorpusTerm, Source
from researchapp.models.status import Decidable, IllegalTransition, StaleDecision, StaleState
from researchapp.models.step import Step
from researchapp.models.task import Gate, ResearchTask, Stage

__all__ = [
    "Corpus",
    "CorpusDocument",
    "CorpusTerm",
    "Decidable",
    "Event",
    "Evidence",
    "Finding",
    "FindingEvidence",
    "Gate",
    "Hypothesis",
    "HypothesisEvidence",
    "IllegalTransition",
    "Job",
    "LLMCall",
    "Plan",
    "ReportDraft",
    "ResearchTask",
    "Source",
    "Stage",
    "StageJob",
    "StaleDecision",
    "StaleState",
    "SubmissionQuota",
    "Step",
    "SubQuestion",
]
