"""Fixtures: the personas of ``tests/factories.py``, stub servers and a real Celery worker."""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest

from tests.factories import analyst_persona, outsider_persona, researcher_persona
from tests.model_stages import KEY
from tests.stubs import web as stub_web_module
from tests.stubs.academic_api import stub_academic  # noqa: F401  (fixture)
from tests.stubs.openai_api import (
    StubOpenAI,
    stub_openai,  # noqa: F401  (fixture)
)
from tests.stubs.tavily_api import stub_tavily  # noqa: F401  (fixture)
from tests.stubs.web import refuse_non_loopback

os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")

stub_web = pytest.fixture(scope="session")(stub_web_module.stub_web)


@pytest.fixture(autouse=True)
def empty_provider_cache():
    """Pages and search results cached by another test must not answer for this one."""
    from django.core.cache import cache

    cache.clear()


@pytest.fixture(autouse=True)
def site_language():
    """Each test starts in the site's language: a request in zh-Hans leaves its language active in
    the test's thread (LocaleMiddleware activates per request and nothing deactivates), and a later
    test calling a service directly would read that test's language."""
    from django.conf import settings
    from django.utils import translation

    translation.activate(settings.LANGUAGE_CODE)
    yield
    translation.deactivate()


@pytest.fixture(autouse=True)
def quick_academic_rates(settings):
    """The academic APIs' real rate limits (arXiv: one request every three seconds) would make every
    test that searches them wait on the ones before it; tests of the limit set their own."""
    settings.RESEARCH = {
        **settings.RESEARCH,
        **{f"{name}_RATE_PER_SECOND": 1000.0 for name in ("OPENALEX", "ARXIV", "SEMANTIC_SCHOLAR")},
    }


@pytest.fixture
def no_network(monkeypatch):
    """Any connection to an address outside 127.0.0.0/8 fails; the list records every connect."""
    return refuse_non_loopback(monkeypatch)


@pytest.fixture
def llm() -> Iterator[StubOpenAI]:
    """A stub OpenAI-compatible chat server on 127.0.0.1 (see ``tests.model_stages.make_engine``)."""
    with StubOpenAI(api_key=KEY) as stub:
        yield stub


@pytest.fixture
def researcher(db):
    return researcher_persona()


@pytest.fixture
def analyst(db):
    return analyst_persona()


@pytest.fixture
def outsider(db):
    return outsider_persona()


@pytest.fixture
def celery_worker_thread(transactional_db):
    """A real Celery worker, in threads of this process, on the configured broker.

    ``transactional_db`` because the worker's threads must see what the test commits.
    """
    from celery.contrib.testing.worker import start_worker

    from researchapp.celery import app

    app.control.purge()
    with start_worker(
        app, pool="threads", concurrency=4, perform_ping_check=False, loglevel="WARNING", shutdown_timeout=30
    ) as worker:
        yield worker
