"""Emails: analysts hear when a task waits at a gate, owners when their task fails and when its report is
approved or sent back; each can turn each kind off.

The full-flow tests run the real pipeline on a real Celery worker: the notification is queued by a
receiver on the task's move, after commit, and sent by the worker through the test mail outbox.
"""

from __future__ import annotations

import time

import pytest
from django.core import mail
from django.core.management import call_command
from django.urls import reverse

from researchapp.demo import DEMO_QUESTION
from researchapp.models import Event, ResearchTask
from researchapp.services.report_gate import report_approve
from researchapp.services.submission import task_submit
from reviews.models import UserPreference
from reviews.notifications import email_kind, notify_move
from tests.factories import analyst_persona, evidence_review_task, researcher_persona
from tests.helpers import client_for, wait_for, wait_for_status
from tests.test_report_review import report_at_gate

Status = ResearchTask.Status
QUIET_SECONDS = 1.5  # how long a test waits to be sure an email that must not come did not


def with_email(user, address: str, **preference):
    user.email = address
    user.save(update_fields=["email"])
    if preference:
        UserPreference.objects.create(user=user, **preference)
    return user


def sent_to(address: str) -> list:
    return [message for message in mail.outbox if address in message.to]


@pytest.mark.worker
@pytest.mark.django_db(transaction=True)
def test_it_emails_the_analysts_who_want_it_when_a_plan_waits_for_review(celery_worker_thread, mailoutbox):
    # given three analysts: one with an address, one who turned the email off, one with no address
    call_command("demo_setup", stdout=open("/dev/null", "w"))  # the demo's own analyst is emailed too
    with_email(analyst_persona("ana"), "ana@desk.test")
    with_email(analyst_persona("quiet"), "quiet@desk.test", email_when_waiting=False)
    analyst_persona("no_address")
    researcher = with_email(researcher_persona("rita"), "rita@desk.test")

    # when a researcher's question is planned by the worker
    task = task_submit(owner=researcher, question=DEMO_QUESTION)
    wait_for_status(task, Status.AWAITING_PLAN_REVIEW)

    # then one email goes to the analyst who wants it, with the way to the plan
    wait_for(lambda: sent_to("ana@desk.test"), timeout=30, what="the plan-review email")
    time.sleep(QUIET_SECONDS)
    assert sorted(message.to[0] for message in mailoutbox) == ["ana@desk.test", "analyst@localhost"]
    [message] = sent_to("ana@desk.test")
    assert message.subject == f"[Research desk] Task {task.pk} waits for you: Plan review"
    assert f"http://127.0.0.1:8000/tasks/{task.pk}/plan/" in message.body
    assert "preferences" in message.body and "Kestrel" in message.body


@pytest.mark.worker
@pytest.mark.django_db(transaction=True)
def test_it_emails_the_owner_when_a_task_fails_unless_they_turned_it_off(celery_worker_thread, settings):
    # given a language-model engine with no key: planning fails at once, with the reason
    settings.RESEARCH = {**settings.RESEARCH, "OPENAI_API_KEY": ""}
    wants = with_email(researcher_persona("wants"), "wants@desk.test")
    quiet = with_email(researcher_persona("quiet"), "quiet@desk.test", email_when_failed=False)
    analyst = with_email(analyst_persona("ana"), "ana@desk.test")

    # when both owners' tasks fail
    failing = [
        task_submit(owner=owner, question="Why is the sky blue?", engine="openai") for owner in (quiet, wants)
    ]
    for task in failing:
        wait_for_status(task, Status.FAILED)

    # then the owner who wants it hears why, the one who turned it off does not, and analysts are not told
    wait_for(lambda: sent_to("wants@desk.test"), timeout=30, what="the failure email")
    time.sleep(QUIET_SECONDS)
    [message] = mail.outbox
    assert message.to == ["wants@desk.test"]
    assert message.subject == f"[Research desk] Task {failing[1].pk} failed"
    assert "OPENAI_API_KEY is not set" in message.body
    assert f"/tasks/{failing[1].pk}/" in message.body
    assert not sent_to("quiet@desk.test") and not sent_to(analyst.email)


# --- the email itself (no worker: the job is called as the worker would) ---------------------------


def last_move(task: ResearchTask) -> Event:
    return Event.objects.filter(task=task, kind=Event.Kind.TRANSITION).latest("id")


