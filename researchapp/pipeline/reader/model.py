"""The model reader: a chat model picks, among labelled candidate sentences, the one that answers.

The frame is the extractive reader's (``reader.extractive``): the sub-question is read for its
answer type, focus and subject, and only the pieces that state an answer of that type (a figure
in the asked unit, a version, a name …) and bear on a question are candidates. The model is shown
at most ``MAX_CANDIDATES`` of them, best first, numbered, and answers with the number of the one
that answers (an ``enum`` of the numbers shown, 0 for none) and the words of it that are the answer
(bounded): a few dozen tokens, one call per ask. Its answer is checked by the same rule: the words
must stand in the picked piece and themselves state an answer of the asked type, or the rule's own
span of that piece is the answer. What the model picks is quoted verbatim, so no statement of the
model's needs checking against its passages.

A model that picks none where the rule found an answer does not take that answer away (a weak
model says "none" at random), and an answer rejected twice costs the model this sub-question,
never the answer: the extractive reader's stands.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from researchapp.pipeline import structured
from researchapp.pipeline.reader.extractive import (
    FOCUS_BAR,
    STATEMENT_BAR,
    _Candidate,
    _candidates,
    _same_answer,
    read_extractive,
    readings_of,
)
from researchapp.pipeline.reader.spans import answer_span
from researchapp.pipeline.text.answer_type import QuestionAnalysis
from researchapp.pipeline.text.aspects import dimension_vocabulary, dimensions_of
from researchapp.pipeline.text.support import is_statement
from researchapp.pipeline.values import Answers, AnswerSpan, Evidence, SubQuestion, UsageLog
from researchapp.providers.base import ChatClient, ProviderError

STAGE = "analyse"  # recorded as the analyse stage's calls, on its model (``OPENAI_MODEL_ANALYSE``)
SCHEMA_NAME = "read"
MAX_CANDIDATES = 6
MAX_ASKS = 2  # "When was it built, and how tall is it?": one call per ask, at most this many
MAX_PIECE_CHARS = 400  # what a candidate shows of a long piece (a list, a table's row)
MAX_ANSWER_CHARS = 40
# {"pick": 3, "answer": "<= 40 characters"}: figures cost a token a digit, and a grammar-bound
# server lets a model put whitespace between the tokens of the JSON.
MAX_TOKENS = 96
# A piece shown to the model holds as much of the question as an answer of the rule's must: the
# model chooses among the pieces the rule would accept, so it never answers what no piece states.
CANDIDATE_BAR = FOCUS_BAR

SYSTEM = f"""You answer one question from numbered sentences quoted from documents.
{structured.UNTRUSTED_NOTICE}
- "pick": the number of the sentence that answers the question, or 0 when none of them does.
- "answer": the few words of that sentence that are the answer (a value with its unit, a name, \
a date, a version), copied exactly as written; "" when "pick" is 0.
Use no outside knowledge. Answer with one JSON object that matches the schema, nothing else."""


def read_schema(count: int) -> dict[str, Any]:
    return structured.json_object(
        {
            "pick": {"type": "integer", "enum": list(range(count + 1))},
            "answer": {"type": "string", "maxLength": MAX_ANSWER_CHARS},
        }
    )


def read_messages(ask: str, shown: Sequence[_Candidate]) -> list[structured.Message]:
    numbered = "\n".join(
        f'<untrusted_source id="{number}">{structured.defuse(_shown_text(candidate))}</untrusted_source>'
        for number, candidate in enumerate(shown, start=1)
    )
    user = f"<question>{structured.defuse(ask)}</question>\n\n<passages>\n{numbered}\n</passages>"
    return [{"role": "system", "content": SYSTEM}, {"role": "user", "content": user}]


def _shown_text(candidate: _Candidate) -> str:
    text = " ".join(candidate.piece.split())
    return text if len(text) <= MAX_PIECE_CHARS else text[: MAX_PIECE_CHARS - 1] + "…"


def pick_of(data: dict[str, Any], shown: Sequence[_Candidate]) -> tuple[int, str]:
    """The number picked (0: none) and the answer words, checked: a number shown, a string."""
    pick = structured.field_of(data, "pick", int, "the answer")
    if not 0 <= pick <= len(shown):
        raise structured.AnswerRejected(f"pick must be one of 0..{len(shown)}, got {pick}")
    answer = structured.field_of(data, "answer", str, "the answer")
    return pick, " ".join(answer.split())


def checked_span(candidate: _Candidate, words: str, analysis: QuestionAnalysis) -> tuple[int, int]:
    """The model's answer words inside the picked piece, when they stand there verbatim and state an
    answer of the asked type themselves (a figure for "how many", a version for "since which");
    otherwise the rule's span of the piece."""
    piece = candidate.piece
    at = piece.find(words) if words else -1
    if at < 0 or answer_span(words, analysis) is None:
        return candidate.span
    start = candidate.unit.start + at
    return start, start + len(words)


