"""factory_boy factories for the ledger, and the named personas of the suite."""

from __future__ import annotations

import factory
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group

from researchapp.models import (
    Corpus,
    CorpusDocument,
    Evidence,
    Finding,
    FindingEvidence,
    Plan,
    ResearchTask,
    Source,
    SubQuestion,
)
from researchapp.permissions import ANALYST, RESEARCHER


class UserFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = get_user_model()
        django_get_or_create = ("username",)
        skip_postgeneration_save = True

    username = factory.Sequence(lambda n: f"user{n}")
    password = factory.PostGenerationMethodCall("set_password", "demo")

    @factory.post_generation
    def saved(obj, create, extracted, **kwargs):  # keep the hashed password
        if create:
            obj.save()


def persona(username: str, *roles: str):
    user = UserFactory(username=username)
    for role in roles:
        user.groups.add(Group.objects.get_or_create(name=role)[0])
    return user


def researcher_persona(username: str = "researcher"):
    return persona(username, RESEARCHER)


def analyst_persona(username: str = "analyst"):
    return persona(username, RESEARCHER, ANALYST)


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
    class Meta:
        model = Plan

    task = factory.SubFactory(TaskFactory)
    version = 1
    intent = "descriptive"


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
