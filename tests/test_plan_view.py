"""The plan view: a sub-question's text edited gets queries made for it, every version with its diff,
reordering by keyboard keeps focus on the moved row."""

from __future__ import annotations

import re

import pytest
from django.urls import reverse

from researchapp.models import Plan, ResearchTask
from researchapp.pipeline.planner.queries import queries_for_subquestion
from reviews.selectors.plans import plan_changes
from tests.factories import PlanFactory, SubQuestionFactory, TaskFactory, plan_review_task
from tests.helpers import HTMX, client_for

pytestmark = pytest.mark.django_db
Status = ResearchTask.Status
QUESTION = "How do heat pumps compare with gas boilers?"


def editor_post(plan: Plan, action: str, edits: dict[int, dict[str, str]] | None = None) -> dict[str, str]:
    """What the editor posts: every row with its hidden original text and planner-made queries."""
    data = {"plan_version": str(plan.version), "action": action}
    subquestions = list(plan.subquestions.order_by("order"))
    data["sq-total"] = str(len(subquestions))
    for i, sq in enumerate(subquestions):
        queries = "\r\n".join(sq.queries)
        data |= {
            f"sq-{i}-id": str(sq.pk),
            f"sq-{i}-text": sq.text,
            f"sq-{i}-original-text": sq.text,
            f"sq-{i}-queries": queries,
            f"sq-{i}-auto-queries": queries,
            f"sq-{i}-rationale": sq.rationale,
        }
        data |= {f"sq-{i}-{name}": value for name, value in (edits or {}).get(i, {}).items()}
    return data


@pytest.fixture
def plan(researcher) -> Plan:
    return plan_review_task(researcher, question=QUESTION).plan


def test_it_shows_queries_made_for_a_sub_questions_new_text(analyst, plan):
    # given the editor's first row, its text rewritten, its queries untouched
    sq = plan.subquestions.order_by("order").first()
    new_text = "How noisy are heat pumps compared with gas boilers?"
    params = {
        "row": "0",
        "sq-0-text": new_text,
        "sq-0-original-text": sq.text,
        "sq-0-queries": "\n".join(sq.queries),
        "sq-0-auto-queries": "\n".join(sq.queries),
    }
    # when the text field changes (htmx asks for the row's queries)
    response = client_for(analyst).get(reverse("plan_queries", args=[plan.task_id]), params, **HTMX)
    # then the field comes back with the planner's queries for the new text, and says so
    body = response.content.decode()
    expected = queries_for_subquestion(QUESTION, new_text)
    assert any("noisy" in q for q in expected)
    assert f">{chr(10).join(expected)}</textarea>" in body
    assert 'data-testid="sq-queries-note"' in body and "made again" in body
    assert "query 1a" not in body


def test_it_keeps_queries_the_analyst_edited_by_hand(analyst, plan):
    sq = plan.subquestions.order_by("order").first()
    params = {
        "row": "0",
        "sq-0-text": "Something else entirely?",
        "sq-0-original-text": sq.text,
        "sq-0-queries": "my own query",
        "sq-0-auto-queries": "\n".join(sq.queries),
    }
    body = (
        client_for(analyst).get(reverse("plan_queries", args=[plan.task_id]), params, **HTMX).content.decode()
    )
    assert ">my own query</textarea>" in body and "by hand" in body


def test_saving_a_rewritten_sub_question_stores_queries_for_its_new_text(analyst, plan):
    # given the first row rewritten (queries untouched) and the second rewritten with its own queries
    client = client_for(analyst)
    first, second, _ = plan.subquestions.order_by("order")
    edits = {
        0: {"text": "How noisy are heat pumps compared with gas boilers?"},
        1: {"text": "What do installers charge?", "queries": "installer prices heat pump"},
    }
    # when the analyst saves
    client.post(reverse("plan_review", args=[plan.task_id]), editor_post(plan, "save", edits), **HTMX)
    # then the first got the planner's queries for its new text, the second kept the analyst's
    first.refresh_from_db()
    second.refresh_from_db()
    assert first.queries == list(queries_for_subquestion(QUESTION, first.text))
    assert second.queries == ["installer prices heat pump"]


