"""The analyse stage's inputs and outputs: findings upserted by key, decisions never undone."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

from django.conf import settings
from django.db import transaction

from researchapp.models import Finding, FindingEvidence, ResearchTask, SubQuestion
from researchapp.pipeline.runner.rows import (
    approved_subquestions,
    evidence_value,
    record_usage,
    subquestion_value,
)
from researchapp.pipeline.runner.wiring import analyser_for
from researchapp.pipeline.values import ProposedFinding, UsageLog


def run_analyse(task: ResearchTask) -> None:
    """Upsert findings for every sub-question collected in this round.

    1. Load each sub-question's evidence. 2. Analyse the sub-questions concurrently (model calls
    wait on the network, and they are independent). 3. Store what each returned; if any failed,
    the others' findings are kept and the first error is raised.

    Unresolved findings the new analysis no longer proposes are superseded (deleted); findings an
    analyst already decided are kept as they are: decisions are never undone by a re-run.
    """
    analyser = analyser_for(task)
    usage = UsageLog()
    inputs = [
        (subquestion, [evidence_value(e) for e in subquestion.evidence.select_related("source")])
        for subquestion in approved_subquestions(task)
        if subquestion.collected_round == task.round
    ]
    errors: list[Exception] = []
    try:
        workers = max(1, min(len(inputs), settings.RESEARCH["CONCURRENCY"]))
        with ThreadPoolExecutor(max_workers=workers) as pool:
            futures = [
                (
                    subquestion,
                    pool.submit(analyser.analyse, subquestion_value(subquestion), evidence, usage=usage),
                )
                for subquestion, evidence in inputs
            ]
        for subquestion, future in futures:
            try:
                store_findings(task, subquestion, future.result())
            except Exception as error:  # noqa: BLE001 - kept, and raised once the rest is stored
                errors.append(error)
    finally:
        record_usage(task, usage)
    if errors:
        raise errors[0]


def store_findings(task: ResearchTask, subquestion: SubQuestion, proposed: list[ProposedFinding]) -> None:
    with transaction.atomic():
        keys = [p.key for p in proposed]
        Finding.objects.filter(subquestion=subquestion, resolution="").exclude(key__in=keys).delete()
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
                },
            )
            if not created and not finding.resolution:
                Finding.objects.filter(pk=finding.pk).update(
                    status=item.status.value, statement=item.statement, confidence=item.confidence
                )
            if created or not finding.resolution:
                for link in item.links:
                    FindingEvidence.objects.update_or_create(
                        finding=finding, evidence_id=link.evidence_id, defaults={"stance": link.stance.value}
                    )
