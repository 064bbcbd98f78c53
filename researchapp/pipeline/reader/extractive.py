"""The extractive reader: the pieces of the passages that state an answer of the asked type.

1. Read the sub-question (``text.answer_type``): its answer type, focus and subject, the subject
   weighed by the sources at hand (a term most of them hold identifies nothing).
2. Cut every passage into pieces (``reader.units``: sentences, a lead-in with its list, a term
   with its description, a table's row); drop what does not bear on a question (a sentence in the
   first person, a page's navigation).
3. Keep the pieces that state an answer of the asked type (``reader.spans``); score each by the
   focus it holds (its own words count whole, the sentence before it and the page's title and
   headings in part: "The default value of this macro is 1 billion" follows the sentence naming
   the maximum length), the subject nearby, the words such answers use ("default", "since"), and
   how well its passage ranked.
4. The best piece answers when it holds enough of the focus; pieces of other passages that state
   the same answer agree with it. A second answer is kept when it is nearly as good and different.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, replace

from researchapp.pipeline.reader.bearing import bears_on
from researchapp.pipeline.reader.spans import answer_span
from researchapp.pipeline.reader.units import Unit, units_of
from researchapp.pipeline.text.answer_type import (
    AnswerType,
    QuestionAnalysis,
    analyse_question,
    asks_of,
)
from researchapp.pipeline.text.aspects import dimension_vocabulary, dimensions_of
from researchapp.pipeline.text.crosslang import Vocabulary, language_of, text_language, translate
from researchapp.pipeline.text.relevance import says_the_same
from researchapp.pipeline.text.salience import question_parts
from researchapp.pipeline.text.support import is_statement
from researchapp.pipeline.text.tokens import tokenize
from researchapp.pipeline.values import Answers, AnswerSpan, Evidence, SubQuestion, UsageLog

# Tuned on the tuning halves of the manual QA set and SQuAD 2.0 (bench/docs_qa.py, bench/squad2.py).
FOCUS_BAR = 0.34  # weighted share of the focus an answer (with its neighbour and headings) must hold
NEIGHBOUR_WEIGHT = 0.6  # a focus term in the sentence before counts this much
HEADING_WEIGHT = 0.5  # ... in the page's title or the headings above the passage
CUE_NEARBY = 0.5  # a word such answers use ("default"), in the sentence before rather than the piece
ABSENT_WEIGHT = 0.5  # a focus term no piece holds tells no piece from another: it weighs half
COMMON_WEIGHT = 0.5  # a term most documents hold, missing from a piece, counts this much toward the bar
CUE_CREDIT = 0.15  # added to the share of a value's answer in its own cue words ("since version")
STATEMENT_BAR = 0.0
MAX_LOOSE_ANSWERS = 3
SECOND_LOOSE_ANSWER = 0.75
SECOND_ANSWER = 0.85  # a second answer scores at least this share of the best
MAX_ANSWERS = 2
AGREEMENT = 0.05  # added to a candidate's score for each other passage stating its answer
MAX_BACKING = 2
CUED_TYPES = frozenset((AnswerType.QUANTITY, AnswerType.LIMIT, AnswerType.VERSION))
STRICT_TYPES = frozenset(
    (
        AnswerType.QUANTITY,
        AnswerType.LIMIT,
        AnswerType.VERSION,
        AnswerType.NAME,
        AnswerType.LIST,
        AnswerType.DEFINITION,
    )
)


def readings_of(
    subquestion: SubQuestion,
    question: str,
    evidence: Sequence[Evidence],
    common: frozenset[str] = frozenset(),
) -> list[QuestionAnalysis]:
    """What the sub-question asks, one reading per ask ("When was it built, and how tall is it?"
    asks two); a facet ("How is it set or changed?") asks it of the question's focus and subject,
    and a later ask of the first ask's subject. ``common`` terms (most of the corpus holds them)
    name no subject."""
    facet = bool(question) and " ".join(question.split()) != " ".join(subquestion.text.split())
    asked = analyse_question(question, common=common) if facet else None
    readings: list[QuestionAnalysis] = []
    bridge = _bridge(subquestion, question, evidence)
    options = question_parts(subquestion.text)[2] or (question_parts(question)[2] if question else ())
    named = {term for option in options for term in option}
    for ask in asks_of(subquestion.text):
        own = bridge(analyse_question(ask, common=common), ask)
        # A comparison's options are what each answer is about, not what it must say of them.
        own = replace(own, options=options, focus=tuple(t for t in own.focus if t not in named) or own.focus)
        first = readings[0] if readings else asked
        if first is not None:
            extra = first.focus if len(own.focus) < 2 else ()
            own = replace(
                own, focus=tuple(dict.fromkeys((*own.focus, *extra))), subject=own.subject or first.subject
            )
        readings.append(own)
    return readings


def _bridge(subquestion: SubQuestion, question: str, evidence: Sequence[Evidence]):
    """A Chinese question over English passages (or the reverse) is read in the passages' language:
    its focus becomes its words' senses the passages use (``crosslang.translate``, the seam of
    issue 17's cross-language search), its names stay as written. Otherwise the reading as it is."""
    asked_language = text_language(question or subquestion.text)
    language = language_of(item.quote for item in evidence) if evidence else asked_language
    if language == asked_language:
        return lambda analysis, ask: analysis
    postings: dict[str, list[tuple[int, int]]] = {}
    for index, item in enumerate(evidence):
        for term, count in Counter(tokenize(item.quote)).items():
            postings.setdefault(term, []).append((index, count))
    vocabulary = Vocabulary(postings)

    def read(analysis: QuestionAnalysis, ask: str) -> QuestionAnalysis:
        terms = translate(ask, language, vocabulary).terms
        focus = tuple(t for t in terms if t not in analysis.subject)
        head = tuple(t for t in translate(" ".join(analysis.head), language, vocabulary).terms if t in focus)
        return replace(analysis, focus=focus or analysis.focus, head=head, chinese=False)

    return read