@pytest.mark.django_db
def test_the_evidence_email_counts_the_items_in_the_readers_language(researcher, mailoutbox):
    # given an analyst who reads Chinese, and a task that reaches evidence review
    reader = with_email(analyst_persona("li"), "li@desk.test", language="zh-hans")
    scenario = evidence_review_task(researcher, status=Status.ANALYSING)
    scenario.task.transition(Status.AWAITING_EVIDENCE_REVIEW, message="2 items need an analyst.")

    # when the job runs
    assert notify_move(last_move(scenario.task).pk) == 1

    # then the email is in Chinese, counts the items, and keeps [证据不足] as it is
    [message] = mailoutbox
    assert message.to == [reader.email]
    assert message.subject == f"[研究台] 任务 {scenario.task.pk} 等待您处理：证据审核"
    assert "待决定的冲突：1" in message.body and "待决定的 [证据不足] 条目：1" in message.body


@pytest.mark.django_db
def test_a_task_that_approves_its_own_gates_emails_nobody(researcher, mailoutbox):
    with_email(analyst_persona("ana"), "ana@desk.test")
    scenario = evidence_review_task(researcher, status=Status.ANALYSING, auto_approve=True)
    scenario.task.transition(Status.AWAITING_EVIDENCE_REVIEW)
    assert notify_move(last_move(scenario.task).pk) == 0 and mailoutbox == []


# --- the owner hears what became of the report -------------------------------------------------------


def _decide(analyst, draft, **data):
    client = client_for(analyst)
    response = client.post(
        reverse("report_view", args=[draft.task_id]), {"draft_version": draft.version, **data}
    )
    assert response.status_code in (200, 302)


@pytest.mark.worker
@pytest.mark.django_db(transaction=True)
def test_the_owner_is_emailed_when_the_report_is_approved_unless_they_turned_it_off(celery_worker_thread):
    # given two owners with an address, one of whom turned report emails off, and an analyst with one
    # (who does not want gate emails: the reports reaching the gate are no part of this test)
    wants = with_email(researcher_persona("wants"), "wants@desk.test")
    quiet = with_email(researcher_persona("quiet"), "quiet@desk.test", email_when_report_decided=False)
    analyst = with_email(analyst_persona("ana"), "ana@desk.test", email_when_waiting=False)
    drafts = [report_at_gate(owner) for owner in (quiet, wants)]

    # when the analyst approves both reports
    for draft in drafts:
        _decide(analyst, draft, decision="approve")

    # then the owner who wants it hears, with the way to the report; nobody else is emailed
    wait_for(lambda: sent_to("wants@desk.test"), timeout=30, what="the approval email")
    time.sleep(QUIET_SECONDS)
    [message] = mail.outbox
    task = drafts[1].task
    assert message.to == ["wants@desk.test"]
    assert message.subject == f"[Research desk] The report of task {task.pk} is approved"
    assert f"ana approved version 1 of the report of your task {task.pk}." in message.body
    assert f"http://127.0.0.1:8000/tasks/{task.pk}/report/" in message.body
    assert task.question[:40] in message.body


@pytest.mark.worker
@pytest.mark.django_db(transaction=True)
def test_the_owner_is_emailed_in_their_language_when_the_report_is_sent_back(celery_worker_thread):
    # given an owner who reads Chinese, and an analyst who does not want gate emails
    owner = with_email(researcher_persona("li"), "li@desk.test", language="zh-hans")
    analyst = with_email(analyst_persona("ana"), "ana@desk.test", email_when_waiting=False)
    draft = report_at_gate(owner)

    # when the analyst sends the report back with a comment (the worker then writes the next version)
    _decide(analyst, draft, decision="send_back", comments="Say who counted the riders.")

    # then the owner is told, in Chinese, what was asked of the report, with the way to it
    wait_for(lambda: sent_to("li@desk.test"), timeout=30, what="the send-back email")
    wait_for_status(draft.task, Status.AWAITING_REPORT_REVIEW)
    time.sleep(QUIET_SECONDS)
    [message] = mail.outbox
    assert message.subject == f"[研究台] 任务 {draft.task_id} 的报告已退回修改"
    assert f"ana 已将您的任务 {draft.task_id} 的报告第 1 版退回给撰写者" in message.body
    assert "对整份报告的意见：Say who counted the riders." in message.body
    assert f"http://127.0.0.1:8000/tasks/{draft.task_id}/report/" in message.body
    assert "Hello" not in message.body and "sent version" not in message.body


@pytest.mark.django_db
def test_nobody_is_emailed_about_their_own_decision(mailoutbox):
    # given an analyst who asked the question themselves
    owner = with_email(analyst_persona("self"), "self@desk.test")
    draft = report_at_gate(owner)
    # when they approve their own report
    report_approve(draft=draft, actor=owner)
    # then the move calls for the owner's email, and the owner made it: none is sent
    assert email_kind(last_move(draft.task).data) == "report_approved"
    assert notify_move(last_move(draft.task).pk) == 0 and mailoutbox == []
