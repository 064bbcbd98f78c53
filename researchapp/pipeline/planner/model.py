"""The model-backed planner: sub-questions and queries from a chat model, validated."""

from __future__ import annotations

from typing import Any

from researchapp.core.enums import Intent
from researchapp.pipeline import structured
from researchapp.pipeline.values import Plan, PlannedSubQuestion, UsageLog

MAX_SUBQUESTIONS = 6
SCHEMA: dict[str, Any] = structured.json_object(
    {
        "intent": {"type": "string", "enum": ["descriptive", "comparative", "recommendation"]},
        "subquestions": {
            "type": "array",
            "minItems": 3,
            "maxItems": MAX_SUBQUESTIONS,
            "items": structured.json_object(
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


class ModelPlanner(structured.ModelStage):
    """``Planner`` through a chat model; ``model`` is this stage's model (settings choose it)."""

    stage = "plan"
    schema = SCHEMA
    # 6 sub-questions of ~30 tokens, a rationale of ~30 and 3 queries of ~10 each, with the JSON around them.
    max_tokens = 900

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
        return self.ask(messages, plan_from_answer, usage)


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


def plan_from_answer(data: dict[str, Any]) -> Plan:
    intent_name = structured.field_of(data, "intent", str, "the plan")
    try:
        intent = Intent(intent_name)
    except ValueError:
        raise structured.AnswerRejected(
            f"intent {intent_name!r} is not one of: {', '.join(item.value for item in Intent)}"
        ) from None
    items = structured.objects_in(data, "subquestions", "the plan")
    if not 3 <= len(items) <= MAX_SUBQUESTIONS:
        raise structured.AnswerRejected(f"the plan must have 3 to 6 sub-questions, it has {len(items)}")
    subquestions = []
    for where, item in items:
        queries = [
            query.strip()
            for query in structured.field_of(item, "queries", list, where)
            if isinstance(query, str)
        ]
        queries = list(dict.fromkeys(query for query in queries if query))[:3]
        subquestions.append(
            PlannedSubQuestion(
                text=structured.text_of(item, "text", where),
                rationale=structured.field_of(item, "rationale", str, where).strip(),
                queries=tuple(queries),
            )
        )
    return Plan(intent=intent, subquestions=tuple(subquestions))
