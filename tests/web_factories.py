"""Plain ORM builders for the web tests: personas and tasks at each gate of the pipeline."""

from __future__ import annotations

from dataclasses import dataclass, field

from django.contrib.auth.models import Group, User

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

Status = ResearchTask.Status

SNAPSHOT_A = (
    "Harbor City opened its new tram line in 2021 after four years of construction. "
    "The line carries 42,000 passengers a day according to the transit authority. "
    "Critics say the stations are too far apart for older riders."
)
SNAPSHOT_B = (
    "A survey by the riders' association found different numbers. "
    "The line carries 31,000 passengers a day, the association counted in May. "
    "It also found that trams run late one trip in five."
)


def make_user(username: str, group: str | None = None) -> User:
    user = User.objects.create_user(username=username)  # no password: tests use force_login, no slow hashing
    if group:
        user.groups.add(Group.objects.get_or_create(name=group)[0])
    return user


def researcher_user(username: str = "rita") -> User:
    return make_user(username, RESEARCHER)


def analyst_user(username: str = "ana") -> User:
    return make_user(username, ANALYST)


def make_task(
    owner: User,
    *,
    status: str = Status.SUBMITTED,
    question: str = "How busy is the Harbor City tram?",
    **fields,
) -> ResearchTask:
    return ResearchTask.objects.create(
        owner=owner, question=question, status=status, search_provider="local", engine="extractive", **fields
    )


def make_plan(task: ResearchTask, *, n: int = 3, status: str = Plan.Status.DRAFT, version: int = 1) -> Plan:
    plan = Plan.objects.create(
        task=task, version=version, intent="descriptive", status=status, engine="extractive"
    )
    for i in range(n):
        SubQuestion.objects.create(
            plan=plan,
            order=i,
            text=f"Sub-question {i + 1}?",
            rationale=f"Reason {i + 1}",
            queries=[f"query {i + 1}a", f"query {i + 1}b"],
            collected_round=1,
        )
    return plan


def make_source(task: ResearchTask, text: str, *, url: str, title: str = "") -> Source:
    return Source.objects.create(
        task=task, url=url, title=title or url, text=text, extraction="corpus", cluster=url, is_primary=True
    )


def make_evidence(task: ResearchTask, source: Source, subquestion: SubQuestion, quote: str) -> Evidence:
    start = source.text.index(quote)
    return Evidence.objects.create(
        task=task,
        source=source,
        subquestion=subquestion,
        start=start,
        end=start + len(quote),
        quote=quote,
        score=1.0,
    )


def make_finding(
    task: ResearchTask,
    subquestion: SubQuestion,
    *,
    status: str,
    statement: str,
    links: list[tuple[Evidence, str]] = (),
    key: str | None = None,
) -> Finding:
    finding = Finding.objects.create(
        task=task,
        subquestion=subquestion,
        key=key or statement[:100],
        status=status,
        statement=statement,
        confidence="medium" if links else "",
    )
    for evidence, stance in links:
        FindingEvidence.objects.create(finding=finding, evidence=evidence, stance=stance)
    return finding


@dataclass
class Scenario:
    task: ResearchTask
    plan: Plan
    sources: list[Source] = field(default_factory=list)
    evidence: list[Evidence] = field(default_factory=list)
    conflict: Finding | None = None
    gap: Finding | None = None
    supported: Finding | None = None
    draft: ReportDraft | None = None


def evidence_review_task(
    owner: User, *, status: str = Status.AWAITING_EVIDENCE_REVIEW, extra_conflicts: int = 0, **fields
) -> Scenario:
    """A task whose evidence holds one conflict (42,000 vs 31,000 riders a day), one [证据不足] item
    and one supported finding, plus ``extra_conflicts`` more conflicts."""
    task = make_task(owner, status=status, **fields)
    plan = make_plan(task, status=Plan.Status.APPROVED)
    sq1, sq2, sq3 = plan.subquestions.order_by("order")
    a = make_source(task, SNAPSHOT_A, url="https://transit.example/tram", title="Transit authority: tram")
    b = make_source(task, SNAPSHOT_B, url="https://riders.example/survey", title="Riders' association survey")
    e1 = make_evidence(
        task, a, sq1, "The line carries 42,000 passengers a day according to the transit authority."
    )
    e2 = make_evidence(
        task, b, sq1, "The line carries 31,000 passengers a day, the association counted in May."
    )
    e3 = make_evidence(
        task, a, sq2, "Harbor City opened its new tram line in 2021 after four years of construction."
    )
    conflict = make_finding(
        task,
        sq1,
        status="conflict",
        statement="Daily ridership of the tram line",
        links=[(e1, "supports"), (e2, "contradicts")],
    )
    gap = make_finding(task, sq3, status="insufficient", statement="[证据不足] How punctual the trams are")
    supported = make_finding(
        task, sq2, status="supported", statement="The line opened in 2021.", links=[(e3, "supports")]
    )
    for i in range(extra_conflicts):
        make_finding(
            task,
            sq1,
            status="conflict",
            statement=f"Another disagreement {i}",
            key=f"extra-{i}",
            links=[(e1, "supports"), (e2, "contradicts")],
        )
    Event.objects.create(
        task=task, stage="analysing", kind=Event.Kind.WARNING, message="A page could not be fetched."
    )
    return Scenario(
        task=task,
        plan=plan,
        sources=[a, b],
        evidence=[e1, e2, e3],
        conflict=conflict,
        gap=gap,
        supported=supported,
    )


DISPUTED_CLAIM = "The transit authority says 42,000 passengers a day; the riders' association counted 31,000."


def report_markdown(scenario: Scenario) -> str:
    e1, e2, e3 = scenario.evidence
    return (
        "# How busy is the Harbor City tram?\n\n"
        f"Harbor City opened its new tram line in 2021 after four years of construction. [E{e3.pk}]\n\n"
        "## Disputed findings\n\n"
        f"- {DISPUTED_CLAIM} [E{e1.pk}] [E{e2.pk}]\n"
    )


def report_review_task(
    owner: User,
    *,
    status: str = Status.AWAITING_REPORT_REVIEW,
    draft_status: str = ReportDraft.Status.CHECKED,
    **fields,
) -> Scenario:
    scenario = evidence_review_task(owner, status=status, **fields)
    e1, e2, e3 = scenario.evidence
    scenario.draft = ReportDraft.objects.create(
        task=scenario.task,
        version=1,
        write_pass=1,
        revision=1,
        markdown=report_markdown(scenario),
        claims=[
            {"text": e3.quote, "evidence_ids": [e3.pk], "section": str(e3.subquestion_id)},
            {"text": DISPUTED_CLAIM, "evidence_ids": [e1.pk, e2.pk], "section": "disputed"},
        ],
        status=draft_status,
        engine="extractive",
    )
    return scenario
