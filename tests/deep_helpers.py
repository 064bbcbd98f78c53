"""Running a deep task inline against the stubs, for ``tests/test_deep*.py``."""

from __future__ import annotations

from researchapp.models import ResearchTask
from researchapp.services.dispatch import drain, inline
from researchapp.services.plan_gate import plan_approve
from researchapp.services.submission import task_submit
from tests.live import QUESTION

AT_OR_PAST_EVIDENCE_GATE = {"awaiting_evidence_review", "writing", "awaiting_report_review", "approved"}


def run_deep_task(
    owner, *, analyst, engine: str = "openai", question: str = QUESTION, auto_approve: bool = False
) -> ResearchTask:
    """Submit a deep task, approve its plan as proposed, and run it until it waits for a person
    (``auto_approve``: every gate approved as proposed, to the end)."""
    with inline() as queue:
        task = task_submit(
            owner=owner, question=question, depth="deep", search_provider="tavily", engine=engine,
            auto_approve=auto_approve,
        )  # fmt: skip
        drain(queue)
        task.refresh_from_db()
        if not auto_approve:
            assert task.status == "awaiting_plan_review", task.failure_reason
            plan_approve(plan=task.plans.latest("version"), actor=analyst)
            drain(queue)
    task.refresh_from_db()
    return task
