"""The model-backed planner: sub-questions and queries from a chat model, validated."""

from __future__ import annotations

from typing import Any

from researchapp.core.enums import Intent
from researchapp.pipeline.structured import (
    AnswerRejected,
    Message,
    ask,
    defuse,
    field_of,
    json_object,
    text_of,
)
from researchapp.pipeline.values import Plan, PlannedSubQuestion, UsageLog
from researchapp.providers.base import ChatClient

# Schema names double as the stage names: the OpenAI stub's default responder keys on them.
SCHEMA_NAME = "plan"

SCHEMA: dict[str, Any] = json_object(
    {
        "intent": {"type": "string", "enum": ["descriptive", "comparative", "recommendation"]},
        "subquestions": {
            "type": "array",
            "minItems": 3,
            "maxItems": 6,
            "items": json_object(
                {
                    "text": {"type": "string"},
                    "rationale": {"type": "string"},
                    "queries": {"type": "array", "minItems": 1, "maxItems": 3, "items": {"type": "string"}},
                }
            ),
        },
    }
)

SYSTEM = """You plan evidence-backed web research. Split the user's question into sub-questions \
that together answer it, each with web search queries that would find primary sources.
- Classify the intent: "descriptive" (what is / how does), "comparative" (A versus B), or \
"recommendation" (what should one choose or do).
- For a comparative question, make each sub-question one dimension of difference (cost, \
performance, risk, ...) covering all options, never one sub-question per option.
- Each sub-question needs a one-sentence rationale: why the answer depends on it.
- Queries are short keyword searches (3-8 words), specific enough to find facts, numbers and dates.
Answer with one JSON object that matches the schema, nothing else."""


class ModelPlanner:
    """``Planner`` through a chat model; ``model`` is this stage's model (settings choose it)."""

    name = "openai"

    def __init__(self, client: ChatClient, *, model: str):
        self.client = client
        self.model = model

    def plan(self, question: str, *, depth: str, feedback: str = "", usage: UsageLog) -> Plan:
        return ask(
            self.client,
            stage="plan",
            model=self.model,
            schema_name=SCHEMA_NAME,
            schema=SCHEMA,
            messages=plan_messages(question, depth=depth, feedback=feedback),
            interpret=plan_from_answer,
            usage=usage,
        )


def plan_messages(question: str, *, depth: str, feedback: str = "") -> list[Message]:
    size = (
        "Depth: deep. Make 4 to 6 sub-questions with 2 or 3 queries each."
        if depth == "deep"
        else "Depth: quick. Make 3 or 4 sub-questions with 1 or 2 queries each."
    )
    parts = [f"<question>{defuse(question)}</question>", size]
    if feedback.strip():
        parts.append(
            "An analyst rejected the previous plan. Revise it to address this feedback:\n"
            f"<analyst_feedback>{defuse(feedback.strip())}</analyst_feedback>"
        )
    return [{"role": "system", "content": SYSTEM}, {"role": "user", "content": "\n\n".join(parts)}]


def plan_from_answer(data: dict[str, Any]) -> Plan:
    intent_name = field_of(data, "intent", str, "the plan")
    try:
        intent = Intent(intent_name)
    except ValueError:
        raise AnswerRejected(
            f"intent {intent_name!r} is not one of: {', '.join(item.value for item in Intent)}"
        ) from None
    items = field_of(data, "subquestions", list, "the plan")
    if not 3 <= len(items) <= 6:
        raise AnswerRejected(f"the plan must have 3 to 6 sub-questions, it has {len(items)}")
    subquestions = []
    for index, item in enumerate(items):
        where = f"subquestions[{index}]"
        if not isinstance(item, dict):
            raise AnswerRejected(f"{where} must be an object")
        queries = [
            query.strip() for query in field_of(item, "queries", list, where) if isinstance(query, str)
        ]
        queries = list(dict.fromkeys(query for query in queries if query))
        if not 1 <= len(queries) <= 3:
            raise AnswerRejected(f"{where}.queries must hold 1 to 3 non-empty, distinct strings")
        subquestions.append(
            PlannedSubQuestion(
                text=text_of(item, "text", where),
                rationale=field_of(item, "rationale", str, where).strip(),
                queries=tuple(queries),
            )
        )
    return Plan(intent=intent, subquestions=tuple(subquestions))
