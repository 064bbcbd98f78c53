"""Collection rounds: the first for every sub-question, follow-ups for thin ones."""

from __future__ import annotations

from django.conf import settings
from django.db import transaction

from researchapp.core.enums import INSUFFICIENT_MARK, FindingStatus, Resolution
from researchapp.core.messages import Message, gettext_noop, message
from researchapp.models import Finding, ResearchTask, SubQuestion
from researchapp.pipeline import runner
from researchapp.pipeline.collector.followup import followup_queries
from researchapp.services.dispatch import Job, enqueue

Status = ResearchTask.Status


def collection_enqueue(task: ResearchTask, subquestion_ids: list[int]) -> None:
    for subquestion_id in subquestion_ids:
        enqueue(Job.COLLECT, task.pk, subquestion_id, task.round)


def start_followup_round(
    task: ResearchTask, subquestion_ids: list[int], *, stage: str, reason: Message
) -> None:
    """Collect again, with new queries, for the sub-questions whose evidence is thin."""
    next_round = task.round + 1
    with transaction.atomic():
        for subquestion in SubQuestion.objects.filter(pk__in=subquestion_ids):
            queries = followup_queries(runner.subquestion_value(subquestion), round_no=next_round)
            SubQuestion.objects.filter(pk=subquestion.pk).update(
                followup_queries=list(queries), due_round=next_round
            )
        task.transition(
            Status.COLLECTING,
            stage=stage,
            round=next_round,
            message=message(
                gettext_noop("Follow-up round %(round)s for %(count)s sub-questions: %(reason)s"),
                round=next_round,
                count=len(subquestion_ids),
                reason=reason,
            ),
            data={"subquestions": subquestion_ids},
        )
        collection_enqueue(task, subquestion_ids)


def auto_followup_applies(task: ResearchTask) -> bool:
    mode = settings.RESEARCH["AUTO_FOLLOWUP"]
    return mode == "always" or (mode == "live" and task.search_provider != "local")


def thin_subquestions(task: ResearchTask) -> list[int]:
    """Sub-questions of this round whose every finding is [证据不足]."""
    statuses: dict[int, set[str]] = {}
    for subquestion_id, status in Finding.objects.filter(task=task, round=task.round).values_list(
        "subquestion_id", "status"
    ):
        statuses.setdefault(subquestion_id, set()).add(status)
    return sorted(sq for sq, found in statuses.items() if found == {FindingStatus.INSUFFICIENT})


def reopen_empty_followups(task: ResearchTask) -> list[int]:
    """A sub-question sent for more research whose follow-up round found nothing to report becomes a
    [证据不足] item again, saying what was searched; returns the new items' ids.

    Without it the analyst's "more research" item was set aside (it is not reported) and nothing took
    its place: the gate passed by itself and the writer then failed on a sub-question with no claim.
    Keyed by round, so analysing again makes nothing twice.
    """
    if task.round < 2:
        return []
    asked = Finding.objects.filter(
        task=task,
        resolution=Resolution.MORE_RESEARCH,
        round__lt=task.round,
        subquestion__due_round=task.round,
    ).values("subquestion_id")
    created = []
    for subquestion in SubQuestion.objects.filter(pk__in=asked):
        if (
            Finding.objects.filter(subquestion=subquestion)
            .exclude(resolution=Resolution.MORE_RESEARCH)
            .exists()
        ):
            continue  # the round found something to report (or to review)
        searched = ", ".join(f"“{query}”" for query in (subquestion.followup_queries or subquestion.queries))
        finding, made = Finding.objects.get_or_create(
            subquestion=subquestion,
            key=f"sq{subquestion.pk}:followup-empty:r{task.round}",
            defaults={
                "task": task,
                "round": task.round,
                "status": FindingStatus.INSUFFICIENT,
                "statement": f"{INSUFFICIENT_MARK} {subquestion.text} (follow-up round {task.round} "
                f"searched {searched} and found nothing new)",
            },
        )
        if made:
            created.append(finding.pk)
    return created
