"""Markdown export: the approved report plus the ledger entry behind every citation."""

from __future__ import annotations

from researchapp.models import Evidence, ReportDraft


def cited_evidence(draft: ReportDraft) -> list[Evidence]:
    ids = draft.cited_evidence_ids
    rows = {e.pk: e for e in Evidence.objects.filter(pk__in=ids, task=draft.task).select_related("source")}
    return [rows[i] for i in ids if i in rows]


def render_markdown(draft: ReportDraft) -> str:
    task = draft.task
    approved = (
        f"Approved by {draft.approved_by.get_username() if draft.approved_by else 'auto-approval'} "
        f"on {draft.approved_at:%Y-%m-%d %H:%M} UTC"
        if draft.approved_at
        else "Not approved"
    )
    lines = [
        draft.markdown.rstrip(),
        "",
        "---",
        "",
        "## Evidence ledger",
        "",
        f"Task {task.pk}, report v{draft.version}. {approved}. Engine: {draft.engine or task.engine}.",
        "Each quote is the exact text `snapshot[start:end]` of the source snapshot whose SHA-256 is given.",
        "",
    ]
    for row in cited_evidence(draft):
        source = row.source
        lines.append(
            f"- [E{row.pk}] {source.title or source.url} — {source.url} — "
            f"sha256 `{row.snapshot_sha256}`, characters {row.start}–{row.end}"
        )
    return "\n".join(lines) + "\n"
