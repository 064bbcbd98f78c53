"""The gates' forms: parse what the browser sends. The services keep the rules, so messages match theirs."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from django import forms
from django.core.exceptions import ValidationError
from django.http import QueryDict

from researchapp.models import SubQuestion
from researchapp.services.evidence_gate import CITATION_DECISION, DECISIONS
from researchapp.services.plan_gate import MAX_SUBQUESTIONS, SubQuestionEdit

NOTE_MAX = 4000
COMMENT_PREFIX = "comment-"  # a comment on sentence s3 is posted as comment-s3


# --- plan -----------------------------------------------------------------------------------------


@dataclass
class PlanRow:
    """One sub-question as the editor shows it: queries as one line each."""

    id: int | None
    text: str
    queries: str
    rationale: str = ""
    coverage: dict | None = None  # what the answerability probe found (shown, never posted)

    @classmethod
    def of(cls, subquestion: SubQuestion) -> PlanRow:
        return cls(
            subquestion.pk,
            subquestion.text,
            "\n".join(subquestion.queries),
            subquestion.rationale,
            subquestion.coverage or None,
        )

    def edit(self) -> SubQuestionEdit:
        """Normalised as the service stores it, so an untouched row compares equal to its row."""
        queries = tuple(line.strip() for line in self.queries.splitlines() if line.strip())
        return SubQuestionEdit(
            text=_lf(self.text).strip(), queries=queries, rationale=_lf(self.rationale).strip(), id=self.id
        )


def _lf(text: str) -> str:
    return text.replace("\r\n", "\n").replace("\r", "\n")


class PlanEditForm:
    """The plan editor's rows (``sq-<i>-id|text|queries|rationale``) plus a new row (``new-*``).

    ``action`` is the button pressed: ``save``, ``approve``, ``add``, ``remove:<i>``, ``up:<i>``
    or ``down:<i>``. ``apply`` turns it into the edited list the service stores.
    """

    ACTIONS = ("save", "approve", "add", "remove", "up", "down")

    def __init__(self, data: QueryDict):
        self.errors: list[str] = []
        self.rows = self._rows(data)
        self.new_text = data.get("new-text", "")
        self.new_queries = data.get("new-queries", "")
        self.action, self.index = self._action(data.get("action", "save"))

    @staticmethod
    def _rows(data: QueryDict) -> list[PlanRow]:
        try:
            total = min(int(data.get("sq-total", "0")), MAX_SUBQUESTIONS + 1)
        except ValueError:
            total = 0
        rows = []
        for i in range(max(total, 0)):
            raw_id = data.get(f"sq-{i}-id", "")
            rows.append(
                PlanRow(
                    id=int(raw_id) if raw_id.isdigit() else None,
                    text=data.get(f"sq-{i}-text", ""),
                    queries=data.get(f"sq-{i}-queries", ""),
                    rationale=data.get(f"sq-{i}-rationale", ""),
                )
            )
        return rows

    def _action(self, raw: str) -> tuple[str, int | None]:
        name, _, index = raw.partition(":")
        if name not in self.ACTIONS:
            self.errors.append(f"Unknown action {raw!r}.")
            return "save", None
        if name in ("remove", "up", "down"):
            if not index.isdigit() or int(index) >= len(self.rows):
                self.errors.append("That sub-question is no longer in the form; reload the page.")
                return "save", None
            return name, int(index)
        return name, None

    def is_valid(self) -> bool:
        return not self.errors

    def apply(self) -> list[SubQuestionEdit]:
        """The rows with the pressed button applied, as the list to store (``rows`` stay as posted,
        so a refused edit is shown again exactly as the analyst typed it)."""
        rows, i = list(self.rows), self.index
        if self.action == "add":
            if not self.new_text.strip():
                raise ValidationError("Type the new sub-question before adding it.")
            if not [q for q in self.new_queries.splitlines() if q.strip()]:
                raise ValidationError("Give the new sub-question at least one search query (one per line).")
            rows.append(PlanRow(None, self.new_text, self.new_queries))
        elif self.action == "remove" and i is not None:
            rows.pop(i)
        elif self.action == "up" and i:
            rows[i - 1], rows[i] = rows[i], rows[i - 1]
        elif self.action == "down" and i is not None and i + 1 < len(rows):
            rows[i], rows[i + 1] = rows[i + 1], rows[i]
        return [row.edit() for row in rows]


def note_field(*, testid: str, placeholder: str) -> forms.CharField:
    """A free-text note for a decision; empty is allowed here, the service says when it is not."""
    attrs = {"rows": 3, "data-testid": testid, "placeholder": placeholder}
    return forms.CharField(required=False, max_length=NOTE_MAX, widget=forms.Textarea(attrs=attrs))


class PlanRejectForm(forms.Form):
    plan_version = forms.IntegerField(min_value=1, widget=forms.HiddenInput)
    feedback = note_field(testid="plan-reject-feedback", placeholder="What should the planner change?")


# --- findings and report --------------------------------------------------------------------------


class FindingDecisionForm(forms.Form):
    finding = forms.IntegerField(min_value=1, widget=forms.HiddenInput)
    version = forms.IntegerField(min_value=1, widget=forms.HiddenInput)
    decision = forms.ChoiceField(
        choices=[(name, name.replace("_", " ")) for name in (*DECISIONS, CITATION_DECISION)]
    )
    note = forms.CharField(required=False, max_length=NOTE_MAX)
    evidence = forms.IntegerField(min_value=1, required=False)  # the citation a drop_citation names

    def clean(self):
        data = super().clean()
        if data.get("decision") == CITATION_DECISION and not data.get("evidence"):
            raise ValidationError("Say which citation to drop.")
        return data


class ReportDecisionForm(forms.Form):
    """Approve, or request changes: general comments, and comments on sentences (``comment-<anchor>``
    fields, which the page places next to each sentence)."""

    DECISIONS = (("approve", "approve"), ("send_back", "request changes"))

    draft_version = forms.IntegerField(min_value=1, widget=forms.HiddenInput)
    decision = forms.ChoiceField(choices=DECISIONS)
    comments = note_field(testid="report-comments", placeholder="What should the writer change overall?")

    def sentence_comments(self, sentences: Mapping[str, str]) -> list[dict[str, str]]:
        """The comments typed next to sentences of the draft (``sentences``: anchor → text), in
        reading order; a comment on an anchor the draft does not have is refused."""
        typed = {
            key.removeprefix(COMMENT_PREFIX): " ".join(value.split())
            for key, value in self.data.items()
            if key.startswith(COMMENT_PREFIX) and value.strip()
        }
        unknown = sorted(set(typed) - set(sentences))
        if unknown:
            raise ValidationError(f"The draft has no sentence {unknown[0]}; reload the page.")
        too_long = [anchor for anchor, text in typed.items() if len(text) > NOTE_MAX]
        if too_long:
            raise ValidationError(f"The comment on {too_long[0]} is longer than {NOTE_MAX} characters.")
        return [
            {"anchor": anchor, "sentence": sentence, "comment": typed[anchor]}
            for anchor, sentence in sentences.items()
            if anchor in typed
        ]
