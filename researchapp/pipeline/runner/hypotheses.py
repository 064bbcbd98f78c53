"""Hypotheses after the first round: proposed from the stored findings, stored once per key."""

from __future__ import annotations

from datetime import UTC

from django.db import transaction

from researchapp.core.enums import HypothesisStance
from researchapp.core.messages import engine_word, english, gettext_noop, message, plural_message
from researchapp.models import Event, Evidence, Finding, Hypothesis, HypothesisEvidence, ResearchTask, Stage
from researchapp.pipeline import values
from researchapp.pipeline.analyser.hypotheses import ProposedHypothesis, propose_extractive
from researchapp.pipeline.report.document import AGAINST, FOR, Decision, Passage, TestedHypothesis
from researchapp.pipeline.runner.rows import evidence_value, finding_value, record_usage, record_warnings
from researchapp.pipeline.runner.wiring import hypothesis_proposer_for
from researchapp.providers.base import ProviderError


def round_findings(task: ResearchTask, *, round_no: int = 1) -> list[values.ReviewedFinding]:
    rows = (
        Finding.objects.filter(task=task, round__lte=round_no)
        .select_related("subquestion", "resolved_by")
        .prefetch_related("links__evidence__source")
    )
    return [finding_value(row) for row in rows]


def run_hypotheses(task: ResearchTask, *, round_no: int = 1) -> list[Hypothesis]:
    """Propose hypotheses from the findings up to ``round_no`` and upsert them (the deep loop calls
    this after its first round; calling it again adds nothing twice).

    1. Load the findings as the writer sees them.
    2. Propose: with the model engine, through the chat model; should the model fail, the
       extractive proposal stands in and a warning says so. Without a model, extractively.
    3. Upsert by key; link only evidence rows of this task, with their stance.
    """
    findings = round_findings(task, round_no=round_no)
    proposed, proposer = propose_for(task, findings)
    before = set(Hypothesis.objects.filter(task=task).values_list("pk", flat=True))
    stored = [store_hypothesis(task, hypothesis, proposed_by=proposer) for hypothesis in proposed]
    new = [row.pk for row in stored if row.pk not in before]
    if new:  # a run again (a redelivered job) proposes what is stored and says nothing twice
        Event.objects.create(
            task=task,
            stage=Stage.ANALYSING,
            kind=Event.Kind.PROGRESS,
            message=plural_message(
                gettext_noop("%(count)s hypothesis proposed (%(proposer)s)."),
                gettext_noop("%(count)s hypotheses proposed (%(proposer)s)."),
                len(new),
                proposer=engine_word(proposer),
            ),
            data={"hypotheses": new, "round": round_no},
        )
    return stored


def _hypotheses_failed(error: ProviderError) -> values.StageWarning:
    said = message(gettext_noop("%(reason)s; extractive hypotheses used"), reason=error.said or error.message)
    return values.StageWarning(code="hypotheses_failed", message=english(said), said=said)


def propose_for(
    task: ResearchTask, findings: list[values.ReviewedFinding]
) -> tuple[list[ProposedHypothesis], str]:
    proposer = hypothesis_proposer_for(task)
    if proposer is None:
        return propose_extractive(task.question, findings), "extractive"
    usage = values.UsageLog()
    try:
        proposed = proposer.propose(task.question, findings, usage=usage)
    except ProviderError as error:
        record_usage(task, usage)
        record_warnings(
            task,
            Stage.ANALYSING,
            [_hypotheses_failed(error)],
        )
        return propose_extractive(task.question, findings), "extractive"
    record_usage(task, usage)
    return proposed, "model"


def store_hypothesis(task: ResearchTask, proposed: ProposedHypothesis, *, proposed_by: str) -> Hypothesis:
    with transaction.atomic():
        row, _ = Hypothesis.objects.get_or_create(
            task=task,
            key=proposed.key[:200],
            defaults={
                "statement": proposed.statement,
                "supports_if": proposed.supports_if,
                "refutes_if": proposed.refutes_if,
                "proposed_by": proposed_by,
            },
        )
        known = set(
            Evidence.objects.filter(
                task=task, pk__in=[link.evidence_id for link in proposed.links]
            ).values_list("pk", flat=True)
        )
        for link in proposed.links:
            if link.evidence_id in known:
                HypothesisEvidence.objects.get_or_create(
                    hypothesis=row, evidence_id=link.evidence_id, defaults={"stance": link.stance}
                )
    return row


def tested_hypotheses(task: ResearchTask) -> tuple[list[TestedHypothesis], list[values.Evidence]]:
    """The task's hypotheses as the report shows them, and the evidence their passages quote."""
    rows = (
        Hypothesis.objects.filter(task=task)
        .select_related("decided_by")
        .prefetch_related("links__evidence__source")
        .order_by("id")
    )
    tested, evidence = [], {}
    for row in rows:
        links = sorted(row.links.all(), key=lambda link: (link.stance != HypothesisStance.SUPPORT, link.pk))
        for link in links:
            evidence.setdefault(link.evidence_id, evidence_value(link.evidence))
        decided = row.decided_at is not None
        tested.append(
            TestedHypothesis(
                hypothesis_id=row.pk,
                statement=row.statement,
                supports_if=row.supports_if,
                refutes_if=row.refutes_if,
                passages=tuple(
                    Passage(link.evidence_id, FOR if link.stance == HypothesisStance.SUPPORT else AGAINST)
                    for link in links
                ),
                decision=Decision(
                    resolution=row.status,
                    by=row.decided_by.get_username() if row.decided_by else "",
                    at=row.decided_at.astimezone(UTC).isoformat(),
                    note=row.note,
                )
                if decided
                else Decision(),
            )
        )
    return tested, list(evidence.values())