def answer_of(candidate: _Candidate, span: tuple[int, int], others: Sequence[_Candidate]) -> AnswerSpan:
    agreeing = tuple(
        dict.fromkeys(
            other.item.id
            for other in others
            if other.item.id != candidate.item.id and _same_answer(candidate, other)
        )
    )
    return AnswerSpan(
        candidate.item.id,
        candidate.unit.start,
        candidate.unit.end,
        span[0],
        span[1],
        candidate.item.quote[span[0] : span[1]],
        round(candidate.score, 4),
        agreeing,
    )


def shown_candidates(found: Sequence[_Candidate], bar: float) -> list[_Candidate]:
    """The best pieces holding enough of the question, each piece once, at most ``MAX_CANDIDATES``."""
    shown: list[_Candidate] = []
    seen: set[str] = set()
    for candidate in sorted(found, key=lambda c: (-c.score, c.item.id, c.unit.start)):
        key = " ".join(candidate.piece.lower().split())
        if candidate.focus >= bar and key not in seen:
            seen.add(key)
            shown.append(candidate)
        if len(shown) >= MAX_CANDIDATES:
            break
    return shown


class ModelReader:
    """``Reader`` through a chat model: one small call per ask of a sub-question."""

    name = "openai"

    def __init__(self, client: ChatClient, *, model: str) -> None:
        self.client = client
        self.model = model

    def read(
        self,
        subquestion: SubQuestion,
        evidence: Sequence[Evidence],
        *,
        question: str = "",
        usage: UsageLog,
        avoid: dict[int, list[tuple[int, int]]] | None = None,
        common: frozenset[str] = frozenset(),
    ) -> Answers:
        """1. The rule's reading and answers (the floor). 2. Per ask, the model picks among the
        candidates. 3. Its picks, each answer once; where it picked none, the rule's answers."""
        ruled = read_extractive(subquestion, evidence, question=question, avoid=avoid, common=common)
        readings = readings_of(subquestion, question, evidence, common)[:MAX_ASKS]
        vocabulary = dimension_vocabulary(dimensions_of(subquestion))
        statement = is_statement(subquestion.text)
        bar = STATEMENT_BAR if statement else CANDIDATE_BAR
        picked: list[AnswerSpan] = []
        for analysis in readings:
            found = _candidates(analysis, evidence, avoid or {}, vocabulary, statement)
            shown = shown_candidates(found, bar)
            if not shown:
                continue
            try:
                choice = self._ask(analysis, subquestion, shown, usage)
            except ProviderError as error:
                if error.code != "malformed_output":
                    raise
                return ruled  # the model's answer rejected twice: the rule's answers stand
            if choice is not None:
                candidate, words = choice
                span = checked_span(candidate, words, analysis)
                if not any(
                    (s.evidence_id, s.start) == (candidate.item.id, candidate.unit.start) for s in picked
                ):
                    picked.append(answer_of(candidate, span, found))
        if not picked:
            return ruled
        return Answers(subquestion.id, ruled.answer_type, tuple(picked), "")

    def _ask(
        self,
        analysis: QuestionAnalysis,
        subquestion: SubQuestion,
        shown: Sequence[_Candidate],
        usage: UsageLog,
    ) -> tuple[_Candidate, str] | None:
        pick, words = structured.ask(
            self.client,
            stage=STAGE,
            model=self.model,
            schema_name=SCHEMA_NAME,
            schema=read_schema(len(shown)),
            messages=read_messages(subquestion.text, shown),
            interpret=lambda data: pick_of(data, shown),
            usage=usage,
            max_tokens=MAX_TOKENS,
        )
        return (shown[pick - 1], words) if pick else None
