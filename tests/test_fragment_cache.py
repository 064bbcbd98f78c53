"""The gate pages' cached fragments (``{% cachedfragment %}`` keyed on ``web.fragment_key``): a page
served again reads only the user and the task; anything a decision changes shows at once;
every reader gets their own CSRF token, their own role's controls and their own language. (The session
comes from the cache too: ``SESSION_ENGINE`` is ``cached_db``.)"""

from __future__ import annotations

import re

import pytest
from django.core.cache import cache
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from researchapp.models import ResearchTask
from reviews import services
from tests.factories import analyst_persona, evidence_review_task, plan_review_task, report_review_task
from tests.helpers import client_for

pytestmark = pytest.mark.django_db
Status = ResearchTask.Status
TOKEN = re.compile(r'name="csrfmiddlewaretoken" value="([^"]+)"')
ANY_TOKEN = re.compile(r"\b[A-Za-z0-9]{64}\b")  # a masked CSRF token, in a form or in hx-headers


def _queries(client: Client, url: str) -> tuple[int, str]:
    with CaptureQueriesContext(connection) as captured:
        response = client.get(url)
    assert response.status_code == 200
    return len(captured), response.content.decode()


@pytest.mark.parametrize(("page", "scenario", "warm"), [
    ("evidence_review", evidence_review_task, 2),  # the user with their roles, the task
    ("report_view", report_review_task, 3),  # and the current draft, for the decision form
    ("plan_review", plan_review_task, 2),
    ("task_audit", evidence_review_task, 2),
])  # fmt: skip
def test_a_gate_page_served_again_reads_the_user_and_the_task(analyst, researcher, page, scenario, warm):
    # given a task at its gate, its page rendered once (cold)
    url = reverse(page, args=[scenario(researcher).task.pk])
    client = client_for(analyst)
    cache.clear()
    cold, first = _queries(client, url)

    # when it is asked for again
    again, second = _queries(client, url)

    # then the same page comes back (but for the CSRF token) from far fewer queries
    assert again == warm < cold
    assert ANY_TOKEN.sub("", first) == ANY_TOKEN.sub("", second)


def test_a_decision_shows_on_the_next_page_at_once(analyst, researcher):
    # given the evidence gate's page, cached
    scenario = evidence_review_task(researcher)
    url = reverse("evidence_review", args=[scenario.task.pk])
    client = client_for(analyst)
    client.get(url)
    assert 'data-pending="2"' in client.get(url).content.decode()

    # when another analyst's decision is recorded (not through this page)
    services.finding_decide(finding=scenario.conflict, actor=analyst, decision="disputed", version_seen=1)

    # then the page shows it
    assert 'data-pending="1"' in client.get(url).content.decode()


def test_the_audit_shows_a_decision_at_once(analyst, researcher):
    scenario = evidence_review_task(researcher)
    url = reverse("task_audit", args=[scenario.task.pk])
    client = client_for(analyst)
    assert "Keep this one as disputed." not in client.get(url).content.decode()

    services.finding_decide(
        finding=scenario.conflict,
        actor=analyst,
        decision="disputed",
        version_seen=1,
        note="Keep this one as disputed.",
    )

    assert "Keep this one as disputed." in client.get(url).content.decode()


def test_an_approved_plan_shows_as_approved_at_once(analyst, researcher):
    scenario = plan_review_task(researcher)
    url = reverse("plan_review", args=[scenario.task.pk])
    client = client_for(analyst)
    assert 'data-testid="plan-approve"' in client.get(url).content.decode()

    services.plan_decide(plan=scenario.plan, actor=analyst, decision="approve", version_seen=1)

    assert 'data-testid="plan-approve"' not in client.get(url).content.decode()


def test_an_approved_report_shows_as_approved_at_once(analyst, researcher):
    scenario = report_review_task(researcher)
    url = reverse("report_view", args=[scenario.task.pk])
    client = client_for(analyst)
    assert 'data-testid="report-approve"' in client.get(url).content.decode()

    services.report_decide(draft=scenario.draft, actor=analyst, decision="approve", version_seen=1)

    body = client.get(url).content.decode()
    assert 'data-testid="report-approve"' not in body and 'data-testid="export-md"' in body


def test_each_reader_gets_their_own_csrf_token_and_it_is_accepted(analyst, researcher):
    # given the page cached by one analyst
    scenario = evidence_review_task(researcher)
    url = reverse("evidence_review", args=[scenario.task.pk])
    client_for(analyst).get(url)

    # when a second analyst, whose requests are checked for CSRF, reads it and decides from it
    other = Client(enforce_csrf_checks=True)
    other.force_login(analyst_persona("second-analyst"))
    body = other.get(url).content.decode()
    tokens = set(TOKEN.findall(body))

    # then every form carries the second analyst's one token, which the decision is accepted with
    assert len(tokens) == 1 and "__desk_fragment_csrf_token__" not in body
    data = {
        "csrfmiddlewaretoken": tokens.pop(),
        "finding": scenario.conflict.pk,
        "version": 1,
        "decision": "disputed",
    }
    assert other.post(url, data).status_code == 302
    scenario.conflict.refresh_from_db()
    assert scenario.conflict.resolution == "disputed"


def test_a_researcher_does_not_get_the_analysts_controls_nor_chinese_the_english(analyst, researcher):
    # given the page cached for an analyst reading English
    scenario = evidence_review_task(researcher)
    url = reverse("evidence_review", args=[scenario.task.pk])
    assert 'data-testid="decide-flag"' in client_for(analyst).get(url).content.decode()

    # then its owner, a researcher, reads it without the deciding controls
    body = client_for(researcher).get(url).content.decode()
    assert 'data-testid="decide-flag"' not in body and 'data-testid="findings"' in body
    # and an analyst who reads Chinese reads it in Chinese
    chinese = client_for(analyst)
    chinese.cookies["django_language"] = "zh-hans"
    assert "保留为有争议" in chinese.get(url).content.decode()


def test_a_task_a_worker_is_writing_to_is_never_cached(analyst, researcher):
    # given a task whose evidence is being analysed
    scenario = evidence_review_task(researcher, status=Status.ANALYSING)
    url = reverse("evidence_review", args=[scenario.task.pk])
    client = client_for(analyst)
    client.get(url)

    # when the worker stores a finding's statement without a transition yet
    scenario.conflict.statement = "A statement the analyser just wrote."
    scenario.conflict.save(update_fields=["statement"])

    # then the page shows it
    assert "A statement the analyser just wrote." in client.get(url).content.decode()
