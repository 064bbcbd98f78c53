"""Small records for the audit trail that no stage writes: what a plan edit changed, report downloads."""

from __future__ import annotations

import difflib

from django.contrib.auth.models import User

from researchapp.core.messages import gettext_noop, message
from researchapp.models import Event, Plan, ReportDraft

EXPORT_STAGE = "export"


def stored_plan_lines(plan: Plan) -> list[str]:
    """The plan as stored, as lines a diff can compare: each sub-question, numbered, then its queries."""
    lines = []
    for number, subquestion in enumerate(plan.subquestions.order_by("order", "id"), start=1):
        lines.append(f"{number}. {subquestion.text}")
        lines += [f"   search: {query}" for query in subquestion.queries]
    return lines


def plan_diff(before: list[str], after: list[str]) -> list[str]:
    """The changed lines, ``-`` removed and ``+`` added (unified diff without headers or context)."""
    diff = difflib.unified_diff(before, after, lineterm="", n=0)
    return [line for line in diff if line[:1] in "+-" and not line.startswith(("+++", "---"))]


# A download's format as people name it, in every language.
FORMAT_NAMES = {"markdown": "Markdown", "pdf": "PDF", "json": "JSON"}


def report_exported(*, draft: ReportDraft, actor: User | None, export_format: str) -> Event:
    """Record that ``actor`` downloaded the approved report, and in which format."""
    return Event.objects.create(
        task_id=draft.task_id,
        stage=EXPORT_STAGE,
        kind=Event.Kind.EXPORT,
        actor=actor,
        message=message(
            gettext_noop("Report v%(version)s downloaded (%(format)s)."),
            version=draft.version,
            format=FORMAT_NAMES.get(export_format, export_format),
        ),
        data={"format": export_format, "draft": draft.pk, "version": draft.version},
    )
