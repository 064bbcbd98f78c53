"""Reads for the report gate: the current draft as the report model, the earlier versions, and the
sentences a new version changed since an analyst sent one back."""

from __future__ import annotations

from dataclasses import dataclass
from difflib import SequenceMatcher
from functools import cached_property

from researchapp.exports.report import Quote, Report, document_of, report_of
from researchapp.models import ReportDraft, ResearchTask
from researchapp.pipeline.report.document import Document


@dataclass(frozen=True)
class Change:
    """A sentence a new version added or removed, against the version the analyst sent back."""

    kind: str  # "added" or "removed"
    text: str


@dataclass(frozen=True)
class ReportView:
    """The current draft of ``task``; the rest is read when first asked for (a page whose fragments
    come from the cache asks only for the draft)."""

    task: ResearchTask
    draft: ReportDraft | None

    @cached_property
    def report(self) -> Report | None:
        """The draft as every format renders it."""
        return report_of(self.draft, ResearchTask.objects.filter(pk=self.task.pk)) if self.draft else None

    @cached_property
    def earlier(self) -> list[ReportDraft]:
        if self.draft is None:
            return []
        drafts = self.task.drafts.select_related("approved_by").defer("markdown", "claims", "document")
        return list(drafts.filter(version__lt=self.draft.version).order_by("-version")[:9])

    @cached_property
    def sent_back(self) -> ReportDraft | None:
        """The last version an analyst sent back, with its comments."""
        if self.draft is None:
            return None
        drafts = self.task.drafts.filter(version__lt=self.draft.version, status=ReportDraft.Status.SENT_BACK)
        return drafts.order_by("-version").first()

    @cached_property
    def changes(self) -> list[Change]:
        """This version against ``sent_back``."""
        if self.sent_back is None or self.report is None:
            return []
        return sentence_changes(document_of(self.sent_back), self.report.document)

    @property
    def evidence(self) -> list[Quote]:
        """The cited quotes, in the order the report first cites them."""
        return list(self.report.appendix) if self.report else []

    @property
    def evidence_ids(self) -> frozenset[int]:
        return frozenset(quote.evidence_id for quote in self.evidence)

    @property
    def reviewable(self) -> bool:
        return (
            self.draft is not None
            and self.task.status == ResearchTask.Status.AWAITING_REPORT_REVIEW
            and self.draft.status == ReportDraft.Status.CHECKED
        )

    @property
    def approved(self) -> bool:
        return self.draft is not None and self.draft.status == ReportDraft.Status.APPROVED

    @property
    def sentences(self) -> dict[str, str]:
        """Anchor → text of every sentence a comment can attach to."""
        return {s.anchor: s.text for s in self.report.sentences()} if self.report else {}


def _reading(document: Document) -> list[str]:
    """A version's sentences in reading order, each once (a summary repeats its sections')."""
    answer = () if document.answer_is_summary else document.answer
    texts = [s.text for s in (*answer, *(s for section in document.sections for s in section.statements))]
    texts += [d.claim.text if d.claim else d.topic for d in document.disputes]
    return texts + [gap.statement for gap in document.gaps]


def sentence_changes(before: Document, after: Document) -> list[Change]:
    """What the later version says that the earlier did not, and the reverse, in reading order."""
    old, new = _reading(before), _reading(after)
    changes = []
    for op, i1, i2, j1, j2 in SequenceMatcher(None, old, new, autojunk=False).get_opcodes():
        if op in ("replace", "delete"):
            changes += [Change("removed", text) for text in old[i1:i2]]
        if op in ("replace", "insert"):
            changes += [Change("added", text) for text in new[j1:j2]]
    return changes


def report_for(task: ResearchTask) -> ReportView:
    """The current draft; the report model, the earlier versions and the changes since the last
    version an analyst sent back come when asked for."""
    draft = task.drafts.select_related("approved_by").order_by("-version").first()
    return ReportView(task=task, draft=draft)
