"""The model-backed planner: sub-questions and queries from a chat model, validated."""

from __future__ import annotations

import re
from dataclasses import replace
from typing import Any

from researchapp.core.enums import Intent
from researchapp.pipeline import structured
from researchapp.pipeline.text.support import is_statement
from researchapp.pipeline.text.tokens import tokenize
from researchapp.pipeline.values import Plan, PlannedSubQuestion, UsageLog

MAX_SUBQUESTIONS = 6
# Every string and array is bounded, so a small model that repeats itself (SmolLM2 fills each field
# to its limit) ends its answer within ``max_tokens``: servers that enforce the schema by grammar
# (llama.cpp) close each string at its length, and the rest are checked on the way in.
MAX_TEXT_CHARS = 120
MAX_RATIONALE_CHARS = 80
MAX_QUERY_CHARS = 50
CHARS_PER_TOKEN = 2.5  # a cautious rate: short words, names and JSON punctuation
SIZES = {"quick": (4, 2), "deep": (MAX_SUBQUESTIONS, 3)}  # sub-questions and queries each, at most


def plan_schema(depth: str) -> dict[str, Any]:
    """The plan's shape at ``depth``: 1 to 4 (deep: 6) sub-questions, each string bounded."""
    subquestions, queries = SIZES.get(depth, SIZES["quick"])
    return structured.json_object(
        {
            "intent": {"type": "string", "enum": ["descriptive", "comparative", "recommendation"]},
            "subquestions": {
                "type": "array",
                "minItems": 1,
                "maxItems": subquestions,
                "items": structured.json_object(
                    {
                        "text": {"type": "string", "maxLength": MAX_TEXT_CHARS},
                        "rationale": {"type": "string", "maxLength": MAX_RATIONALE_CHARS},
                        "queries": {
                            "type": "array",
                            "minItems": 1,
                            "maxItems": queries,
                            "items": {"type": "string", "maxLength": MAX_QUERY_CHARS},
                        },
                    }
                ),
            },
        }
    )


def plan_max_tokens(depth: str) -> int:
    """Room for the longest answer ``plan_schema(depth)`` allows, and the JSON around it."""
    subquestions, queries = SIZES.get(depth, SIZES["quick"])
    chars = MAX_TEXT_CHARS + MAX_RATIONALE_CHARS + queries * MAX_QUERY_CHARS
    return 40 + subquestions * (int(chars / CHARS_PER_TOKEN) + 30)


SCHEMA: dict[str, Any] = plan_schema("deep")

SYSTEM = """You plan evidence-backed web research. Split the user's question into sub-questions \
that together answer it, each with web search queries that would find primary sources.
- Classify the intent: "descriptive" (what is / how does), "comparative" (A versus B), or \
"recommendation" (what should one choose or do).
- For a comparative question, make each sub-question one dimension of difference (cost, \
performance, risk, ...) covering all options, never one sub-question per option.
- For a factual question (a value, a default, a name, a date), the first sub-question is the \
question itself; the others ask how that value is set or changed, and its conditions or exceptions.
- Every sub-question asks something of the question's own subject. Never write filler that fits \
any topic, such as "What is known about X?" or "Which facts and figures bear on this?".
- Each sub-question needs a one-sentence rationale: why the answer depends on it.
- Queries are short keyword searches (3-8 words), specific enough to find facts, numbers and dates.
Answer with one JSON object that matches the schema, nothing else."""


class ModelPlanner(structured.ModelStage):
    """``Planner`` through a chat model; ``model`` is this stage's model (settings choose it)."""

    stage = "plan"
    schema = SCHEMA
    max_tokens = plan_max_tokens("deep")

    def plan(
        self,
        question: str,
        *,
        depth: str,
        feedback: str = "",
        usage: UsageLog,
        dimensions: tuple[str, ...] | None = None,
        previous: Plan | None = None,
    ) -> Plan:
        messages = plan_messages(
            question, depth=depth, feedback=feedback, dimensions=dimensions, previous=previous
        )
        asked = " ".join(
            [question, feedback, *(sq.text for sq in (previous.subquestions if previous else ()))]
        )
        return self.ask(
            messages,
            lambda data: on_topic(plan_from_answer(data), question, asked),
            usage,
            schema=plan_schema(depth),
            max_tokens=plan_max_tokens(depth),
        )


