"""The values every judge of disagreement shares: a passage (``Side``), a candidate ``Pair``, a
``Judgement``, and the judge's interface."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date
from typing import Protocol

from researchapp.pipeline.text.contradiction.statements import passage_topic
from researchapp.pipeline.text.tokens import Span
from researchapp.pipeline.values import Evidence, UsageLog

AGREE, CONTRADICT, UNRELATED = "agree", "contradict", "unrelated"
VERDICTS = (AGREE, CONTRADICT, UNRELATED)
KINDS = ("number", "date", "entity", "negation")


@dataclass(frozen=True)
class Side:
    """A passage: ``text`` is its source's snapshot at ``start:end``. ``evidence_id`` is ``None``
    for a passage of an opened source that is not evidence (yet): the other side of a pair."""

    source_id: int
    start: int
    end: int
    text: str
    evidence_id: int | None = None
    subquestion_id: int | None = None
    score: float = 0.0
    # The whole document when it is short (a post, a claim, a short page): what the passage is
    # about may be named in the sentence next to it ("... dubbed the CARES Act").
    context: str = ""
    published: date | None = None  # the document's date: "20 years ago" counts back from it
    # What the passage was found for: its sub-question and the task's question. It names the
    # subject two passages must share and the kind of fact that is asked (``focus``).
    question: str = ""

    @property
    def place(self) -> tuple[int, int, int]:
        return (self.source_id, self.start, self.end)

    @property
    def topic(self) -> frozenset[str]:
        return passage_topic(self.text) | (passage_topic(self.context) if self.context else frozenset())


MAX_CONTEXT_CHARS = 2000  # a document this short is what each of its passages is about


def document_context(text: str) -> str:
    return text if len(text) <= MAX_CONTEXT_CHARS else ""


def evidence_side(
    item: Evidence, snapshot: str = "", published: date | None = None, question: str = ""
) -> Side:
    """A stored passage as one side of a pair (its quote is its snapshot at its offsets)."""
    return Side(
        item.source_id,
        item.start,
        item.end,
        item.quote,
        item.id,
        item.subquestion_id,
        item.score,
        document_context(snapshot),
        published,
        question,
    )


@dataclass(frozen=True)
class Pair:
    first: Side
    second: Side
    shared: tuple[str, ...] = ()  # the words that say they are about one thing
    # Paired only because both answer the question (one shared term of it): figures, dates and
    # names of two such passages may measure two things, so only one denying the other counts.
    bridged: bool = False

    @property
    def question(self) -> str:
        """What the pair's evidence was found for (a passage of an opened source has none)."""
        return self.first.question or self.second.question


@dataclass(frozen=True)
class Judgement:
    pair: Pair
    verdict: str
    kind: str = ""
    first_spans: tuple[Span, ...] = ()  # offsets into pair.first.text: what differs
    second_spans: tuple[Span, ...] = ()
    reason: str = ""
    judge: str = "rules"
    rule: str = ""  # which mechanism of the rules saw it ("values", "refutation", ...)


class DisagreementJudge(Protocol):
    name: str

    def judge(self, pairs: Sequence[Pair], *, usage: UsageLog) -> list[Judgement]: ...
