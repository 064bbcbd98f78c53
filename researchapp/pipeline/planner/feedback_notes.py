"""What the analyst's feedback did to the plan, edit by edit, for the plan gate: each edit applied,
already there, or not applied and why; each clause the desk could not read as an edit, listed rather
than dropped in silence.

The notes are checked against the plan that came out, whoever drafted it: the template planner's
revision (``revise.revise_plan``) or a model's, which may have done more, less or otherwise than the
desk's reading of the feedback. They are stored messages (``core.messages``): the gate shows them in
the reader's language.
"""

from __future__ import annotations

from researchapp.core.messages import Message, gettext_noop, message
from researchapp.pipeline.planner.feedback import Edit, asked_by, distinctive_terms
from researchapp.pipeline.text.question import Reading
from researchapp.pipeline.text.tokens import tokenize
from researchapp.pipeline.values import Plan, PlannedSubQuestion

MAX_SUBQUESTIONS = 6

DROPPED = gettext_noop("Applied: dropped sub-question %(number)s, “%(text)s”.")
NOT_DROPPED = gettext_noop(
    "Not applied: sub-question %(number)s, “%(text)s”, is still in the plan although “%(clause)s” "
    "asks to drop it."
)
NO_SUCH_NUMBER = gettext_noop(
    "Not applied: “%(clause)s” names sub-question %(number)s, and the plan has no such sub-question."
)
NO_TARGET = gettext_noop(
    "Not understood: “%(clause)s” names no one sub-question clearly, so nothing was dropped."
)


def feedback_notes(
    reading: Reading, previous: Plan, edits: tuple[Edit, ...], after: Plan, *, by_rules: bool
) -> tuple[Message, ...]:
    """1. Per edit, in the feedback's order: its drops and its aspect, each applied or not (and why).
    2. With the template planner, the sub-questions it left out to keep six at most. 3. When nothing
    changed, that this version is the rejected one."""
    before = list(previous.subquestions)
    after_texts = [sq.text for sq in after.subquestions]
    added = [sq for sq in after.subquestions if sq.text not in {b.text for b in before}]
    notes: list[Message] = []
    for edit in edits:
        notes += _drop_notes(edit, before, after_texts)
        if edit.aspect:
            notes.append(_aspect_note(edit, reading, added, list(after.subquestions)))
        elif not edit.asks_to_drop:
            notes.append(_unread_note(edit, by_rules=by_rules))
    if by_rules:
        asked = {index for edit in edits for index in edit.drops}
        notes += [
            message(
                gettext_noop(
                    "Left out to keep six sub-questions at most: sub-question %(number)s, “%(text)s”."
                ),
                number=index + 1,
                text=sq.text,
            )
            for index, sq in enumerate(before)
            if index not in asked and sq.text not in after_texts
        ]
    if after.subquestions == previous.subquestions and edits:
        notes.append(
            message(
                gettext_noop(
                    "Nothing in the feedback changed the plan, so this version is the rejected one "
                    "unchanged: edit it here."
                )
            )
        )
    return tuple(notes)


def _drop_notes(edit: Edit, before: list[PlannedSubQuestion], after_texts: list[str]) -> list[Message]:
    notes = []
    for index in edit.drops:
        text = before[index].text
        if text not in after_texts:
            notes.append(message(DROPPED, number=index + 1, text=text))
        else:
            notes.append(message(NOT_DROPPED, number=index + 1, text=text, clause=edit.clause))
    notes += [message(NO_SUCH_NUMBER, number=number, clause=edit.clause) for number in edit.missing]
    if edit.asks_to_drop and not edit.drops and not edit.missing:
        notes.append(message(NO_TARGET, clause=edit.clause))
    return notes


def _aspect_note(
    edit: Edit, reading: Reading, added: list[PlannedSubQuestion], after: list[PlannedSubQuestion]
) -> Message:
    """Added (a new sub-question has the aspect's words), already asked, or not applied."""
    wanted = distinctive_terms(edit.aspect, reading) or set(tokenize(edit.aspect))
    new = next((sq for sq in added if wanted & set(tokenize(sq.text))), None)
    if new is not None:
        return message(
            gettext_noop("Applied: added “%(text)s” for “%(clause)s”."), text=new.text, clause=edit.clause
        )
    existing = asked_by(edit.aspect, after, reading)
    if existing is not None:
        return message(
            gettext_noop("Nothing added for “%(clause)s”: sub-question %(number)s already asks about it."),
            clause=edit.clause,
            number=existing + 1,
        )
    if len(after) >= MAX_SUBQUESTIONS:
        return message(
            gettext_noop(
                "Not applied: “%(clause)s” — the plan already has six sub-questions, the most it can hold."
            ),
            clause=edit.clause,
        )
    return message(
        gettext_noop("Not applied: no sub-question was added for “%(clause)s”."), clause=edit.clause
    )


def _unread_note(edit: Edit, *, by_rules: bool) -> Message:
    if by_rules:
        return message(gettext_noop("Not understood, so not applied: “%(clause)s”."), clause=edit.clause)
    return message(
        gettext_noop(
            "Not read as an edit by the desk: “%(clause)s”. The model was given it; check the changes below."
        ),
        clause=edit.clause,
    )
