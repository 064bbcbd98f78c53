"""The analyse stage's inputs and outputs: findings upserted by key, decisions never undone."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace

from django.conf import settings
from django.db import transaction

from researchapp.core.enums import FindingStatus
from researchapp.core.messages import gettext_noop, plural_message
from researchapp.models import Event, Finding, FindingEvidence, ResearchTask, Stage, SubQuestion
from researchapp.pipeline import values
from researchapp.pipeline.analyser import Analyser
from researchapp.pipeline.analyser.disputes import CONFLICT_KEY, Dispute, disputed_spans
from researchapp.pipeline.analyser.extractive import rejected_analysis
from researchapp.pipeline.analyser.facets import gate_facets, main_subquestion
from researchapp.pipeline.collector.splitting import heading_of
from researchapp.pipeline.deep.tools import DERIVED_KEY
from researchapp.pipeline.runner.collect import common_terms_of
from researchapp.pipeline.runner.disputes import conflicts_of, judge_task, store_conflicts
from researchapp.pipeline.runner.rows import (
    approved_subquestions,
    evidence_value,
    record_usage,
    subquestion_value,
)
from researchapp.pipeline.runner.wiring import analyser_for, judge_for
from researchapp.pipeline.text.tokens import Span
from researchapp.pipeline.values import EvidenceLink, ProposedFinding, UsageLog
from researchapp.providers.base import ProviderError

CLOSEST_LINKS = 3
ANSWER_CHARS = 500  # Finding.answer's length


def run_analyse(task: ResearchTask) -> None:
    """Upsert the task's disagreements, then the findings of every sub-question collected in this round.

    1. Judge the whole task's passages for disagreements, once per task (``disputes``), and store
       them as conflict findings. 2. Load each sub-question's evidence (with the other sides the
       judging stored, and the headings above each passage). 3. Analyse the sub-questions
       concurrently (model calls wait on the network, and they are independent), each told the
       spans in dispute. 4. A factual question's facets are reported only if the question itself
       is answered (``analyser.facets.gate_facets``). 5. Store what each returned; if any failed,
       the others' findings are kept and the first error is raised.

    Unresolved findings the new analysis no longer proposes are superseded (deleted); findings an
    analyst already decided are kept as they are: decisions are never undone by a re-run.
    """
    analyser = analyser_for(task)
    usage = UsageLog()
    common = common_terms_of(task)
    subquestions = approved_subquestions(task)
    try:
        disputes, judged = judge_task(task, judge_for(task), usage)
        store_conflicts(task, conflicts_of(disputes, judged, subquestions))
    except Exception:
        record_usage(task, usage)
        raise
    note_rejected_judgements(task, usage)
    inputs = [
        (subquestion, [with_heading(e) for e in subquestion.evidence.select_related("source")])
        for subquestion in subquestions
        if subquestion.collected_round == task.round
    ]
    try:
        results = _analyse_each(analyser, inputs, usage, disputes, task.question, common)
    finally:
        record_usage(task, usage)
    proposed = _gated(task, subquestions, {k: v for k, v in results.items() if not isinstance(v, Exception)})
    errors = [result for result in results.values() if isinstance(result, Exception)]
    for subquestion, evidence in inputs:
        try:
            if subquestion.pk in proposed:
                store_findings(task, subquestion, with_closest(proposed[subquestion.pk], evidence))
        except Exception as error:  # noqa: BLE001 - kept, and raised once the rest is stored
            errors.append(error)
    if errors:
        raise errors[0]


def _analyse_each(
    analyser: Analyser,
    inputs: list[tuple[SubQuestion, list[values.Evidence]]],
    usage: UsageLog,
    disputes: Sequence[Dispute],
    question: str,
    common: frozenset[str],
) -> dict[int, list[ProposedFinding] | Exception]:
    """Each sub-question's proposed findings, or the error its analysis raised, analysed concurrently
    (model calls wait on the network, and they are independent)."""
    results: dict[int, list[ProposedFinding] | Exception] = {}
    workers = max(1, min(len(inputs), settings.RESEARCH["CONCURRENCY"]))
    with ThreadPoolExecutor(max_workers=workers) as pool:
        futures = {
            subquestion.pk: pool.submit(
                analyse_one,
                analyser,
                subquestion_value(subquestion),
                evidence,
                usage,
                disputed_spans(disputes, evidence),
                question,
                common,
            )
            for subquestion, evidence in inputs
        }
    for key, future in futures.items():
        try:
            results[key] = future.result()
        except Exception as error:  # noqa: BLE001 - kept, and raised once the rest is stored
            results[key] = error
    return results


def note_rejected_judgements(task: ResearchTask, usage: UsageLog) -> None:
    """A pair whose model judgement was rejected twice keeps the rules' judgement alone: said on
    the task's record, where an analyst reads warnings."""
    rejected = sum(1 for call in usage.calls if call.stage == "judge" and not call.ok) // 2
    if rejected:
        Event.objects.create(
            task=task,
            stage=Stage.ANALYSING,
            kind=Event.Kind.WARNING,
            message=plural_message(
                gettext_noop(
                    "The model's judgement of %(count)s pair of passages was rejected twice; "
                    "the rules' judgement of that pair stands."
                ),
                gettext_noop(
                    "The model's judgement of %(count)s pairs of passages was rejected twice; "
                    "the rules' judgement of those pairs stands."
                ),
                rejected,
            ),
            data={"code": "malformed_output"},
        )