def test_the_plan_queries_field_is_for_people_who_may_see_the_task(outsider, plan):
    response = client_for(outsider).get(reverse("plan_queries", args=[plan.task_id]), {"row": "0"})
    assert response.status_code == 404


def test_moving_a_row_keeps_focus_on_it(analyst, plan):
    client = client_for(analyst)
    url = reverse("plan_review", args=[plan.task_id])
    # when the first row is moved down by its button
    body = client.post(url, editor_post(plan, "down:0"), **HTMX).content.decode()
    # then the re-rendered editor focuses the same button of the row at its new place
    focused = re.findall(r'<button[^>]*value="(\w+:\d)"[^>]*autofocus', body)
    assert focused == ["down:1"]
    # and moving the last row up focuses its up button; a row moved to the end focuses "up"
    body = client.post(url, editor_post(plan, "down:1"), **HTMX).content.decode()
    assert re.findall(r'<button[^>]*value="(\w+:\d)"[^>]*autofocus', body) == ["up:2"]
    # and every row and its buttons are reachable: an item card with keys on its buttons
    assert body.count("data-item") >= 3 and 'data-shortcut="u"' in body and 'data-shortcut="d"' in body


def _version(task, number: int, status: str, rows: list[tuple[str, list[str]]], feedback: str = "") -> Plan:
    plan = PlanFactory(task=task, version=number, status=status, feedback=feedback)
    for order, (text, queries) in enumerate(rows):
        SubQuestionFactory(plan=plan, order=order, text=text, queries=queries)
    return plan


def test_the_history_lists_every_version_with_its_diff(analyst, researcher):
    # given v1 rejected, v2 drafted from it: one removed, one changed, one added, one moved
    task = TaskFactory(owner=researcher, status=Status.AWAITING_PLAN_REVIEW, question=QUESTION)
    _version(
        task, 1, Plan.Status.REJECTED,
        [("What do they cost?", ["cost a"]), ("How efficient are they?", ["eff"]),
         ("Who makes them?", ["makers"]), ("How loud are heat pumps?", ["noise"])],
        feedback="Drop the makers; add grants.",
    )  # fmt: skip
    _version(
        task, 2, Plan.Status.DRAFT,
        [("How loud are heat pumps?", ["noise"]), ("What do they cost to run?", ["cost a", "running cost"]),
         ("How efficient are they?", ["eff"]), ("Which grants exist?", ["grants"])],
    )  # fmt: skip
    # when the analyst opens the plan
    body = client_for(analyst).get(reverse("plan_review", args=[task.pk])).content.decode()
    # then both versions are listed, and v2 shows its diff against v1
    assert re.findall(r'data-testid="plan-version" data-version="(\d)"', body) == ["2", "1"]
    assert "Drop the makers; add grants." in body
    kinds = re.findall(r'data-testid="plan-change" data-kind="(\w+)"', body)
    assert sorted(kinds) == ["added", "changed", "moved", "removed"]
    assert (
        '<del class="diff-removed">cost?</del>' in body
        and '<ins class="diff-added">cost to run?</ins>' in body
    )
    assert "<code>running cost</code>" in body and "Which grants exist?" in body and "Who makes them?" in body


def test_plan_changes_pairs_edited_subquestions_and_reports_queries():
    before = [SubQuestionFactory.build(text="What do they cost?", queries=["a", "b"])]
    after = [SubQuestionFactory.build(text="What do they cost per year?", queries=["a", "c"])]
    [change] = plan_changes(before, after)
    assert change.kind == "changed" and change.before == "What do they cost?"
    assert (change.queries_added, change.queries_removed) == (("c",), ("b",))
    assert change.text_diff == ((" ", "What do they"), ("-", "cost?"), ("+", "cost per year?"))


def test_a_sub_question_added_without_queries_gets_the_planners(analyst, plan):
    client = client_for(analyst)
    data = editor_post(plan, "add") | {"new-text": "Which grants pay for heat pumps?", "new-queries": ""}
    client.post(reverse("plan_review", args=[plan.task_id]), data, **HTMX)
    added = plan.subquestions.order_by("order").last()
    assert added.text == "Which grants pay for heat pumps?"
    assert added.queries == list(queries_for_subquestion(QUESTION, added.text)) and added.queries
