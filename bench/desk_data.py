"""Builds a review desk of realistic size with bulk ORM inserts, for ``bench.review_desk``.

Tasks cycle through the statuses a busy desk holds (a quarter waiting on evidence review, a third
approved, some waiting on plan or report review, some running, failed or cancelled). Every task
past planning has an approved plan of 5 sub-questions, 6 sources with a few kilobytes of text,
evidence quoting those sources at exact offsets, findings (supported, conflict, insufficient;
unresolved only where the task waits on evidence review), links, events and, later in the
pipeline, report drafts. Findings are spread so the whole desk holds ``findings_total`` of them.

It imports the models, so it is imported once Django is set up (``review_desk`` does).
"""

from __future__ import annotations

import hashlib
import random
from dataclasses import dataclass

from django.contrib.auth.models import Group, User
from django.db import transaction

from researchapp.core.urls import normalize_url, url_host
from researchapp.models import (
    Event,
    Evidence,
    Finding,
    FindingEvidence,
    Plan,
    ReportDraft,
    ResearchTask,
    Source,
    SubQuestion,
)
from researchapp.permissions import ANALYST, RESEARCHER
from reviews.models import ReviewDecision

SUBQUESTIONS = 5
SOURCES = 6
EVIDENCE_PER_SOURCE = 3
EVENTS = 8
WORDS = (
    "harbor city tram line riders survey station minutes daily passengers transit authority council "
    "budget million report study cost delay safety vehicles route year growth figure policy data "
    "service network fares weekday peak capacity commuters opened construction measured estimate"
).split()

# Twenty slots, cycled; the first ten hold every page's kind of task, so a desk of 10 tasks has all.
STATUS_CYCLE = (
    "awaiting_evidence_review",
    "approved",
    "awaiting_plan_review",
    "awaiting_report_review",
    "approved",
    "awaiting_evidence_review",
    "collecting",
    "approved",
    "awaiting_evidence_review",
    "failed",
    "approved",
    "awaiting_evidence_review",
    "awaiting_plan_review",
    "awaiting_report_review",
    "approved",
    "awaiting_evidence_review",
    "analysing",
    "approved",
    "cancelled",
    "approved",
)
NO_FINDINGS = {"awaiting_plan_review", "collecting"}


@dataclass
class Desk:
    analyst: object
    tasks: list  # ResearchTask rows in creation order


def _text(rng: random.Random, sentences: int) -> str:
    out = []
    for _ in range(sentences):
        words = [rng.choice(WORDS) for _ in range(rng.randint(10, 22))]
        words.insert(rng.randint(1, len(words) - 1), f"{rng.randint(2, 99_000):,}")
        out.append(" ".join(words).capitalize() + ".")
    return "\n\n".join(" ".join(out[i : i + 3]) for i in range(0, len(out), 3))


def users(researchers: int = 20):
    analyst_group, _ = Group.objects.get_or_create(name=ANALYST)
    researcher_group, _ = Group.objects.get_or_create(name=RESEARCHER)
    analyst, _ = User.objects.get_or_create(username="bench-analyst")
    analyst.groups.add(analyst_group)
    owners = []
    for i in range(researchers):
        owner, _ = User.objects.get_or_create(username=f"bench-researcher-{i}")
        owner.groups.add(researcher_group)
        owners.append(owner)
    return analyst, owners