def on_topic(plan: Plan, question: str, asked: str) -> Plan:
    """The sub-questions that ask something (not a statement, unless the question is one to verify)
    and share a content word with what was asked (the question, the feedback, the version revised):
    a small model also writes "A user provided an answer to a question." or "However, the answer is
    12, so …". None left is an answer to reject."""
    terms = set(tokenize(asked))
    kept = tuple(
        sq
        for sq in plan.subquestions
        if (is_statement(question) or not is_statement(sq.text)) and terms & set(tokenize(sq.text))
    )
    if not kept:
        raise structured.AnswerRejected(
            "no sub-question asks about the question's own subject; write questions that name it"
        )
    return replace(plan, subquestions=kept)


def plan_messages(
    question: str,
    *,
    depth: str,
    feedback: str = "",
    dimensions: tuple[str, ...] | None = None,
    previous: Plan | None = None,
) -> list[structured.Message]:
    size = (
        "Depth: deep. Make 4 to 6 sub-questions with 2 or 3 queries each."
        if depth == "deep"
        else "Depth: quick. Make 3 or 4 sub-questions with 1 or 2 queries each."
    )
    parts = [f"<question>{structured.defuse(question)}</question>", size]
    if dimensions:
        # The dimensions a probe search found the sources discussing: a comparison asks about these.
        parts.append(
            "The sources found for these options discuss: "
            f"{', '.join(dimensions)}. Compare on these (and on anything the question names itself)."
        )
    if feedback.strip() and previous is not None:
        # The next version is the rejected one with the feedback applied, not a fresh plan: the
        # model sees what it revises, numbered as the analyst saw it ("drop sub-question 3").
        parts.append(
            "An analyst rejected this version of the plan:\n"
            f"<previous_plan>\n{_numbered(previous)}\n</previous_plan>\n"
            "Revise it by applying the analyst's feedback as edits: remove the sub-questions the "
            "feedback asks to drop, add a well-formed sub-question (a complete question, with its own "
            "queries) for each aspect it asks for, and keep every other sub-question exactly as it is, "
            "in its order, with its queries.\n"
            f"<analyst_feedback>{structured.defuse(feedback.strip())}</analyst_feedback>"
        )
    elif feedback.strip():
        parts.append(
            "An analyst rejected the previous plan. Revise it to address this feedback:\n"
            f"<analyst_feedback>{structured.defuse(feedback.strip())}</analyst_feedback>"
        )
    return [{"role": "system", "content": SYSTEM}, {"role": "user", "content": "\n\n".join(parts)}]


def _numbered(plan: Plan) -> str:
    return "\n".join(
        f"{i}. {structured.defuse(sq.text)} (queries: {'; '.join(structured.defuse(q) for q in sq.queries)})"
        for i, sq in enumerate(plan.subquestions, start=1)
    )


_LIST_MARKER = re.compile(r"^(?:\d{1,2}[.)]|[-*•])\s+")


def plan_from_answer(data: dict[str, Any]) -> Plan:
    intent_name = structured.field_of(data, "intent", str, "the plan")
    try:
        intent = Intent(intent_name)
    except ValueError:
        raise structured.AnswerRejected(
            f"intent {intent_name!r} is not one of: {', '.join(item.value for item in Intent)}"
        ) from None
    items = structured.objects_in(data, "subquestions", "the plan")
    subquestions = []
    for where, item in items[:MAX_SUBQUESTIONS]:
        # "1. What is …": a small model numbers its sub-questions as it would a list.
        text = _LIST_MARKER.sub("", " ".join(str(item.get("text") or "").split()))
        if not text or text.endswith((":", "：")):
            # A blank sub-question, or a lead-in copied from a page ("… is available in the
            # following options:"), is dropped, not the plan: the rest may be usable.
            continue
        queries = [
            query.strip()
            for query in structured.field_of(item, "queries", list, where)
            if isinstance(query, str)
        ]
        queries = list(dict.fromkeys(query for query in queries if query))[:3]
        rationale = item.get("rationale")
        subquestions.append(
            PlannedSubQuestion(
                text=text,
                rationale=rationale.strip() if isinstance(rationale, str) else "",
                queries=tuple(queries),
            )
        )
    # A usable plan of one or two sub-questions is the model's, topped up to three by the plan
    # validator (``planner.checks.validated_plan``); only a plan with none is asked again.
    if not subquestions:
        raise structured.AnswerRejected("the plan must have at least one sub-question with a text")
    return Plan(intent=intent, subquestions=tuple(subquestions))
