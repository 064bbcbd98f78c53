"""One step of deep mode's research loop: what the model (or the extractive loop) did, and saw.

A step is stored as ``started`` with its arguments before its side effect runs, and ``done`` with
what it stored after; a worker that dies in between leaves a started step, which the resumed loop
runs again (its stores are upserts keyed by URL and span, so nothing is stored twice). Steps that
are done are never run again: a resumed loop replays them from their stored observation.
"""

from __future__ import annotations

import json

from django.db import models
from django.utils.translation import gettext_lazy as _


class StepQuerySet(models.QuerySet):
    def for_trace(self) -> StepQuerySet:
        return self.select_related("subquestion").order_by("subquestion__order", "subquestion_id", "index")


class StepManager(models.Manager.from_queryset(StepQuerySet)):  # type: ignore[misc]
    """Related managers (``task.deep_steps``) derive from this: the trace reads in one query."""

    def get_queryset(self) -> StepQuerySet:
        return super().get_queryset().select_related("subquestion")


class Step(models.Model):
    class Status(models.TextChoices):
        STARTED = "started", _("started")
        DONE = "done", _("done")
        ERROR = (
            "error",
            _("error"),
        )  # the call could not run (unknown tool, malformed arguments, invented ids)
        STOPPED = "stopped", _("stopped at a budget")  # a budget was reached: the loop ends here
        ANSWERED = "answered", _("answered")  # the model (or the extractive loop) ended it

    task = models.ForeignKey("researchapp.ResearchTask", on_delete=models.CASCADE, related_name="deep_steps")
    subquestion = models.ForeignKey(
        "researchapp.SubQuestion", on_delete=models.CASCADE, related_name="deep_steps"
    )
    round = models.PositiveSmallIntegerField(default=1)
    index = models.PositiveIntegerField(help_text="Order within the sub-question's loop, from 0.")
    turn = models.PositiveIntegerField(default=0, help_text="The model turn that asked for it.")
    call_id = models.CharField(max_length=100, blank=True, help_text="The model's tool-call id.")
    thought = models.TextField(blank=True, help_text="The model's reasoning, summarised (shortened).")
    tool = models.CharField(max_length=40, blank=True)
    arguments = models.JSONField(default=dict, blank=True)
    result_ids = models.JSONField(default=list, blank=True, help_text='Stored rows: "S3", "E12", "F4".')
    observation = models.TextField(blank=True, help_text="What the model was shown.")
    tokens = models.PositiveIntegerField(default=0, help_text="Tokens of the model turn (in + out).")
    error = models.TextField(blank=True)
    budget = models.CharField(max_length=20, blank=True, help_text="The budget that stopped the loop.")
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.STARTED)
    created = models.DateTimeField(auto_now_add=True)
    finished = models.DateTimeField(null=True, blank=True)

    objects = StepManager()

    class Meta:
        ordering = ["subquestion_id", "index"]
        constraints = [models.UniqueConstraint(fields=["subquestion", "index"], name="step_unique_index")]

    def __str__(self) -> str:
        return f"step {self.index} of sub-question {self.subquestion_id}: {self.tool or self.status}"

    @property
    def evidence_results(self) -> list[tuple[str, int | None]]:
        """(label, evidence id or None) of each stored result: evidence links to its context."""
        return [
            (label, int(label[1:]) if label.startswith("E") and label[1:].isdigit() else None)
            for label in self.result_ids or ()
        ]

    @property
    def arguments_text(self) -> str:
        shown = {key: value for key, value in (self.arguments or {}).items() if key != "_raw"}
        if not shown and self.arguments:
            return str(self.arguments.get("_raw", ""))
        return json.dumps(shown, ensure_ascii=False)
