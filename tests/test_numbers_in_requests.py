"""Numbers in addresses and forms (issue 20): "²" passes ``str.isdigit`` and then breaks ``int``, and a
30-digit task number broke the audit's query on SQLite. Every numeric parameter is read by one helper
(``researchapp.web``): the digits 0-9 within a sane range, or a 400 / a form error that says so, with
what was typed kept."""

from __future__ import annotations

import pytest
from django.urls import reverse

from researchapp.models import Evidence, ResearchTask
from researchapp.web import ID_MAX, whole_number
from reviews.models import ReviewDecision
from tests.factories import evidence_review_task, plan_review_task
from tests.helpers import HTMX, client_for
from tests.test_gate_views import plan_post

pytestmark = pytest.mark.django_db

SUPERSCRIPT_TWO = "²"  # str.isdigit() is true, int() refuses it
ARABIC_INDIC_THREE = "٣"  # str.isdigit() is true, int() reads it as 3
THIRTY_DIGITS = "1" * 30  # past every integer column, and past what SQLite can compare


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("12", 12),
        (" 12 ", 12),
        ("007", 7),
        (str(ID_MAX), ID_MAX),
        (str(ID_MAX + 1), None),
        (THIRTY_DIGITS, None),
        ("0" * 5000 + "1", 1),  # leading zeros are not digits that count (int() refuses 4,300 of them)
        ("9" * 5000, None),
        (SUPERSCRIPT_TWO, None),
        (ARABIC_INDIC_THREE, None),
        ("1²", None),
        ("-1", None),
        ("+1", None),
        ("1e3", None),
        ("", None),
        (None, None),
    ],
)
def test_a_whole_number_is_the_digits_0_to_9_within_range(raw, expected):
    assert whole_number(raw) == expected


def test_a_whole_number_keeps_to_the_range_asked_for():
    assert whole_number("0", minimum=1) is None
    assert whole_number("5", maximum=4) is None and whole_number("4", maximum=4) == 4


# --- the plan gate ----------------------------------------------------------------------------------


@pytest.mark.parametrize("row", [SUPERSCRIPT_TWO, ARABIC_INDIC_THREE, THIRTY_DIGITS, "", "-1"])
def test_the_queries_of_a_plan_row_are_refused_400_for_a_row_that_is_no_number(analyst, researcher, row):
    task = plan_review_task(researcher).task
    response = client_for(analyst).get(reverse("plan_queries", args=[task.pk]), {"row": row}, **HTMX)
    assert response.status_code == 400
    assert "“row” must be a whole number from 0 to" in response.content.decode()
    assert client_for(analyst).get(reverse("plan_queries", args=[task.pk]), {"row": "1"}).status_code == 200


NO_VERSION = "The form does not say which version of the plan it edits; reload the page."
NO_ROW = "That sub-question is no longer in the form; reload the page."


@pytest.mark.parametrize(
    ("bad", "said"),
    [
        ({"plan_version": SUPERSCRIPT_TWO}, NO_VERSION),
        ({"plan_version": THIRTY_DIGITS}, NO_VERSION),
        ({"sq-0-id": SUPERSCRIPT_TWO}, NO_ROW),
        ({"sq-0-id": THIRTY_DIGITS}, NO_ROW),
        ({"sq-total": SUPERSCRIPT_TWO}, NO_ROW),
        ({"action": f"down:{SUPERSCRIPT_TWO}"}, NO_ROW),
        ({"action": f"down:{THIRTY_DIGITS}"}, NO_ROW),
    ],
)
def test_a_plan_edit_with_a_number_that_is_none_is_refused_keeping_what_was_typed(
    analyst, researcher, bad, said
):
    # given a plan at review, and an analyst who retyped its first sub-question
    plan = plan_review_task(researcher).plan
    before = list(plan.subquestions.order_by("order").values_list("text", flat=True))
    typed = plan_post(plan, "save", **{"sq-0-text": "How punctual are the trams at rush hour?"}) | bad
    # when the form arrives with a number that is not one
    response = client_for(analyst).post(reverse("plan_review", args=[plan.task_id]), typed, **HTMX)
    # then the editor says why, stores nothing, and keeps what was typed (the rows, when they came through)
    body = response.content.decode()
    assert response.status_code == 200 and 'id="plan-editor"' in body
    assert said in body
    assert list(plan.subquestions.order_by("order").values_list("text", flat=True)) == before
    assert not ReviewDecision.objects.filter(task=plan.task).exists()
    if "sq-total" not in bad:
        assert "How punctual are the trams at rush hour?" in body


# --- the evidence gate ------------------------------------------------------------------------------


def refusal(value: str) -> str:
    """What a form says of a number that is none: not digits, or past the largest row id."""
    if value == THIRTY_DIGITS:
        return f"Ensure this value is less than or equal to {ID_MAX}."
    return "Enter a whole number in the digits 0–9."


