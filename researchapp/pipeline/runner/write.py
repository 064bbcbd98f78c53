"""The write stage's inputs and outputs, and the check of a draft against the ledger as it stands."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace

from django.db.models import Max

from researchapp.core.enums import Resolution
from researchapp.models import Event, Evidence, Finding, ReportDraft, ResearchTask, Stage
from researchapp.pipeline import values
from researchapp.pipeline.checker.mechanical import computed_problems
from researchapp.pipeline.deep.tools import DERIVED_KEY
from researchapp.pipeline.report import describe_claim, written_marker_ids
from researchapp.pipeline.report.document import ComputedFigure, TestedHypothesis, document_from_json
from researchapp.pipeline.runner.computed import computed_figures
from researchapp.pipeline.runner.hypotheses import tested_hypotheses
from researchapp.pipeline.runner.rows import (
    approved_subquestions,
    check_issue_value,
    evidence_value,
    finding_value,
    record_usage,
    subquestion_value,
)
from researchapp.pipeline.runner.wiring import checker_for, writer_for
from researchapp.pipeline.writer import Writer
from researchapp.pipeline.writer.render import with_computed, with_hypotheses


def ledger_for(task: ResearchTask, evidence_ids: Iterable[int]) -> values.Ledger:
    rows = Evidence.objects.filter(task=task, pk__in=set(evidence_ids)).select_related("source")
    evidence = {row.pk: evidence_value(row) for row in rows}
    snapshots = {row.source_id: row.source.text for row in rows}
    # A snapshot that no longer hashes to what the quote was taken from fails every quote of it.
    for row in rows:
        if row.source.sha256 != row.snapshot_sha256:
            snapshots[row.source_id] = ""
    return values.Ledger(evidence=evidence, snapshots=snapshots)


def report_findings(task: ResearchTask) -> list[values.ReviewedFinding]:
    rows = (
        Finding.objects.filter(task=task)
        # Dropped findings stay visible to the checker (a sub-question an analyst dropped is
        # covered); render_draft leaves them out of the text.
        .exclude(resolution=Resolution.MORE_RESEARCH)
        # A computed figure is shown with its code and inputs (``computed_figures``), never as a claim.
        .exclude(key__startswith=DERIVED_KEY)
        .select_related("subquestion", "resolved_by")
        .prefetch_related("links__evidence__source")
    )
    return [finding_value(row) for row in rows]


def brief_for(task: ResearchTask, feedback: tuple[values.CheckIssue, ...] = ()) -> values.Brief:
    return values.Brief(
        question=task.question,
        subquestions=tuple(subquestion_value(sq) for sq in approved_subquestions(task)),
        findings=tuple(report_findings(task)),
        feedback=feedback,
    )


def check(task: ResearchTask, draft: values.Draft, brief: values.Brief) -> list[values.CheckIssue]:
    computed = document_from_json(dict(draft.document)).computed_ids() if draft.document else []
    ledger = ledger_for(task, [*(i for claim in draft.claims for i in claim.evidence_ids), *computed])
    return checker_for(task).check(draft, brief, ledger)


def analyst_feedback(sent_back: ReportDraft) -> list[values.CheckIssue]:
    """An analyst's comments on a draft, as issues for the next one: a comment on a sentence names
    that sentence as its claim, and [E12] markers in the comment on the whole report name the
    citations it objects to, so a writer can tell what each is about."""
    issues: list[values.CheckIssue] = []
    if sent_back.feedback:
        ids = written_marker_ids(sent_back.feedback)
        issues.append(values.CheckIssue("analyst_feedback", sent_back.feedback, evidence_ids=ids))
    issues += [
        values.CheckIssue(
            code="analyst_comment",
            message=f"{item['comment']} — about {describe_claim(item['sentence'])}",
            claim=item["sentence"],
        )
        for item in sent_back.sentence_comments
    ]
    return issues


@dataclass(frozen=True)
class WriteInputs:
    """What every revision of a write pass starts from, loaded once."""

    brief: values.Brief
    hypotheses: list[TestedHypothesis]
    figures: list[ComputedFigure]
    # Computed figures whose inputs are not what their quotes say: a check issue of the first
    # revision, and left out of the revisions after it.
    refused: set[int]
    quoted: list[values.Evidence]  # every passage the report may quote

    def figures_shown(self, revision: int) -> list[ComputedFigure]:
        return (
            self.figures if revision == 1 else [f for f in self.figures if f.finding_id not in self.refused]
        )


def write_inputs(task: ResearchTask) -> WriteInputs:
    brief = brief_for(task)
    hypotheses, hypothesis_evidence = tested_hypotheses(task)
    figures, figure_evidence = computed_figures(task)
    ledger = ledger_for(task, (item.evidence_id for figure in figures for item in figure.inputs))
    return WriteInputs(
        brief=brief,
        hypotheses=hypotheses,
        figures=figures,
        refused={f.finding_id for f in figures if computed_problems(f, ledger.evidence, ledger.snapshots)},
        quoted=[
            *(item for finding in brief.findings for item in finding.evidence),
            *hypothesis_evidence,
            *figure_evidence,
        ],
    )


def run_write(task: ResearchTask) -> ReportDraft:
    """Draft, check mechanically, revise with the issues as feedback, up to the task's limit.

    1. Load what every revision starts from; the analyst's comments on the last pass's draft are
       the first feedback. 2. Per revision: reuse the draft a run before stored (drafts are keyed
       by write pass and revision), or write, check and store one. 3. Stop at the first that
       passed its check; otherwise revise with every issue so far.
    """
    inputs = write_inputs(task)
    writer = writer_for(task)
    feedback: list[values.CheckIssue] = []
    previous = task.drafts.filter(write_pass=task.write_pass - 1).order_by("-revision").first()
    if previous:
        feedback += analyst_feedback(previous)
    stored = None
    for revision in range(1, task.max_revisions + 2):
        stored = task.drafts.filter(write_pass=task.write_pass, revision=revision).first()
        if stored is None:
            stored = write_revision(task, writer, inputs, revision=revision, feedback=feedback)
        if stored.status != ReportDraft.Status.FAILED_CHECKS:  # checked, and perhaps decided since
            break
        # Every issue so far, so a claim dropped in one revision does not come back in the next.
        feedback += stored_check_issues(stored)
    return stored


def write_revision(
    task: ResearchTask,
    writer: Writer,
    inputs: WriteInputs,
    *,
    revision: int,
    feedback: list[values.CheckIssue],
) -> ReportDraft:
    """Write one revision (with the feedback so far), add the report's hypotheses and computed
    figures, check it against the ledger, and store it with its issues."""
    usage = values.UsageLog()
    try:
        draft = writer.write(replace(inputs.brief, feedback=tuple(feedback)), usage=usage)
    finally:
        record_usage(task, usage)
    if writer.note:  # another writer stood in (the model's answer was rejected twice): say so
        Event.objects.create(
            task=task,
            stage=Stage.WRITING,
            kind=Event.Kind.WARNING,
            message=writer.note,
            data={"code": "malformed_output"},
        )
    draft = with_hypotheses(draft, inputs.hypotheses, inputs.quoted)
    draft = with_computed(draft, inputs.figures_shown(revision), inputs.quoted)
    issues = check(task, draft, inputs.brief)
    return ReportDraft.objects.create(
        task=task,
        version=(task.drafts.aggregate(v=Max("version"))["v"] or 0) + 1,
        write_pass=task.write_pass,
        revision=revision,
        markdown=draft.markdown,
        document=dict(draft.document),
        engine=writer.name,
        engine_note=writer.note,
        claims=[
            {"text": c.text, "evidence_ids": list(c.evidence_ids), "section": c.section} for c in draft.claims
        ],
        check_issues=[issue.as_json() for issue in issues],
        status=ReportDraft.Status.FAILED_CHECKS if issues else ReportDraft.Status.CHECKED,
    )


def stored_check_issues(draft: ReportDraft) -> list[values.CheckIssue]:
    return [check_issue_value(row, draft.claims) for row in draft.check_issues]


def recheck(draft: ReportDraft) -> list[values.CheckIssue]:
    """Check a stored draft against the ledger as it stands now (before approval, in exports)."""
    task = draft.task
    value = values.Draft(
        markdown=draft.markdown,
        claims=tuple(
            values.Claim(c["text"], tuple(c["evidence_ids"]), c.get("section", "")) for c in draft.claims
        ),
        document=dict(draft.document or {}),
    )
    return check(task, value, brief_for(draft.task))