def _gated(
    task: ResearchTask, subquestions: list[SubQuestion], proposed: dict[int, list[ProposedFinding]]
) -> dict[int, list[ProposedFinding]]:
    """``gate_facets`` with the question's own answer read from this round's analysis, or from what
    an earlier round stored when the question was not analysed again."""
    values_ = [subquestion_value(sq) for sq in subquestions]
    main = main_subquestion(task.question, values_)
    main_answered = None
    if main is not None and main.id not in proposed:
        main_answered = Finding.objects.filter(
            subquestion_id=main.id, status__in=[FindingStatus.SUPPORTED, FindingStatus.CONFLICT]
        ).exists()
    return gate_facets(task.question, values_, proposed, main_answered=main_answered)


def with_heading(row) -> values.Evidence:
    """The evidence with the headings above its passage: what a reader weighs as its context."""
    return replace(evidence_value(row), heading=heading_of(row.source.title, row.source.text, row.start))


def analyse_one(
    analyser: Analyser,
    subquestion: values.SubQuestion,
    evidence: list[values.Evidence],
    usage: UsageLog,
    disputed: Mapping[int, Sequence[Span]] | None = None,
    question: str = "",
    common: frozenset[str] = frozenset(),
) -> list[ProposedFinding]:
    """Analyse what cleared the relevance bar; a model answer rejected twice becomes an item to
    decide at the evidence gate, not a failed task."""
    relevant = [item for item in evidence if item.clears_bar]
    try:
        return analyser.analyse(
            subquestion, relevant, usage=usage, disputed=disputed or {}, question=question, common=common
        )
    except ProviderError as error:
        if error.code != "malformed_output":
            raise
        return [rejected_analysis(subquestion, error.message)]


def with_closest(proposed: list[ProposedFinding], evidence: list[values.Evidence]) -> list[ProposedFinding]:
    """An insufficient finding links the closest passages found (never as support of anything):
    what the analyst sees under "what was searched"."""
    supporting = {link.evidence_id for finding in proposed for link in finding.links}
    closest = sorted(
        (item for item in evidence if item.id not in supporting),
        key=lambda item: (-item.relevance, -item.score, item.id),
    )[:CLOSEST_LINKS]
    return [
        replace(finding, links=tuple(EvidenceLink(item.id) for item in closest))
        if finding.status is FindingStatus.INSUFFICIENT and not finding.links
        else finding
        for finding in proposed
    ]


def store_findings(task: ResearchTask, subquestion: SubQuestion, proposed: list[ProposedFinding]) -> None:
    with transaction.atomic():
        keys = [p.key for p in proposed]
        # Undecided means no resolution and nobody's hand on it: an item an analyst answered with
        # evidence added by hand is supported, unresolved, and decided (``resolved_at``).
        undecided = Finding.objects.filter(subquestion=subquestion, resolution="", resolved_at__isnull=True)
        # A figure deep mode's loop computed is not analysis's to drop (``pipeline.deep.tools``), nor
        # is a disagreement of the whole task (``disputes.store_conflicts`` keeps those).
        undecided.exclude(key__in=keys).exclude(key__startswith=DERIVED_KEY).exclude(
            key__startswith=CONFLICT_KEY
        ).delete()
        for item in proposed:
            finding, created = Finding.objects.get_or_create(
                subquestion=subquestion,
                key=item.key,
                defaults={
                    "task": task,
                    "round": task.round,
                    "status": item.status.value,
                    "statement": item.statement,
                    "confidence": item.confidence,
                    "answer": item.answer[:ANSWER_CHARS],
                },
            )
            decided = bool(finding.resolution) or finding.resolved_at is not None
            if not created and not decided:
                Finding.objects.filter(pk=finding.pk).update(
                    status=item.status.value,
                    statement=item.statement,
                    confidence=item.confidence,
                    answer=item.answer[:ANSWER_CHARS],
                )
            if created or not decided:
                for link in item.links:
                    FindingEvidence.objects.update_or_create(
                        finding=finding, evidence_id=link.evidence_id, defaults={"stance": link.stance.value}
                    )
