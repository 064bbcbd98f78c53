"""Frozen values passed between pipeline stages.

Stages take and return these; they never see a Django model. ``runner`` is the only place that
turns database rows into these values and stores what stages return. What providers return
(``Hit``, ``Document``) is defined with the providers, and the ledger's vocabulary (statuses,
stances, resolutions) in ``researchapp.core``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from researchapp.core.enums import FindingStatus, Intent, Resolution, Stance
from researchapp.core.messages import Message
from researchapp.providers.base import Document

# --- plan -------------------------------------------------------------------------------------


@dataclass(frozen=True)
class PlannedSubQuestion:
    text: str
    rationale: str
    queries: tuple[str, ...]


@dataclass(frozen=True)
class Plan:
    intent: Intent
    subquestions: tuple[PlannedSubQuestion, ...]


@dataclass(frozen=True)
class SubQuestion:
    """A stored sub-question as the later stages see it."""

    id: int
    text: str
    queries: tuple[str, ...]
    order: int = 0


# --- collect ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class StageWarning:
    """Something that went wrong but did not stop the stage (a refused page, a failing provider)."""

    code: str  # "fetch_failed", "search_failed", "empty_extraction", "rate_limited", ...
    message: str
    url: str = ""
    query: str = ""
    # ``message`` as a stored message (``core.messages``) a page shows in its reader's language, when
    # whoever raised it gave one.
    said: Message | None = None


@dataclass(frozen=True)
class CollectResult:
    documents: tuple[Document, ...]
    warnings: tuple[StageWarning, ...] = ()
    reused_urls: tuple[str, ...] = ()  # normalised URLs the task had already stored: not fetched again
    searches: int = 0
    pages_opened: int = 0


@dataclass(frozen=True)
class Source:
    """A stored source as the evidence stage sees it."""

    id: int
    url: str
    title: str
    text: str
    host: str = ""
    density: float = 1.0  # 0..1, thin pages (link farms, listicles) weigh less, never dropped
    cluster: str = ""  # independence cluster: syndicated copies and one host's pages share one


# --- evidence ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Passage:
    """A span of a source's snapshot: ``source.text[start:end] == quote`` always."""

    source_id: int
    start: int
    end: int
    quote: str
    score: float
    relevance: float = 0.0  # weighted share of the sub-question's salient terms it holds
    question_relevance: float = 0.0  # the same for the research question's subject and focus
    matched_terms: tuple[str, ...] = ()
    clears_bar: bool = True  # False: one of the closest passages, kept to show what was found


@dataclass(frozen=True)
class Evidence:
    """A stored passage as the analysis and writing stages see it."""

    id: int
    source_id: int
    subquestion_id: int
    start: int
    end: int
    quote: str
    score: float
    source_url: str = ""
    source_title: str = ""
    cluster: str = ""
    relevance: float = 0.0
    question_relevance: float = 0.0
    matched_terms: tuple[str, ...] = ()
    clears_bar: bool = True  # False: a closest passage that is not evidence; never a finding's support
    source_reference: str = ""  # a paper's authors, venue, year and DOI; "" for a web page
    heading: str = ""  # the headings above the passage on its page: what it is under


# --- read -------------------------------------------------------------------------------------


@dataclass(frozen=True)
class AnswerSpan:
    """What one passage says that answers a sub-question: the piece of its quote that is quoted
    (a sentence, a lead-in with its list, a term with its description) and, inside it, the answer.
    ``quote[start:end]`` is the piece and ``quote[answer_start:answer_end] == answer``."""

    evidence_id: int
    start: int  # offsets into the evidence's quote
    end: int
    answer_start: int
    answer_end: int
    answer: str
    score: float
    agreeing: tuple[int, ...] = ()  # other evidence whose quotes state the same answer


@dataclass(frozen=True)
class Answers:
    """A reader's answer to one sub-question: the answering pieces, best first, or none when no
    passage states an answer of the asked type (the item is then [证据不足])."""

    subquestion_id: int
    answer_type: str
    spans: tuple[AnswerSpan, ...] = ()
    reason: str = ""  # why nothing answers, for the analyst: "no passage states a percentage"


# --- analyse ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class EvidenceLink:
    evidence_id: int
    stance: Stance = Stance.SUPPORTS


@dataclass(frozen=True)
class Disagreement:
    """Why a ``conflict`` finding is one: the kind of disagreement ("number", "date", "entity",
    "negation", or "" when a model judge did not say), the spans of each linked quote that differ
    (evidence id → (start, end) offsets into its quote: what the evidence gate highlights), the
    judges' reason and which judges said so ("rules", "model")."""

    kind: str
    spans: Mapping[int, tuple[tuple[int, int], ...]] = field(default_factory=dict)
    reason: str = ""
    judges: tuple[str, ...] = ()


