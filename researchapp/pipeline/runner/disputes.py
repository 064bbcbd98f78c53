"""Disagreements across a whole task: judged once per task, stored once, whatever found them.

1. Every passage of the task that cleared the relevance bar, from every sub-question, is paired
   with the others and with the passages of the task's opened sources (``text.contradiction.pairs``);
   the task's judge (``wiring.judge_for``) judges each pair once.
2. A passage of an opened source that disagrees with evidence becomes evidence itself, on the
   sub-question of the passage it disagrees with (``Evidence.paired_with``): both sides reach the
   analyst, with what they were found as. The closest passages a sub-question stored below the bar
   are judged too, and a side of a dispute among them clears the bar, paired with the other side:
   a page that answers the asked fact with another value is not dropped as no answer.
3. Each dispute is one ``conflict`` finding of the task (keyed by its passages' places, so a
   re-run upserts), under the first sub-question of its evidence it belongs to; the analysis of
   each sub-question is told which spans are disputed, so no supported statement states one.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from datetime import date

from django.db import transaction

from researchapp.core.enums import FindingStatus
from researchapp.models import Evidence, Finding, FindingEvidence, ResearchTask, Source, SubQuestion
from researchapp.pipeline import values
from researchapp.pipeline.analyser.disputes import (
    CONFLICT_KEY,
    Dispute,
    Place,
    asks_about,
    conflict_finding,
    find_disputes,
    in_scope,
)
from researchapp.pipeline.analyser.extractive import confidence_of
from researchapp.pipeline.collector.splitting import split_passages
from researchapp.pipeline.runner.rows import evidence_value, subquestion_value
from researchapp.pipeline.text.contradiction import DisagreementJudge, Side, document_context
from researchapp.pipeline.text.tokens import cjk_count


def pool_sides(snapshots: dict[int, str], published: dict[int, date]) -> list[Side]:
    """Every passage of every source the task opened, cut as the collector cuts them."""
    return [
        Side(
            source_id,
            start,
            end,
            text[start:end],
            context=document_context(text),
            published=published.get(source_id),
        )
        for source_id, text in snapshots.items()
        for start, end in split_passages(text)
    ]


def task_evidence(task: ResearchTask) -> list[values.Evidence]:
    rows = Evidence.objects.filter(task=task, clears_bar=True).select_related("source").order_by("pk")
    return [evidence_value(row) for row in rows]


def closest_evidence(task: ResearchTask) -> list[values.Evidence]:
    """The closest passages a sub-question found without one clearing the bar (stored to show what
    was found), as evidence for the judges: two sources that answer the asked fact differently are
    a disagreement to review, even where the collector would not call either an answer."""
    rows = Evidence.objects.filter(task=task, clears_bar=False).select_related("source").order_by("pk")
    return [replace(evidence_value(row), clears_bar=True) for row in rows]


def judge_task(
    task: ResearchTask, judge: DisagreementJudge, usage: values.UsageLog
) -> tuple[list[Dispute], list[values.Evidence]]:
    """The task's disputes, with every evidence row they (or the analysis) may name."""
    evidence = task_evidence(task)
    rows = Source.objects.filter(task=task).order_by("pk").values_list("pk", "text", "published")
    snapshots = {pk: text for pk, text, _ in rows}
    published = {pk: day for pk, _, day in rows if day}
    questions = {
        pk: f"{text}\n{task.question}"
        for pk, text in SubQuestion.objects.filter(plan__task=task).values_list("pk", "text")
    }
    closest = closest_evidence(task)
    disputes = find_disputes(
        evidence + closest,
        judge,
        pool=pool_sides(snapshots, published),
        snapshots=snapshots,
        published=published,
        questions=questions,
        usage=usage,
    )
    promoted = store_other_sides(task, disputes) + keep_closest_sides(disputes, {e.id for e in closest})
    return disputes, evidence + promoted


def keep_closest_sides(disputes: Sequence[Dispute], closest: set[int]) -> list[values.Evidence]:
    """A closest passage that is a side of a dispute clears the bar, paired with the best passage
    of the other side: both sides of a disagreement about the asked fact are kept."""
    kept: dict[int, int] = {}
    for dispute in disputes:
        for own, other in ((dispute.first, dispute.second), (dispute.second, dispute.first)):
            partner = next((side.evidence_id for side in other if side.evidence_id is not None), None)
            for side in own:
                if side.evidence_id in closest and partner is not None:
                    kept.setdefault(side.evidence_id, partner)
    for evidence_id, partner in kept.items():
        Evidence.objects.filter(pk=evidence_id).update(clears_bar=True, paired_with_id=partner)
    rows = Evidence.objects.filter(pk__in=kept).select_related("source").order_by("pk")
    return [evidence_value(row) for row in rows]


