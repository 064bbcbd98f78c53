"""Computed figures for the report: deep mode's derived findings, with the quotes their inputs came from."""

from __future__ import annotations

from researchapp.core.enums import Resolution
from researchapp.models import Evidence, Finding, ResearchTask
from researchapp.pipeline import values
from researchapp.pipeline.deep.tools import DERIVED_KEY
from researchapp.pipeline.report.document import ComputedFigure, ComputedInput
from researchapp.pipeline.runner.rows import evidence_value


def computed_figures(task: ResearchTask) -> tuple[list[ComputedFigure], list[values.Evidence]]:
    """The task's computed figures in the order they were computed (none an analyst dropped), and
    the evidence their inputs were read from. A derived finding stored without its calculation (an
    older one) has nothing to show and is left out."""
    rows = (
        Finding.objects.filter(task=task, key__startswith=DERIVED_KEY)
        .exclude(resolution__in=(Resolution.DROPPED, Resolution.MORE_RESEARCH))
        .exclude(calculation={})
        .order_by("id")
    )
    figures = []
    for row in rows:
        data = row.calculation
        figures.append(
            ComputedFigure(
                finding_id=row.pk,
                subquestion_id=row.subquestion_id,
                description=str(data.get("description", "")),
                code=str(data.get("code", "")),
                result=float(data["result"]),
                inputs=tuple(
                    ComputedInput(str(i["name"]), int(i["evidence_id"]), int(i["number"]), float(i["value"]))
                    for i in data.get("inputs", ())
                ),
            )
        )
    ids = {item.evidence_id for figure in figures for item in figure.inputs}
    rows = Evidence.objects.filter(task=task, pk__in=ids).select_related("source").order_by("pk")
    return figures, [evidence_value(row) for row in rows]