@dataclass(frozen=True)
class ProposedFinding:
    """What analysis proposes. ``key`` is stable for the same input so re-runs upsert, not add."""

    key: str
    subquestion_id: int
    status: FindingStatus
    statement: str
    confidence: str = ""  # "high" (2+ independent clusters agree), "medium" (one), "" (none)
    links: tuple[EvidenceLink, ...] = ()
    disagreement: Disagreement | None = None  # a conflict's kind and differing spans
    answer: str = ""  # the words of the statement that answer the sub-question ("1,000,000,000")


@dataclass(frozen=True)
class ReviewedFinding:
    """A stored finding, with the analysts' decision on it, as the writer sees it."""

    id: int
    subquestion_id: int
    status: FindingStatus
    statement: str
    confidence: str
    resolution: Resolution
    links: tuple[EvidenceLink, ...]
    evidence: tuple[Evidence, ...]  # every evidence row the links (and ``set_aside``) point at
    note: str = ""  # the analyst's note, if any
    # The side an analyst did not pick (with its original stance): the report quotes it, never cites it.
    set_aside: tuple[EvidenceLink, ...] = ()
    decided_by: str = ""  # who decided (a username), "" if nobody did
    decided_at: str = ""  # when, ISO 8601 in UTC
    searched: tuple[str, ...] = ()  # the sub-question's queries, every round's
    disagreement: Disagreement | None = None  # a conflict's kind and the spans of each side that differ
    answer: str = ""  # the words of the statement that answer the sub-question, "" if not read


# --- write and check --------------------------------------------------------------------------


@dataclass(frozen=True)
class Claim:
    """One sentence of the report and the evidence ids that back it."""

    text: str
    evidence_ids: tuple[int, ...]
    section: str = ""  # sub-question id as text, "answer", "disputed" or "gaps"
    answer: str = ""  # the words of ``text`` that answer (the report shows them first), "" if none
    about: str = ""  # an "answer" claim's sub-question id, as text


@dataclass(frozen=True)
class Draft:
    markdown: str
    claims: tuple[Claim, ...]
    # The report's structure as stored with the draft (``pipeline.report.document``, as JSON):
    # what every export renders, so that no format re-reads the Markdown.
    document: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class CheckIssue:
    """One problem with a draft, with what a writer needs to fix it: ``message`` is for people
    (and the model writer's prompt), the fields are for code, never read back out of the message.

    ``claim`` is the text of the claim at fault (a revision names claims by text: indices do not
    survive one that dropped claims); ``evidence_ids`` are the citations at fault (a bad quote
    costs its claim that citation only); ``figure`` is the number at fault, as written.
    """

    code: str  # "unknown_evidence", "quote_mismatch", "number_not_in_quote", "uncovered", "uncited"
    message: str
    claim_index: int | None = None
    claim: str = ""
    evidence_ids: tuple[int, ...] = ()
    figure: str = ""

    def as_json(self) -> dict[str, Any]:
        """As ``ReportDraft.check_issues`` stores it."""
        return {
            "code": self.code,
            "message": self.message,
            "claim_index": self.claim_index,
            "claim": self.claim,
            "evidence_ids": list(self.evidence_ids),
            "figure": self.figure,
        }


@dataclass(frozen=True)
class Brief:
    """What a writer is given, and what its draft is checked against."""

    question: str
    subquestions: tuple[SubQuestion, ...]
    findings: tuple[ReviewedFinding, ...]
    feedback: tuple[CheckIssue, ...] = ()  # the last check's issues, or the analyst's comments


@dataclass(frozen=True)
class Ledger:
    """The cited evidence as stored, and the snapshot (by source id) each quote was cut from."""

    evidence: Mapping[int, Evidence]
    snapshots: Mapping[int, str]


@dataclass(frozen=True)
class LLMUsage:
    """One call to a language model, recorded by the runner as an LLMCall row."""

    stage: str
    model: str
    tokens_in: int
    tokens_out: int
    latency_ms: int
    ok: bool = True
    error: str = ""


@dataclass
class UsageLog:
    """Collects the model calls a stage made; the runner stores them afterwards."""

    calls: list[LLMUsage] = field(default_factory=list)

    def record(self, usage: LLMUsage) -> None:
        self.calls.append(usage)
