from researchapp.models.event import Event, LLMCall
from researchapp.models.evidence import Evidence
from researchapp.models.finding import Finding, FindingEvidence
from researchapp.models.plan import Plan, SubQuestion
from researchapp.models.report import ReportDraft
from researchapp.models.source import Corpus, CorpusDocument, Source
from researchapp.models.task import IllegalTransition, ResearchTask, StaleTransition

__all__ = [
    "Corpus",
    "CorpusDocument",
    "Event",
    "Evidence",
    "Finding",
    "FindingEvidence",
    "IllegalTransition",
    "LLMCall",
    "Plan",
    "ReportDraft",
    "ResearchTask",
    "Source",
    "StaleTransition",
    "SubQuestion",
]
