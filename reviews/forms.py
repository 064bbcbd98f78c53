"""The gates' forms: parse what the browser sends. The services keep the rules, so messages match theirs."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from django import forms
from django.core.exceptions import ValidationError
from django.http import QueryDict
from django.utils.functional import Promise
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from researchapp.models import SubQuestion
from researchapp.services.evidence_gate import CITATION_DECISION, DECISIONS
from researchapp.services.plan_gate import MAX_SUBQUESTIONS, SubQuestionEdit
from researchapp.web import WholeNumberField, whole_number

NOTE_MAX = 4000
COMMENT_PREFIX = "comment-"  # a comment on sentence s3 is posted as comment-s3


# --- plan -----------------------------------------------------------------------------------------


@dataclass
class PlanRow:
    """One sub-question as the editor shows it: queries as one line each.

    ``original_text`` and ``auto_queries`` travel with the row (hidden): the text the queries were
    made for and the queries as the planner made them. A row whose text changed while its queries
    are still those is stored with queries made for its new text; queries edited by hand are kept.
    """

    id: int | None
    text: str
    queries: str
    rationale: str = ""
    coverage: dict | None = None  # what the answerability probe found (shown, never posted)
    original_text: str = ""
    auto_queries: str = ""

    @classmethod
    def of(cls, subquestion: SubQuestion) -> PlanRow:
        queries = "\n".join(subquestion.queries)
        return cls(
            subquestion.pk,
            subquestion.text,
            queries,
            subquestion.rationale,
            subquestion.coverage or None,
            original_text=subquestion.text,
            auto_queries=queries,
        )

    @property
    def queries_by_hand(self) -> bool:
        return _lines(self.queries) != _lines(self.auto_queries)

    @property
    def text_changed(self) -> bool:
        return _lf(self.text).strip() != _lf(self.original_text).strip()

    def edit(self) -> SubQuestionEdit:
        """Normalised as the service stores it, so an untouched row compares equal to its row."""
        regenerate = (self.text_changed and not self.queries_by_hand) or not _lines(self.queries)
        return SubQuestionEdit(
            text=_lf(self.text).strip(),
            queries=_lines(self.queries),
            rationale=_lf(self.rationale).strip(),
            id=self.id,
            regenerate_queries=regenerate,
        )


def _lines(text: str) -> tuple[str, ...]:
    return tuple(line.strip() for line in text.splitlines() if line.strip())


def _lf(text: str) -> str:
    return text.replace("\r\n", "\n").replace("\r", "\n")


class PlanEditForm:
    """The plan editor's rows (``sq-<i>-id|text|queries|rationale``) plus a new row (``new-*``), and
    the version of the plan the analyst saw (``plan_version``).

    ``action`` is the button pressed: ``save``, ``approve``, ``add``, ``remove:<i>``, ``up:<i>``
    or ``down:<i>``. ``apply`` turns it into the edited list the service stores.
    """

    ACTIONS = ("save", "approve", "add", "remove", "up", "down")

    def __init__(self, data: QueryDict):
        self.errors: list[str] = []
        self.plan_version = whole_number(data.get("plan_version"), minimum=1) or 0
        if not self.plan_version:
            self.errors.append(
                _("The form does not say which version of the plan it edits; reload the page.")
            )
        self.rows = self._rows(data)
        self.new_text = data.get("new-text", "")
        self.new_queries = data.get("new-queries", "")
        self.action, self.index = self._action(data.get("action", "save"))

    def _rows(self, data: QueryDict) -> list[PlanRow]:
        total = whole_number(data.get("sq-total"), maximum=MAX_SUBQUESTIONS + 1)
        if total is None:
            self.errors.append(_("That sub-question is no longer in the form; reload the page."))
        rows = []
        for i in range(total or 0):
            raw_id = data.get(f"sq-{i}-id", "")
            row_id = whole_number(raw_id, minimum=1)
            if raw_id.strip() and row_id is None:
                self.errors.append(_("That sub-question is no longer in the form; reload the page."))
            rows.append(
                PlanRow(
                    id=row_id,
                    text=data.get(f"sq-{i}-text", ""),
                    queries=data.get(f"sq-{i}-queries", ""),
                    rationale=data.get(f"sq-{i}-rationale", ""),
                    original_text=data.get(f"sq-{i}-original-text", ""),
                    auto_queries=data.get(f"sq-{i}-auto-queries", ""),
                )
            )
        return rows

    def _action(self, raw: str) -> tuple[str, int | None]:
        name, _colon, index = raw.partition(":")
        if name not in self.ACTIONS:
            self.errors.append(_("Unknown action “%(action)s”.") % {"action": raw[:40]})
            return "save", None
        if name in ("remove", "up", "down"):
            row = whole_number(index, maximum=len(self.rows) - 1) if self.rows else None
            if row is None:
                self.errors.append(_("That sub-question is no longer in the form; reload the page."))
                return "save", None
            return name, row
        return name, None

    def is_valid(self) -> bool:
        return not self.errors

    @property
    def moved_to(self) -> int | None:
        """Where the pressed Move up / Move down button put its row (its focus follows it)."""
        if self.action == "up" and self.index:
            return self.index - 1
        if self.action == "down" and self.index is not None and self.index + 1 < len(self.rows):
            return self.index + 1
        return None

    def apply(self) -> list[SubQuestionEdit]:
        """The rows with the pressed button applied, as the list to store (``rows`` stay as posted,
        so a refused edit is shown again exactly as the analyst typed it)."""
        rows, i = list(self.rows), self.index
        if self.action == "add":
            if not self.new_text.strip():
                raise ValidationError(_("Type the new sub-question before adding it."))
            # Without queries, the new sub-question gets the ones the planner makes for its text.
            rows.append(PlanRow(None, self.new_text, self.new_queries))
        elif self.action == "remove" and i is not None:
            rows.pop(i)
        elif self.action == "up" and i:
            rows[i - 1], rows[i] = rows[i], rows[i - 1]
        elif self.action == "down" and i is not None and i + 1 < len(rows):
            rows[i], rows[i + 1] = rows[i + 1], rows[i]
        return [row.edit() for row in rows]


def note_field(*, testid: str, placeholder: str | Promise) -> forms.CharField:
    """A free-text note for a decision; empty is allowed here, the service says when it is not."""
    attrs = {"rows": 3, "data-testid": testid, "placeholder": placeholder}
    return forms.CharField(required=False, max_length=NOTE_MAX, widget=forms.Textarea(attrs=attrs))


class PlanRejectForm(forms.Form):
    plan_version = WholeNumberField(widget=forms.HiddenInput)
    feedback = note_field(
        testid="plan-reject-feedback", placeholder=gettext_lazy("What should the planner change?")
    )
    # "r" on the plan page goes to the feedback (a rejection without it is refused), see desk.js.
    feedback.widget.attrs |= {
        "data-shortcut": "r",
        "aria-keyshortcuts": "r",
        "data-shortcut-label": gettext_lazy("Reject: write the feedback"),
    }


# --- findings and report --------------------------------------------------------------------------


class FindingDecisionForm(forms.Form):
    finding = WholeNumberField(widget=forms.HiddenInput)
    version = WholeNumberField(widget=forms.HiddenInput)
    decision = forms.ChoiceField(
        choices=[(name, name.replace("_", " ")) for name in (*DECISIONS, CITATION_DECISION)]
    )
    note = forms.CharField(required=False, max_length=NOTE_MAX)
    evidence = WholeNumberField(required=False)  # the citation a drop_citation names

    def clean(self):
        data = super().clean()
        if data.get("decision") == CITATION_DECISION and not data.get("evidence"):
            raise ValidationError(_("Say which citation to drop."))
        return data


class ReportDecisionForm(forms.Form):
    """Approve, or request changes: general comments, and comments on sentences (``comment-<anchor>``
    fields, which the page places next to each sentence)."""

    DECISIONS = (("approve", gettext_lazy("approve")), ("send_back", gettext_lazy("request changes")))

    draft_version = WholeNumberField(widget=forms.HiddenInput)
    decision = forms.ChoiceField(choices=DECISIONS)
    comments = note_field(
        testid="report-comments", placeholder=gettext_lazy("What should the writer change overall?")
    )

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
            raise ValidationError(
                _("The draft has no sentence %(anchor)s; reload the page.") % {"anchor": unknown[0][:40]}
            )
        too_long = [anchor for anchor, text in typed.items() if len(text) > NOTE_MAX]
        if too_long:
            raise ValidationError(
                _("The comment on %(anchor)s is longer than %(max)s characters.")
                % {"anchor": too_long[0], "max": NOTE_MAX}
            )
        return [
            {"anchor": anchor, "sentence": sentence, "comment": typed[anchor]}
            for anchor, sentence in sentences.items()
            if anchor in typed
        ]