@dataclass(frozen=True)
class _Candidate:
    item: Evidence
    unit: Unit
    span: tuple[int, int]  # the answer, offsets into the quote
    focus: float
    score: float

    @property
    def answer(self) -> str:
        return self.item.quote[self.span[0] : self.span[1]]

    @property
    def piece(self) -> str:
        return self.item.quote[self.unit.start : self.unit.end]

    def value(self) -> AnswerSpan:
        return AnswerSpan(
            self.item.id, self.unit.start, self.unit.end, *self.span, self.answer, round(self.score, 4)
        )


class _Weights:
    """Each focus term's rarity among the pieces at hand: a term every piece holds says little."""

    def __init__(self, pieces: Sequence[set[str]], terms: Sequence[str]):
        total = len(pieces) or 1
        counts = {term: sum(1 for held in pieces if term in held) for term in terms}
        self.weight = {
            term: math.log(1.0 + total / (1 + count)) * (1.0 if count else ABSENT_WEIGHT)
            for term, count in counts.items()
        }

    def share(self, placed: dict[str, float]) -> float:
        whole = sum(self.weight.values())
        return sum(self.weight[t] * placed.get(t, 0.0) for t in self.weight) / whole if whole else 1.0


def _placed(terms: Sequence[str], own: set[str], before: set[str], heading: set[str]) -> dict[str, float]:
    """How near each term is: in the piece (1), the sentence before (``NEIGHBOUR_WEIGHT``), the
    title or headings (``HEADING_WEIGHT``), or nowhere (0)."""
    weights = ((own, 1.0), (before, NEIGHBOUR_WEIGHT), (heading, HEADING_WEIGHT))
    return {term: next((weight for held, weight in weights if term in held), 0.0) for term in terms}


def _share(placed: dict[str, float], common: frozenset[str]) -> float:
    """The share of the question's terms a piece holds (``_placed``), a term most documents of the
    corpus hold ("clause", "row" in a SQL manual) counting half when the piece lacks it: it
    identifies little, and the answering sentence need not repeat it."""
    weights = {term: COMMON_WEIGHT if term in common and not placed[term] else 1.0 for term in placed}
    whole = sum(weights.values())
    return sum(weights[t] * placed[t] for t in placed) / whole if whole else 1.0


@dataclass(frozen=True)
class _Context:
    """What a piece is judged with: the question read, the weights, its page's headings."""

    analysis: QuestionAnalysis
    weights: _Weights
    best_score: float
    vocabulary: frozenset[str] = frozenset()  # a dimension's words ("price", "euros" for cost)
    statement: bool = False  # a claim to verify: checked whole already, judged by its words alone
    common: frozenset[str] = frozenset()  # terms most documents hold: they count half toward the bar