def store_other_sides(task: ResearchTask, disputes: Sequence[Dispute]) -> list[values.Evidence]:
    """A disputing passage that is not evidence becomes evidence on the sub-question of the best
    evidence it disagrees with (upserted by span: a re-run stores nothing twice)."""
    stored: list[Evidence] = []
    for dispute in disputes:
        anchor = next(side for side in dispute.sides if side.evidence_id is not None)
        for side in dispute.sides:
            if side.evidence_id is not None:
                continue
            paired = {"clears_bar": True, "paired_with_id": anchor.evidence_id}
            row, _ = Evidence.objects.update_or_create(
                source_id=side.source_id,
                subquestion_id=anchor.subquestion_id,
                start=side.start,
                end=side.end,
                # create_defaults replace defaults on creation: both say what the passage is
                create_defaults={"task": task, "quote": side.text, "round": task.round, **paired},
                defaults=paired,
            )
            SubQuestion.sources.through.objects.get_or_create(
                subquestion_id=anchor.subquestion_id, source_id=side.source_id
            )
            stored.append(row)
    return [
        evidence_value(row)
        for row in Evidence.objects.filter(pk__in=[r.pk for r in stored]).select_related("source")
    ]


def conflicts_of(
    disputes: Sequence[Dispute], evidence: Sequence[values.Evidence], subquestions: Sequence[SubQuestion]
) -> list[values.ProposedFinding]:
    """Each dispute as one conflict finding, under the first sub-question (plan order) of its
    evidence whose dimension it belongs to (else the first of its evidence)."""
    by_place: dict[Place, values.Evidence] = {}
    for item in sorted(evidence, key=lambda e: (-e.score, e.id)):
        by_place.setdefault((item.source_id, item.start, item.end), item)
    order = {row.pk: (row.order, row.pk) for row in subquestions}
    known = {row.pk: subquestion_value(row) for row in subquestions}
    proposed = []
    for dispute in disputes:
        linked = [by_place[side.place] for side in dispute.sides if side.place in by_place]
        if len({(e.source_id, e.start, e.end) for e in linked}) < len(dispute.sides):
            continue  # a side could not be stored
        homes = sorted({e.subquestion_id for e in linked if e.subquestion_id in known}, key=order.get)
        # Filed under a sub-question that asks about its kind of value when one does; else under its
        # first: sources that disagree are for review whatever was asked (a denial of what a
        # "what was said" question's source says), though it answers no question of another kind.
        homes = [i for i in homes if asks_about(dispute, known[i])] or homes
        if not homes:
            continue
        home = next((known[i] for i in homes if in_scope(dispute, known[i])), known[homes[0]])
        ids = {place: item.id for place, item in by_place.items()}
        first = [by_place[side.place] for side in dispute.first]
        chinese = cjk_count(home.text) >= 2
        proposed.append(
            conflict_finding(dispute, home, ids, chinese=chinese, confidence=confidence_of(first))
        )
    return proposed


def disagreement_json(disagreement: values.Disagreement | None) -> dict:
    if disagreement is None:
        return {}
    return {
        "kind": disagreement.kind,
        "spans": {
            str(evidence_id): [list(span) for span in spans]
            for evidence_id, spans in disagreement.spans.items()
        },
        "reason": disagreement.reason,
        "judges": list(disagreement.judges),
    }


def store_conflicts(task: ResearchTask, proposed: Sequence[values.ProposedFinding]) -> None:
    """Upsert the task's conflicts by key, once per task; an undecided conflict no longer found is
    superseded; a decided one is never touched."""
    with transaction.atomic():
        keys = [item.key for item in proposed]
        stale = Finding.objects.filter(
            task=task, key__startswith=CONFLICT_KEY, resolution="", resolved_at__isnull=True
        )
        stale.exclude(key__in=keys).delete()
        for item in proposed:
            finding = Finding.objects.filter(task=task, key=item.key).first()
            fields = {
                "status": FindingStatus.CONFLICT.value,
                "statement": item.statement,
                "confidence": item.confidence,
                "disagreement": disagreement_json(item.disagreement),
            }
            if finding is None:
                finding = Finding.objects.create(
                    task=task, subquestion_id=item.subquestion_id, key=item.key, round=task.round, **fields
                )
            elif finding.resolution or finding.resolved_at is not None:
                continue  # decided: decisions are never undone by a re-run
            else:
                Finding.objects.filter(pk=finding.pk).update(**fields)
            for link in item.links:
                FindingEvidence.objects.update_or_create(
                    finding=finding, evidence_id=link.evidence_id, defaults={"stance": link.stance.value}
                )
