"""A task's own page says who holds which of its review items, as the queue does (issue 19, item 8)."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from reviews.models import Claim
from tests.factories import analyst_persona, evidence_review_task, report_review_task
from tests.helpers import client_for

pytestmark = pytest.mark.django_db


def claim(task, analyst, *, finding=None, object_type="finding", minutes=10) -> Claim:
    return Claim.objects.create(
        task=task,
        object_type=object_type,
        finding=finding,
        analyst=analyst,
        expires_at=timezone.now() + timedelta(minutes=minutes),
    )


def test_the_task_page_lists_the_live_claims_on_its_items_even_when_its_progress_is_cached(
    analyst, researcher
):
    # given a task at the evidence gate whose page was shown once (its progress now cached)
    scenario = evidence_review_task(researcher)
    client = client_for(analyst)
    url = reverse("task_detail", args=[scenario.task.pk])
    assert 'data-testid="task-claims"' not in client.get(url).content.decode()

    # when another analyst claims its conflict, and one claim on its gap has run out
    other = analyst_persona("other-analyst")
    claim(scenario.task, other, finding=scenario.conflict)
    gap = scenario.task.findings.get(status="insufficient")
    claim(scenario.task, analyst, finding=gap, minutes=-1)

    # then its page (to the analyst, and to the researcher who owns it) says who holds the conflict
    for reader in (analyst, researcher):
        page = client_for(reader).get(url).content.decode()
        assert page.count('data-testid="task-claim"') == 1
        assert f'data-finding="{scenario.conflict.pk}"' in page
        assert f"Item {scenario.conflict.pk}:" in page and "Claimed by other-analyst until" in page


def test_the_task_page_says_the_analyst_holds_the_report_in_chinese(analyst, researcher):
    # given a report at its gate, claimed by the analyst reading its page in Chinese
    scenario = report_review_task(researcher)
    claim(scenario.task, analyst, object_type="report")
    client = client_for(analyst)
    client.cookies["django_language"] = "zh-hans"
    page = client.get(reverse("task_detail", args=[scenario.task.pk])).content.decode()

    # then the claim is listed, in Chinese
    assert 'data-object="report"' in page
    assert "已认领待审" in page and "Claimed" not in page
