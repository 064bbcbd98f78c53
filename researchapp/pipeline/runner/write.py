"""The write stage's inputs and outputs, and the check of a draft against the ledger as it stands."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace

from django.db.models import Max

from researchapp.core.enums import Resolution
from researchapp.models import Event, Evidence, Finding, ReportDraft, ResearchTask, Stage
from researchapp.pipeline import values
from researchapp.pipeline.checker.mechanical import computed_problems
from researchapp.pipeline.deep.tools import DERIVED_KEY
from researchapp.pipeline.report import describe_claim
from researchapp.pipeline.report.document import document_from_json
from researchapp.pipeline.runner.computed import computed_figures
from researchapp.pipeline.runner.hypotheses import tested_hypotheses
from researchapp.pipeline.runner.rows import (
    approved_subquestions,
    evidence_value,
    finding_value,
    record_usage,
    subquestion_value,
)
from researchapp.pipeline.runner.wiring import checker_for, judge_for, writer_for
from researchapp.pipeline.writer import Writer
from researchapp.pipeline.writer.extractive import ExtractiveWriter
from researchapp.pipeline.writer.guard import guard_draft
from researchapp.pipeline.writer.render import with_computed, with_hypotheses
from researchapp.providers.base import ProviderError


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
    """An analyst's comments on a draft, as issues for the next one: each comment on a sentence
    names that sentence as a check names a claim, so a writer can tell which claim it is about."""
    issues = (
        [values.CheckIssue(code="analyst_feedback", message=sent_back.feedback)] if sent_back.feedback else []
    )
    issues += [
        values.CheckIssue(
            code="analyst_comment", message=f"{item['comment']} — about {describe_claim(item['sentence'])}"
        )
        for item in sent_back.sentence_comments
    ]
    return issues


def write_or_fall_back(
    task: ResearchTask, writer: Writer, brief: values.Brief, usage: values.UsageLog
) -> tuple[values.Draft, str, str]:
    """(draft, engine, why another engine wrote it): the writer's draft; if the model's answer was
    rejected twice, the extractive writer's, with the reason on the task's record and in the
    report's method section: two rejections cost the model its draft, never the task."""
    try:
        return writer.write(brief, usage=usage), writer.name, ""
    except ProviderError as error:
        if error.code != "malformed_output":
            raise
        reason = error.message
    note = f"The model's draft was rejected twice, so the extractive writer wrote this one: {reason}"
    Event.objects.create(
        task=task,
        stage=Stage.WRITING,
        kind=Event.Kind.WARNING,
        message=note,
        data={"code": "malformed_output"},
    )
    return ExtractiveWriter().write(brief, usage=usage), ExtractiveWriter.name, note


def run_write(task: ResearchTask) -> ReportDraft:
    """Draft, check mechanically, revise with the issues as feedback, up to the task's limit.

    Drafts are keyed by (write pass, revision): a re-run reuses what an earlier run stored.
    """
    brief = brief_for(task)
    writer = writer_for(task)
    judge = judge_for(task)
    hypotheses, hypothesis_evidence = tested_hypotheses(task)
    figures, figure_evidence = computed_figures(task)
    quoted = [
        *(item for finding in brief.findings for item in finding.evidence),
        *hypothesis_evidence,
        *figure_evidence,
    ]
    # A computed figure whose inputs are not what their quotes say is a check issue of the first
    # revision, and is not shown in the revisions after it.
    ledger = ledger_for(task, (item.evidence_id for figure in figures for item in figure.inputs))
    refused = {f.finding_id for f in figures if computed_problems(f, ledger.evidence, ledger.snapshots)}
    feedback: list[values.CheckIssue] = []
    previous = task.drafts.filter(write_pass=task.write_pass - 1).order_by("-revision").first()
    if previous:
        feedback += analyst_feedback(previous)
    stored = None
    for revision in range(1, task.max_revisions + 2):
        stored = task.drafts.filter(write_pass=task.write_pass, revision=revision).first()
        if stored is None:
            usage = values.UsageLog()
            try:
                draft, engine, engine_note = write_or_fall_back(
                    task, writer, replace(brief, feedback=tuple(feedback)), usage
                )
                draft = guard_draft(draft, brief.findings, judge, usage)
            finally:
                record_usage(task, usage)
            draft = with_hypotheses(draft, hypotheses, quoted)
            shown = figures if revision == 1 else [f for f in figures if f.finding_id not in refused]
            draft = with_computed(draft, shown, quoted)
            issues = check(task, draft, brief)
            version = (task.drafts.aggregate(v=Max("version"))["v"] or 0) + 1
            stored = ReportDraft.objects.create(
                task=task,
                version=version,
                write_pass=task.write_pass,
                revision=revision,
                markdown=draft.markdown,
                document=dict(draft.document),
                engine=engine,
                engine_note=engine_note,
                claims=[
                    {"text": c.text, "evidence_ids": list(c.evidence_ids), "section": c.section}
                    for c in draft.claims
                ],
                check_issues=[
                    {"code": i.code, "message": i.message, "claim_index": i.claim_index} for i in issues
                ],
                status=ReportDraft.Status.FAILED_CHECKS if issues else ReportDraft.Status.CHECKED,
            )
        if stored.status != ReportDraft.Status.FAILED_CHECKS:  # checked, and perhaps decided since
            break
        # Every issue so far, so a claim dropped in one revision does not come back in the next.
        feedback += [
            values.CheckIssue(i["code"], i["message"], i["claim_index"]) for i in stored.check_issues
        ]
    return stored


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