def _candidates(
    analysis: QuestionAnalysis,
    evidence: Sequence[Evidence],
    avoid: dict[int, list[tuple[int, int]]],
    vocabulary: frozenset[str] = frozenset(),
    statement: bool = False,
    common: frozenset[str] = frozenset(),
) -> list[_Candidate]:
    """Every piece that states an answer of the asked type and bears on a question, scored."""
    pieces = [(item, units_of(item.quote)) for item in evidence]
    held = [set(tokenize(item.quote[u.start : u.end])) for item, units in pieces for u in units]
    best = max((e.score for e in evidence), default=0.0) or 1.0
    context = _Context(analysis, _Weights(held, analysis.terms), best, vocabulary, statement, common)
    found: list[_Candidate] = []
    for item, units in pieces:
        for index, unit in enumerate(units):
            if any(s < unit.end and unit.start < e for s, e in avoid.get(item.id, ())):
                continue
            before = units[index - 1] if index else None
            candidate = _judge(context, item, unit, before)
            if candidate is not None:
                found.append(candidate)
    return found


def _judge(context: _Context, item: Evidence, unit: Unit, before_unit: Unit | None) -> _Candidate | None:
    """1. The piece bears on a question and states an answer of the asked type. 2. A word of what
    the answer is ("Which Android release") stands in it, the sentence before or the headings.
    3. Its share of the question's terms (its own count whole, the sentence before's and the
    headings' in part) is what must reach ``FOCUS_BAR``; the score ranks by that share weighted by
    rarity, the subject nearby, the words such answers use, and the passage's rank."""
    analysis = context.analysis
    text = item.quote[unit.start : unit.end]
    if not bears_on(text) and not context.statement:
        return None
    span = answer_span(text, analysis, kind=unit.kind, term=unit.term)
    if span is None:
        return None
    own = set(tokenize(text))
    before = set(tokenize(item.quote[before_unit.start : before_unit.end])) if before_unit else set()
    heading = set(tokenize(f"{item.source_title} {item.heading}"))
    near = own | before | heading
    if context.statement:
        pass  # a claim's sentence may name its subject by a pronoun, and need not name what it is
    elif analysis.head and not set(analysis.head) & near and not context.vocabulary & own:
        return None  # "Which Android release": an answer near no word of "Android" names none
    elif analysis.answer_type is AnswerType.QUANTITY and analysis.head and not set(analysis.head) & own:
        return None  # "How many developers": a figure counts them in its own sentence, not "50 characters"
    placed = _placed(analysis.terms, own, before, heading)
    share = _share(placed, context.common)
    quote_terms = set(tokenize(item.quote)) | heading
    subject = (
        sum(1.0 if t in own else 0.7 for t in analysis.subject if t in quote_terms) / len(analysis.subject)
        if analysis.subject
        else 1.0
    )
    if subject <= 0 and not context.statement:
        return None
    cues = set(analysis.cues)
    cue = 1.0 if cues & own else CUE_NEARBY if cues & before else 0.0
    if cue == 1.0 and analysis.answer_type in CUED_TYPES:
        # "… has been supported by SQLite since version 3.35.0" answers "Starting with which release
        # can statements hand back the modified rows": a value of the asked type, in the words such
        # answers use, about the subject, need not repeat the rest of the question.
        share += CUE_CREDIT
    score = 0.45 * context.weights.share(placed) + 0.15 * subject + 0.25 * cue
    score += 0.15 * (item.score / context.best_score)
    return _Candidate(item, unit, (unit.start + span[0], unit.start + span[1]), share, score)


def _same_answer(a: _Candidate, b: _Candidate) -> bool:
    """Two pieces state one answer: the same answer words, or one's quote says what the other's
    piece says (most of its words and every figure: ``relevance.says_the_same``)."""
    terms_a, terms_b = tokenize(a.answer), tokenize(b.answer)
    if terms_a and terms_a == terms_b:
        return True
    return says_the_same(a.piece, b.item.quote) or says_the_same(b.piece, a.item.quote)


def _backing(candidates: Sequence[_Candidate]) -> dict[int, int]:
    """For each candidate (by ``id``), how many other passages state the same answer words, at most
    ``MAX_BACKING``: two pages saying "version 3.24.0" outweigh one saying "3.35.0" about a later change."""
    passages: dict[tuple[str, ...], set[int]] = {}
    for candidate in candidates:
        passages.setdefault(tuple(tokenize(candidate.answer)), set()).add(candidate.item.id)
    return {id(c): min(len(passages[tuple(tokenize(c.answer))]) - 1, MAX_BACKING) for c in candidates}


