"""A rejected plan revised by the analyst's feedback: the next version is the previous one with the
feedback applied as edits, never a fresh plan with a sentence made of the feedback's leftover words.

The feedback is read clause by clause into edits (``feedback.read_feedback``: "Drop sub-question 2
and add hiring costs" is two). A drop removes the sub-questions it names; an aspect asked for becomes
a well-formed sub-question ("What is known about hiring costs for Rust and Go?") with queries from the
one query maker, unless a sub-question already asks about it. What the feedback does not mention stays
as it was, in its order, with its queries. What each edit did is told at the plan gate
(``feedback_notes``).
"""

from __future__ import annotations

from dataclasses import dataclass

from researchapp.core.enums import Intent
from researchapp.pipeline.planner.feedback import asked_by, read_feedback
from researchapp.pipeline.planner.feedback_notes import MAX_SUBQUESTIONS
from researchapp.pipeline.planner.queries import queries_for_subquestion
from researchapp.pipeline.text.question import Reading, read_question
from researchapp.pipeline.values import Plan, PlannedSubQuestion


@dataclass(frozen=True)
class Revision:
    """What the feedback did: the plan it gave, and which edits it read (for the rationale)."""

    plan: Plan
    dropped: tuple[str, ...]
    added: tuple[str, ...]


def revise_plan(question: str, previous: Plan, feedback: str, *, depth: str = "quick") -> Revision:
    """1. Read the feedback's edits against the previous version's numbering. 2. Drop every
    sub-question an edit names. 3. Add each aspect asked for that no sub-question asks yet. 4. Keep at
    most six, the analyst's additions before the planner's own last ones."""
    reading = read_question(question)
    edits = read_feedback(reading, previous, feedback)
    dropped = {index for edit in edits for index in edit.drops}
    kept = [sq for index, sq in enumerate(previous.subquestions) if index not in dropped]
    added: list[PlannedSubQuestion] = []
    for edit in edits:
        if not edit.aspect or asked_by(edit.aspect, [*kept, *added], reading) is not None:
            continue
        text = _aspect_question(edit.aspect, reading)
        if text in {sq.text for sq in (*kept, *added)}:
            continue
        rationale = (
            f"分析员的反馈：{edit.clause}"
            if reading.chinese
            else f"Asked for in the analyst's feedback: {edit.clause}"
        )
        added.append(
            PlannedSubQuestion(text, rationale, queries_for_subquestion(question, text, depth=depth))
        )
    room = MAX_SUBQUESTIONS - len(added)
    subquestions = (*kept[: max(room, 0)], *added[:MAX_SUBQUESTIONS])
    intent = previous.intent if isinstance(previous.intent, Intent) else reading.intent
    return Revision(
        Plan(intent, tuple(subquestions)),
        tuple(previous.subquestions[index].text for index in sorted(dropped)),
        tuple(sq.text for sq in added),
    )


def _aspect_question(aspect: str, reading: Reading) -> str:
    """A well-formed sub-question about the aspect, for the question's options or topic."""
    joiner = "和" if reading.chinese else " and "
    about = joiner.join(reading.options) if reading.options else (reading.topic or reading.subject)
    if reading.chinese:
        # A Chinese subject is the question less its punctuation ("灰水角灯塔有多高"), not a noun
        # phrase: without options or a topic the aspect is asked bare (its queries carry the subject).
        about = joiner.join(reading.options) if reading.options else reading.topic
        return f"{about}的{aspect}如何？" if about else f"{aspect}如何？"
    return f"What is known about {aspect} for {about}?" if about else f"What is known about {aspect}?"
