"""The suite's personas, factory_boy factories for the ledger, and tasks built at each gate.

Personas are the same in every test (the ``researcher``, ``analyst`` and ``outsider`` fixtures of
``conftest.py`` return them):

- ``researcher``: in the researcher group; submits questions and sees their own tasks.
- ``analyst``: in the researcher and analyst groups, as the demo's analyst; sees and reviews every task.
- ``outsider``: logged in, in no group: may look at the task list, may not submit or see others' tasks.

Every persona logs in with the password ``demo``. Further users of a kind (a second analyst for a
race, another researcher) come from the same functions with another username.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass, field

import factory
from django.contrib.auth import get_user_model
from django.contrib.auth.hashers import make_password
from django.contrib.auth.models import Group, User

from researchapp.models import (
    Corpus,
    CorpusDocument,
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

PASSWORD = "demo"
Status = ResearchTask.Status

# --- personas -------------------------------------------------------------------------------------


@functools.cache
def _password_hash() -> str:
    """Hashed once per session: a hash per user would cost a third of a second each."""
    return make_password(PASSWORD)


class UserFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = get_user_model()
        django_get_or_create = ("username",)

    username = factory.Sequence(lambda n: f"user{n}")
    password = factory.LazyFunction(_password_hash)


def persona(username: str, *groups: str) -> User:
    user = UserFactory(username=username)
    for group in groups:
        user.groups.add(Group.objects.get_or_create(name=group)[0])
    return user


def researcher_persona(username: str = "researcher") -> User:
    return persona(username, RESEARCHER)


def analyst_persona(username: str = "analyst") -> User:
    return persona(username, RESEARCHER, ANALYST)


def outsider_persona(username: str = "outsider") -> User:
    return persona(username)


# --- the ledger -----------------------------------------------------------------------------------


class CorpusFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Corpus

    name = factory.Sequence(lambda n: f"corpus{n}")


class CorpusDocumentFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = CorpusDocument

    corpus = factory.SubFactory(CorpusFactory)
    url = factory.Sequence(lambda n: f"corpus://test/doc{n}.txt")
    title = factory.Sequence(lambda n: f"Document {n}")
    text = "Plain text of a document."


class TaskFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = ResearchTask

    question = "How large is the Harbor Point tidal array?"
    owner = factory.SubFactory(UserFactory)
    search_provider = "local"
    engine = "extractive"


class PlanFactory(factory.django.DjangoModelFactory):
    """``PlanFactory(subquestions=3)`` adds sub-questions "Sub-question 1?" … "Sub-question 3?", each
    with a rationale and two queries, collected in round 1."""

    class Meta:
        model = Plan
        skip_postgeneration_save = True

    task = factory.SubFactory(TaskFactory)
    version = 1
    intent = "descriptive"

    @factory.post_generation
    def subquestions(plan, create, extracted, **kwargs):
        for i in range(extracted or 0):
            SubQuestionFactory(
                plan=plan,
                order=i,
                text=f"Sub-question {i + 1}?",
                rationale=f"Reason {i + 1}",
                queries=[f"query {i + 1}a", f"query {i + 1}b"],
                collected_round=1,
            )


class SubQuestionFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = SubQuestion

    plan = factory.SubFactory(PlanFactory)
    order = factory.Sequence(int)
    text = "What is the capacity of the array?"
    queries = factory.LazyFunction(lambda: ["array capacity"])


class SourceFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Source

    task = factory.SubFactory(TaskFactory)
    url = factory.Sequence(lambda n: f"https://example.test/page-{n}")
    title = factory.Sequence(lambda n: f"Page {n}")
    text = "The array has a capacity of 42 megawatts. It opened in 2021."


class EvidenceFactory(factory.django.DjangoModelFactory):
    """Quotes the first ``length`` characters of its source unless told otherwise."""

    class Meta:
        model = Evidence

    class Params:
        length = 41

    source = factory.SubFactory(SourceFactory)
    task = factory.SelfAttribute("source.task")
    subquestion = factory.SubFactory(SubQuestionFactory, plan__task=factory.SelfAttribute("...source.task"))
    start = 0
    end = factory.LazyAttribute(lambda o: o.start + o.length)
    quote = factory.LazyAttribute(lambda o: o.source.text[o.start : o.end])


class FindingFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Finding

    subquestion = factory.SubFactory(SubQuestionFactory)
    task = factory.SelfAttribute("subquestion.plan.task")
    key = factory.Sequence(lambda n: f"k{n}")
    status = "supported"
    statement = "The array has a capacity of 42 megawatts."


class FindingEvidenceFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = FindingEvidence

    finding = factory.SubFactory(FindingFactory)
    evidence = factory.SubFactory(EvidenceFactory)


# --- tasks at each gate ---------------------------------------------------------------------------

TRAM_QUESTION = "How busy is the Harbor City tram?"
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
DISPUTED_CLAIM = "The transit authority says 42,000 passengers a day; the riders' association counted 31,000."


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


def task_with_plan(
    owner: User,
    *,
    status: str = Status.SUBMITTED,
    plan_status: str = Plan.Status.DRAFT,
    question: str = TRAM_QUESTION,
    **fields,
) -> Scenario:
    """A task of ``owner`` with a plan of three sub-questions."""
    task = TaskFactory(owner=owner, status=status, question=question, **fields)
    plan = PlanFactory(task=task, status=plan_status, engine="extractive", subquestions=3)
    return Scenario(task=task, plan=plan)


def plan_review_task(owner: User, **fields) -> Scenario:
    """A task whose draft plan waits for an analyst."""
    return task_with_plan(owner, status=Status.AWAITING_PLAN_REVIEW, **fields)


def _page(task: ResearchTask, text: str, *, url: str, title: str) -> Source:
    """A stored page that is its own independence cluster."""
    return SourceFactory(
        task=task, url=url, title=title, text=text, extraction="corpus", cluster=url, is_primary=True
    )


def _quoting(source: Source, subquestion: SubQuestion, quote: str) -> Evidence:
    return EvidenceFactory(
        source=source,
        subquestion=subquestion,
        start=source.text.index(quote),
        length=len(quote),
        score=1.0,
    )


def _finding(subquestion: SubQuestion, *, links: Sequence[tuple[Evidence, str]] = (), **fields) -> Finding:
    fields.setdefault("key", fields["statement"][:100])
    finding = FindingFactory(subquestion=subquestion, confidence="medium" if links else "", **fields)
    for evidence, stance in links:
        FindingEvidenceFactory(finding=finding, evidence=evidence, stance=stance)
    return finding


def evidence_review_task(
    owner: User, *, status: str = Status.AWAITING_EVIDENCE_REVIEW, extra_conflicts: int = 0, **fields
) -> Scenario:
    """A task whose evidence holds one conflict (42,000 vs 31,000 riders a day), one [证据不足] item
    and one supported finding, plus ``extra_conflicts`` more conflicts, and a warning event."""
    scenario = task_with_plan(owner, status=status, plan_status=Plan.Status.APPROVED, **fields)
    task = scenario.task
    sq1, sq2, sq3 = scenario.plan.subquestions.order_by("order")
    a = _page(task, SNAPSHOT_A, url="https://transit.example/tram", title="Transit authority: tram")
    b = _page(task, SNAPSHOT_B, url="https://riders.example/survey", title="Riders' association survey")
    e1 = _quoting(a, sq1, "The line carries 42,000 passengers a day according to the transit authority.")
    e2 = _quoting(b, sq1, "The line carries 31,000 passengers a day, the association counted in May.")
    e3 = _quoting(a, sq2, "Harbor City opened its new tram line in 2021 after four years of construction.")
    sides = [(e1, "supports"), (e2, "contradicts")]
    scenario.conflict = _finding(
        sq1, status="conflict", statement="Daily ridership of the tram line", links=sides
    )
    scenario.gap = _finding(sq3, status="insufficient", statement="[证据不足] How punctual the trams are")
    scenario.supported = _finding(
        sq2, status="supported", statement="The line opened in 2021.", links=[(e3, "supports")]
    )
    for i in range(extra_conflicts):
        _finding(sq1, status="conflict", statement=f"Another disagreement {i}", key=f"extra-{i}", links=sides)
    Event.objects.create(
        task=task, stage="analysing", kind=Event.Kind.WARNING, message="A page could not be fetched."
    )
    scenario.sources, scenario.evidence = [a, b], [e1, e2, e3]
    return scenario


def report_markdown(scenario: Scenario) -> str:
    e1, e2, e3 = scenario.evidence
    return (
        f"# {TRAM_QUESTION}\n\n"
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
    """The task of ``evidence_review_task`` at the report gate: a checked draft cites its three quotes."""
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