def choose(
    candidates: Sequence[_Candidate],
    limit: int = MAX_ANSWERS,
    options: Sequence[Sequence[str]] = (),
    bar: float = FOCUS_BAR,
    second: float = SECOND_ANSWER,
) -> list[AnswerSpan]:
    """The best candidate, with the evidence stating the same answer; others, different and nearly
    as good, up to ``limit``; for a comparison, the best piece naming each option no chosen piece
    names ("costs 4,200 euros" for one battery, "costs 5,100 euros" for the other); each answer once."""
    eligible = [c for c in candidates if c.focus >= bar]
    backing = _backing(eligible)
    ranked = sorted(
        eligible, key=lambda c: (-(c.score + AGREEMENT * backing[id(c)]), c.item.id, c.unit.start)
    )
    chosen: list[tuple[_Candidate, list[int]]] = []

    def take(candidate: _Candidate, *, bounded: bool) -> None:
        same = next((entry for entry in chosen if _same_answer(entry[0], candidate)), None)
        if same is not None:
            if candidate.item.id != same[0].item.id and candidate.item.id not in same[1]:
                same[1].append(candidate.item.id)
            return
        if bounded and (len(chosen) >= limit or (chosen and candidate.score < second * chosen[0][0].score)):
            return
        chosen.append((candidate, []))

    for candidate in ranked:
        take(candidate, bounded=True)
    for option in options:
        if chosen and not any(set(option) & set(tokenize(entry[0].piece)) for entry in chosen):
            naming = next((c for c in ranked if set(option) & set(tokenize(c.piece))), None)
            if naming is not None:
                take(naming, bounded=False)
    return [
        AnswerSpan(**{**vars(candidate.value()), "agreeing": tuple(agreeing)})
        for candidate, agreeing in chosen
    ]


def read_extractive(
    subquestion: SubQuestion,
    evidence: Sequence[Evidence],
    *,
    question: str = "",
    avoid: dict[int, list[tuple[int, int]]] | None = None,
    common: frozenset[str] = frozenset(),
) -> Answers:
    """The answers of each ask of the sub-question (the best one each when it asks several),
    each answering piece once."""
    readings = readings_of(subquestion, question, evidence, common)
    limit = 1 if len(readings) > 1 else MAX_ANSWERS
    vocabulary = dimension_vocabulary(dimensions_of(subquestion))
    # A statement to verify (a claim) was checked whole when its passages were chosen
    # (``support.statement_miss``): its best sentence states it, however few of its words it repeats.
    bar = STATEMENT_BAR if is_statement(subquestion.text) else FOCUS_BAR
    spans: list[AnswerSpan] = []
    for analysis in readings:
        found = _candidates(analysis, evidence, avoid or {}, vocabulary, bar == STATEMENT_BAR, common)
        # A whole sentence answers a yes/no question or asks for an explanation: a few of them may.
        loose = analysis.answer_type not in STRICT_TYPES and len(readings) == 1
        wanted, second = (MAX_LOOSE_ANSWERS, SECOND_LOOSE_ANSWER) if loose else (limit, SECOND_ANSWER)
        for span in choose(found, wanted, analysis.options, bar, second):
            if not any((s.evidence_id, s.start) == (span.evidence_id, span.start) for s in spans):
                spans.append(span)
    kinds = "/".join(dict.fromkeys(analysis.answer_type.value for analysis in readings))
    reason = "" if spans else f"no passage states an answer of the kind asked ({kinds})"
    return Answers(subquestion.id, readings[0].answer_type.value, tuple(spans), reason)


def answering_pieces(
    subquestion: SubQuestion,
    evidence: Sequence[Evidence],
    *,
    question: str = "",
    common: frozenset[str] = frozenset(),
    limit: int = 3,
) -> list[int]:
    """The ids of the passages among ``evidence`` (a page's passages, not yet chosen as evidence)
    whose pieces best state an answer of the asked type, at most ``limit``: the evidence stage
    adds them, so the passage that answers is read even when its words are not the question's."""
    ranked: dict[int, float] = {}
    vocabulary = dimension_vocabulary(dimensions_of(subquestion))
    for analysis in readings_of(subquestion, question, evidence, common):
        for candidate in _candidates(analysis, evidence, {}, vocabulary, common=common):
            if candidate.focus >= FOCUS_BAR:
                ranked[candidate.item.id] = max(ranked.get(candidate.item.id, 0.0), candidate.score)
    return sorted(ranked, key=lambda i: (-ranked[i], i))[:limit]


class ExtractiveReader:
    """``Reader`` without a model: the same passages always give the same answers."""

    name = "extractive"

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
        return read_extractive(subquestion, evidence, question=question, avoid=avoid, common=common)