@pytest.mark.parametrize(
    "query",
    [
        {"source": SUPERSCRIPT_TWO},
        {"source": THIRTY_DIGITS},
        {"source": ""},
        {"source": "SOURCE", "finding": SUPERSCRIPT_TWO},
        {"source": "SOURCE", "finding": THIRTY_DIGITS},
    ],
)
def test_a_source_to_select_from_is_refused_400_for_a_number_that_is_none(analyst, researcher, query):
    scenario = evidence_review_task(researcher)
    source = scenario.sources[0]
    query = {name: str(source.pk) if value == "SOURCE" else value for name, value in query.items()}
    url = reverse("evidence_source", args=[scenario.task.pk])
    response = client_for(analyst).get(url, query)
    assert response.status_code == 400
    body = response.content.decode()
    assert 'data-status="400"' in body and "must be a whole number" in body
    # and the same address with numbers opens the source
    assert client_for(analyst).get(url, {"source": source.pk, "finding": scenario.gap.pk}).status_code == 200


@pytest.mark.parametrize("field", ["finding", "source", "version", "start"])
@pytest.mark.parametrize("value", [SUPERSCRIPT_TWO, THIRTY_DIGITS])
def test_evidence_added_by_hand_with_a_number_that_is_none_is_refused_keeping_the_quote(
    analyst, researcher, field, value
):
    scenario = evidence_review_task(researcher)
    survey = scenario.sources[1]
    data = {
        "action": "add_evidence",
        "finding": scenario.gap.pk,
        "version": scenario.gap.version,
        "source": survey.pk,
        "start": "0",
        "end": "20",
        "quote": "",
        "note": "typed note",
    } | {field: value}
    response = client_for(analyst).post(reverse("evidence_review", args=[scenario.task.pk]), data, **HTMX)
    body = response.content.decode()
    assert response.status_code == 200
    assert refusal(value) in body
    if field != "finding":  # the note is shown again in its item's card, which a bad item number cannot name
        assert "typed note" in body
    assert not Evidence.objects.filter(added_by__isnull=False).exists()


@pytest.mark.parametrize("value", [SUPERSCRIPT_TWO, ARABIC_INDIC_THREE, THIRTY_DIGITS])
def test_a_decision_on_an_item_that_is_no_number_is_refused(analyst, researcher, value):
    scenario = evidence_review_task(researcher)
    data = {"finding": value, "version": 1, "decision": "gap"}
    response = client_for(analyst).post(reverse("evidence_review", args=[scenario.task.pk]), data, **HTMX)
    assert response.status_code == 200
    assert refusal(value) in response.content.decode()
    scenario.gap.refresh_from_db()
    assert scenario.gap.resolution == ""


@pytest.mark.parametrize("value", [SUPERSCRIPT_TWO, THIRTY_DIGITS])
def test_a_verdict_on_a_hypothesis_that_is_no_number_is_refused(analyst, researcher, value):
    scenario = evidence_review_task(researcher)
    data = {"hypothesis": value, "version": 1, "decision": "accept"}
    url = reverse("hypotheses_review", args=[scenario.task.pk])
    response = client_for(analyst).post(url, data, **HTMX)
    assert response.status_code == 200
    assert refusal(value) in response.content.decode()


# --- the desk: the audit and the queue --------------------------------------------------------------


@pytest.mark.parametrize(
    "task", [SUPERSCRIPT_TWO, ARABIC_INDIC_THREE, THIRTY_DIGITS, "#" + THIRTY_DIGITS, "abc"]
)
def test_the_audit_refuses_a_task_filter_that_is_no_number_400_keeping_it(analyst, task):
    response = client_for(analyst).get(reverse("desk_audit"), {"who": "someone", "task": task})
    body = response.content.decode()
    assert response.status_code == 400
    assert "Name a task by its number, such as 12 or #12." in body
    assert f'value="{task}"' in body and 'value="someone"' in body  # the filter as typed
    csv = client_for(analyst).get(reverse("desk_audit_csv"), {"task": task})
    assert csv.status_code == 400 and "Name a task by its number" in csv.content.decode()


def test_the_audit_filters_by_a_task_typed_with_its_hash(analyst, researcher):
    # given two tasks, each with a decision
    one, other = evidence_review_task(researcher), evidence_review_task(researcher)
    for scenario in (one, other):
        data = {"finding": scenario.gap.pk, "version": 1, "decision": "gap"}
        client_for(analyst).post(reverse("evidence_review", args=[scenario.task.pk]), data, **HTMX)
    # when the audit is filtered by "#<one>"
    body = client_for(analyst).get(reverse("desk_audit"), {"task": f"#{one.task.pk}"}).content.decode()
    # then only that task's lines are shown
    assert f'href="/reviews/tasks/{one.task.pk}/audit/"' in body
    assert f'href="/reviews/tasks/{other.task.pk}/audit/"' not in body


@pytest.mark.parametrize("task", [SUPERSCRIPT_TWO, THIRTY_DIGITS])
def test_the_queue_reads_a_task_filter_that_is_no_number_as_words(analyst, researcher, task):
    plan_review_task(researcher)
    response = client_for(analyst).get(reverse("review_queue"), {"queue": "plans", "task": task})
    assert response.status_code == 200
    body = response.content.decode()
    assert 'data-testid="queue-item"' not in body and 'data-testid="queue-empty"' in body
    # while the task's own number finds it
    task = ResearchTask.objects.get()
    found = client_for(analyst).get(reverse("review_queue"), {"queue": "plans", "task": str(task.pk)})
    assert f'data-task-id="{task.pk}"' in found.content.decode()
