"""Smaller things a person trips over on the task page: who is offered "Review", and a cancel that
asks first."""

from __future__ import annotations

import pytest
from django.urls import reverse

from researchapp.models import ResearchTask
from tests.factories import TaskFactory, plan_review_task
from tests.helpers import client_for

pytestmark = pytest.mark.django_db


def test_a_researcher_is_offered_to_view_the_plan_and_an_analyst_to_review_it(analyst, researcher):
    task = plan_review_task(researcher).task
    url = reverse("task_detail", args=[task.pk])
    mine = client_for(researcher).get(url).content.decode()
    assert 'data-testid="open-plan-review" data-action="view">View plan<' in mine
    assert "Review plan" not in mine
    theirs = client_for(analyst).get(url).content.decode()
    assert 'data-testid="open-plan-review" data-action="review">Review plan<' in theirs


def test_cancel_asks_before_it_cancels(researcher):
    task = TaskFactory(owner=researcher, status=ResearchTask.Status.PLANNING)
    body = client_for(researcher).get(reverse("task_detail", args=[task.pk])).content.decode()
    # the button that cancels is inside a question that says what cancelling means, kept open across polls
    question = body.split('data-testid="cancel-confirm"')[1].split("</details>")[0]
    assert 'data-testid="task-cancel"' in question and "cannot be resumed" in question
    assert 'id="cancel-confirm" hx-preserve' in body
