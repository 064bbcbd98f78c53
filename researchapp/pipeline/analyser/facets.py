"""A factual question's facets are reported only when the question itself is answered.

"How is it set or changed?" and "What is known about Android?" are asked around the value a
question asks for. When no source states that value, what the sources say around it answers a
question nobody asked: "Which Android release first shipped SQLite 3.35.0?" must not come back
with a paragraph about Android. Such a facet becomes [证据不足], saying why.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

from researchapp.core.enums import FindingStatus
from researchapp.pipeline.analyser.extractive import INSUFFICIENT_MARK
from researchapp.pipeline.text.answer_type import FACTUAL, AnswerType, about_the_asked, answer_type_of
from researchapp.pipeline.text.facets import UNANSWERED_NOTE, is_facet
from researchapp.pipeline.values import ProposedFinding, SubQuestion

_ABOUT_A_NAME = re.compile(r"^What is known about .+\?$")


def _same(a: str, b: str) -> bool:
    return " ".join(a.split()) == " ".join(b.split())


def main_subquestion(question: str, subquestions: Sequence[SubQuestion]) -> SubQuestion | None:
    """The sub-question that is the question as asked, if the plan has one and the question is factual."""
    if answer_type_of(question) not in FACTUAL - {AnswerType.COMPARISON}:
        return None
    return next((sq for sq in subquestions if _same(sq.text, question)), None)


def is_gated(subquestion: SubQuestion) -> bool:
    """A facet of the question, or what is known about a name it mentions."""
    text = " ".join(subquestion.text.split())
    return is_facet(text) or bool(_ABOUT_A_NAME.match(text))


def answered(findings: Sequence[ProposedFinding], asked: AnswerType | None = None) -> bool:
    """A statement answers; a conflict does where it is about the asked value (sources giving two
    release numbers for "which release"), not where two passages around it disagree on another point."""
    return any(
        f.status is FindingStatus.SUPPORTED
        or (
            f.status is FindingStatus.CONFLICT
            and (asked is None or f.disagreement is None or about_the_asked(f.disagreement.kind, asked))
        )
        for f in findings
    )


def unanswered_facet(subquestion: SubQuestion) -> ProposedFinding:
    return ProposedFinding(
        key=f"sq{subquestion.id}:insufficient",
        subquestion_id=subquestion.id,
        status=FindingStatus.INSUFFICIENT,
        statement=f"{INSUFFICIENT_MARK} {subquestion.text} — {UNANSWERED_NOTE}",
    )


def gate_facets(
    question: str,
    subquestions: Sequence[SubQuestion],
    findings: Mapping[int, list[ProposedFinding]],
    *,
    main_answered: bool | None = None,
) -> dict[int, list[ProposedFinding]]:
    """``findings`` by sub-question id, with every facet's replaced by one [证据不足] item when the
    question as asked is not answered (``main_answered``: known from an earlier round, or read from
    ``findings``)."""
    main = main_subquestion(question, subquestions)
    gated = dict(findings)
    if main is None:
        return gated
    if main_answered is None:
        main_answered = answered(findings.get(main.id, []), answer_type_of(question))
    if main_answered:
        return gated
    for subquestion in subquestions:
        if subquestion.id != main.id and subquestion.id in gated and is_gated(subquestion):
            gated[subquestion.id] = [unanswered_facet(subquestion)]
    return gated