def _findings_per_task(statuses: list[str], findings_total: int) -> dict[int, int]:
    """Findings per task index: ``findings_total`` spread evenly over the tasks that hold any."""
    with_findings = [i for i, status in enumerate(statuses) if status not in NO_FINDINGS]
    per_task = {i: findings_total // len(with_findings) for i in with_findings}
    for i in with_findings[: findings_total % len(with_findings)]:
        per_task[i] += 1
    return per_task


def _tasks(owners: list, statuses: list[str], start_index: int) -> list:
    return ResearchTask.objects.bulk_create(
        ResearchTask(
            owner=owners[(start_index + i) % len(owners)],
            status=status,
            question=f"Bench question {start_index + i}: how busy is the tram line of city {i % 37}?",
            search_provider="tavily",
            engine="openai",
            searches=10,
            pages_opened=30,
            llm_tokens_in=20_000,
            llm_tokens_out=3_000,
            failed_stage="collecting" if status == "failed" else "",
            failure_reason="timed out" if status == "failed" else "",
        )
        for i, status in enumerate(statuses)
    )


def _plans(tasks: list) -> tuple[list, dict[int, list]]:
    """Each task's plan (a draft where it waits on plan review) and its sub-questions, by task id."""
    plans = Plan.objects.bulk_create(
        Plan(
            task=task,
            version=1,
            intent="descriptive",
            engine="openai",
            status="draft" if task.status == "awaiting_plan_review" else "approved",
        )
        for task in tasks
    )
    subquestions = SubQuestion.objects.bulk_create(
        SubQuestion(
            plan=plan,
            order=k,
            text=f"Sub-question {k + 1} of task {plan.task_id}?",
            rationale="Why it matters.",
            queries=[f"query {k + 1}a", f"query {k + 1}b"],
            collected_round=0 if plan.status == "draft" else 1,
        )
        for plan in plans
        for k in range(SUBQUESTIONS)
    )
    subquestions_of: dict[int, list] = {}
    for sq, plan in zip(subquestions, (p for p in plans for _ in range(SUBQUESTIONS)), strict=True):
        subquestions_of.setdefault(plan.task_id, []).append(sq)
    return plans, subquestions_of


def _sources(tasks: list, rng: random.Random) -> list:
    rows = []
    for task in tasks:
        if task.status in NO_FINDINGS:
            continue
        for s in range(SOURCES):
            url = f"https://site{s}.example/tasks/{task.pk}/page-{s}"
            text = _text(rng, 18)
            rows.append(
                Source(
                    task=task,
                    url=url,
                    normalized_url=normalize_url(url),
                    host=url_host(url),
                    title=f"Page {s}",
                    text=text,
                    sha256=hashlib.sha256(text.encode()).hexdigest(),
                    http_status=200,
                    content_type="text/html",
                    extraction="trafilatura",
                    provider="tavily",
                    density=0.9,
                    cluster=f"c{task.pk}-{s}",
                )
            )
    return Source.objects.bulk_create(rows, batch_size=1000)


def _evidence(sources: list, subquestions_of: dict[int, list], rng: random.Random) -> dict[int, list]:
    """The first paragraphs of every source quoted at their exact offsets; the rows, by task id."""
    rows = []
    for source in sources:
        offset = 0
        for p, paragraph in enumerate(source.text.split("\n\n")):
            if p < EVIDENCE_PER_SOURCE:
                sq = subquestions_of[source.task_id][(p + source.pk) % SUBQUESTIONS]
                rows.append(
                    Evidence(
                        task_id=source.task_id,
                        source=source,
                        subquestion=sq,
                        start=offset,
                        end=offset + len(paragraph),
                        quote=paragraph,
                        snapshot_sha256=source.sha256,
                        score=round(rng.random(), 3),
                    )
                )
            offset += len(paragraph) + 2
    evidence_of: dict[int, list] = {}
    for item in Evidence.objects.bulk_create(rows, batch_size=2000):
        evidence_of.setdefault(item.task_id, []).append(item)
    return evidence_of


def _finding(task, number: int, subquestions_of: dict[int, list], pool: list) -> tuple:
    """One finding (every tenth-ish a conflict or a gap, resolved unless its task awaits evidence
    review) and the evidence it links, with each link's stance."""
    kind = "conflict" if number % 10 in (1, 5) else ("insufficient" if number % 10 == 8 else "supported")
    open_review = task.status == "awaiting_evidence_review"
    resolution = (
        "" if kind == "supported" or open_review else {"conflict": "picked", "insufficient": "gap"}[kind]
    )
    finding = Finding(
        task=task,
        subquestion=subquestions_of[task.pk][number % SUBQUESTIONS],
        key=f"bench-{number}",
        status=kind,
        statement=("[证据不足] " if kind == "insufficient" else "") + f"Statement {number} about the tram.",
        confidence="" if kind == "insufficient" else "medium",
        resolution=resolution,
    )
    linked = (
        [] if kind == "insufficient" else [pool[(number * 2) % len(pool)], pool[(number * 2 + 1) % len(pool)]]
    )
    stances = [
        (e, "contradicts" if kind == "conflict" and n == 1 else "supports") for n, e in enumerate(linked)
    ]
    return finding, stances


def _findings(
    tasks: list, per_task: dict[int, int], subquestions_of: dict[int, list], evidence_of: dict
) -> None:
    made = [
        _finding(task, f, subquestions_of, evidence_of.get(task.pk, []))
        for i, task in enumerate(tasks)
        for f in range(per_task.get(i, 0))
    ]
    findings = Finding.objects.bulk_create([finding for finding, _ in made], batch_size=2000)
    FindingEvidence.objects.bulk_create(
        (
            FindingEvidence(finding=finding, evidence=e, stance=stance)
            for finding, (_, links) in zip(findings, made, strict=True)
            for e, stance in links
        ),
        batch_size=5000,
        ignore_conflicts=True,
    )


def _events_drafts_and_decisions(tasks: list, plans: list, evidence_of: dict[int, list]) -> None:
    Event.objects.bulk_create(
        (
            Event(
                task=task,
                stage="collecting",
                kind="warning" if e == 3 else ("transition" if e % 2 else "progress"),
                message=f"Step {e} of task {task.pk}.",
                data={"step": e},
            )
            for task in tasks
            for e in range(EVENTS)
        ),
        batch_size=5000,
    )
    ReportDraft.objects.bulk_create(
        ReportDraft(
            task=task,
            version=1,
            markdown=_report(task, evidence_of.get(task.pk, [])),
            claims=[
                {"text": e.quote[:80], "evidence_ids": [e.pk], "section": str(e.subquestion_id)}
                for e in evidence_of.get(task.pk, [])[:8]
            ],
            status="approved" if task.status == "approved" else "checked",
            engine="openai",
        )
        for task in tasks
        if task.status in ("approved", "awaiting_report_review")
    )
    ReviewDecision.objects.bulk_create(
        ReviewDecision(task=plan.task, object_type="plan", object_id=plan.pk, decision="approve")
        for plan in plans
        if plan.status == "approved"
    )


def seed(n_tasks: int, findings_total: int, *, start_index: int = 0, seed_value: int = 7) -> list:
    """Create ``n_tasks`` tasks (numbered from ``start_index``) holding ``findings_total`` findings."""
    rng = random.Random(seed_value + start_index)
    _, owners = users()
    statuses = [STATUS_CYCLE[(start_index + i) % len(STATUS_CYCLE)] for i in range(n_tasks)]
    per_task = _findings_per_task(statuses, findings_total)
    with transaction.atomic():
        tasks = _tasks(owners, statuses, start_index)
        plans, subquestions_of = _plans(tasks)
        evidence_of = _evidence(_sources(tasks, rng), subquestions_of, rng)
        _findings(tasks, per_task, subquestions_of, evidence_of)
        _events_drafts_and_decisions(tasks, plans, evidence_of)
    return tasks


def _report(task, evidence) -> str:
    lines = [f"# {task.question}", ""]
    for item in evidence[:8]:
        lines += [f"{item.quote.split('.')[0]}. [E{item.pk}]", ""]
    return "\n".join(lines)
