"""Each person's language, time zone and emails; the two languages of the pages; the error pages."""

from __future__ import annotations

import gettext
import os
import re
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path

import pytest
from django.conf import settings
from django.template.loader import render_to_string
from django.test import Client
from django.urls import reverse
from django.utils import translation

from researchapp.core.enums import HypothesisStatus
from researchapp.models import Hypothesis, Plan, ResearchTask
from reviews.models import UserPreference
from tests.factories import PASSWORD, TaskFactory, evidence_review_task, report_review_task
from tests.helpers import client_for

pytestmark = pytest.mark.django_db
ROOT = Path(__file__).resolve().parent.parent
SWITCH = reverse("language_switch")


# --- languages ------------------------------------------------------------------------------------


def test_the_language_switch_shows_the_pages_in_chinese_and_remembers_it(analyst, researcher):
    # given an analyst reading in English, with a task at evidence review
    evidence_review_task(researcher)
    client = client_for(analyst)
    assert "All tasks" in client.get("/").content.decode()

    # when they switch to 简体中文 in the navigation
    response = client.post(SWITCH, {"language": "zh-hans", "next": "/reviews/?queue=gaps"})

    # then they come back to where they were, and the pages (and their preference) are Chinese
    assert response.status_code == 302 and response["Location"] == "/reviews/?queue=gaps"
    assert UserPreference.objects.get(user=analyst).language == "zh-hans"
    home = client.get("/").content.decode()
    assert '<html lang="zh-hans">' in home and "所有任务" in home and "审核队列" in home
    queue = client.get("/reviews/?queue=gaps").content.decode()
    assert "[证据不足]" in queue and "认领条目" in queue and "How punctual" in queue

    # and when they log in on another browser, which asks for English, the pages are Chinese
    browser = Client(HTTP_ACCEPT_LANGUAGE="en")
    browser.post(reverse("login"), {"username": analyst.username, "password": PASSWORD})
    assert "所有任务" in browser.get("/").content.decode()


def test_the_report_page_speaks_the_readers_language(analyst, researcher):
    scenario = report_review_task(researcher)
    client = client_for(analyst)
    url = reverse("report_view", args=[scenario.task.pk])
    english = client.get(url).content.decode()
    assert "Approve report" in english and "Cited evidence" in english

    client.post(SWITCH, {"language": "zh-hans", "next": url})
    chinese = client.get(url).content.decode()
    assert "批准报告" in chinese and "被引用的证据" in chinese and "要求修改" in chinese
    assert "Approve report" not in chinese and "Cited evidence" not in chinese


def test_someone_not_logged_in_switches_with_a_cookie(client):
    response = client.post(SWITCH, {"language": "zh-hans", "next": "/login/"})
    assert response.cookies[settings.LANGUAGE_COOKIE_NAME].value == "zh-hans"
    assert "登录" in client.get("/login/").content.decode()
    assert client.post(SWITCH, {"language": "xx", "next": "https://evil.example/"})["Location"] == "/"


def test_the_browsers_language_applies_until_someone_chooses(researcher):
    body = client_for(researcher).get("/", HTTP_ACCEPT_LANGUAGE="zh-CN,zh;q=0.9").content.decode()
    assert "您的任务" in body


def test_a_status_reads_as_its_choices_label_in_the_readers_language(researcher):
    # given a task waiting at plan review
    task = TaskFactory(owner=researcher, status=ResearchTask.Status.AWAITING_PLAN_REVIEW)
    client = client_for(researcher)
    detail = reverse("task_detail", args=[task.pk])
    assert 'data-status="awaiting_plan_review">Plan review</span>' in client.get(detail).content.decode()

    # when the reader switches to Chinese
    client.post(SWITCH, {"language": "zh-hans", "next": "/"})

    # then its page and the task list say the status in Chinese, never the stored key
    assert 'data-status="awaiting_plan_review">计划审核</span>' in client.get(detail).content.decode()
    listed = client.get("/").content.decode()
    assert "计划审核</span>" in listed and "awaiting plan review" not in listed


def test_every_status_choice_has_its_own_words_in_each_language():
    # a hypothesis's stored values are core's (the pipeline's), its labels the model's
    assert Hypothesis.Status.values == [status.value for status in HypothesisStatus]
    for choices in (ResearchTask.Status, ResearchTask.Depth, Plan.Status, Hypothesis.Status):
        for choice in choices:
            with translation.override("en"):
                english = str(choice.label)
            with translation.override("zh-hans"):
                chinese = str(choice.label)
            assert chinese != english, f"{choices.__qualname__}.{choice.name} is not translated"


def test_every_translation_is_filled_in_and_compiled():
    """The committed .mo holds exactly the .po's translations (``make messages`` compiles it)."""
    folder = ROOT / "locale" / "zh_Hans" / "LC_MESSAGES"
    po = (folder / "django.po").read_text(encoding="utf-8")
    assert "#, fuzzy" not in po
    catalog = gettext.GNUTranslations((folder / "django.mo").open("rb"))
    singles = re.findall(r'\n(?:msgctxt "(.*)"\n)?msgid "(.+)"\nmsgstr "(.*)"\n', po)
    assert len(singles) > 100
    for context, msgid, msgstr in singles:
        assert msgstr, f"no translation for {msgid!r}"
        msgid, msgstr = msgid.replace('\\"', '"'), msgstr.replace('\\"', '"')
        assert (catalog.pgettext(context, msgid) if context else catalog.gettext(msgid)) == msgstr


# --- time zone and emails -------------------------------------------------------------------------


def test_time_zones_are_offered_by_region_in_order(researcher):
    # given the preferences page
    page = client_for(researcher).get(reverse("preferences")).content.decode()
    # then the zones come grouped by region, regions and zones in alphabetical order, region-less last
    groups = re.findall(r'<optgroup label="([^"]+)">(.*?)</optgroup>', page, re.S)
    labels = [label for label, _ in groups]
    assert labels[:-1] == sorted(labels[:-1]) and "Europe" in labels and labels[-1] == "Other time zones"
    zones = {label: re.findall(r'<option value="([^"]+)"', body) for label, body in groups}
    assert "Europe/Paris" in zones["Europe"] and zones["Europe"] == sorted(zones["Europe"])
    assert "UTC" in zones["Other time zones"]
    assert all("/" in zone for label in labels[:-1] for zone in zones[label])


def test_dates_show_in_the_time_zone_each_person_chose(researcher):
    # given a task submitted at noon UTC
    task = TaskFactory(owner=researcher)
    ResearchTask.objects.filter(pk=task.pk).update(created_at=datetime(2026, 3, 1, 12, 0, tzinfo=UTC))
    client = client_for(researcher)
    assert "2026-03-01 12:00" in client.get("/").content.decode()

    # when the researcher chooses Shanghai's time zone on the preferences page
    form = {"email": "r@desk.test", "language": "", "time_zone": "Asia/Shanghai", "email_when_failed": "on"}
    response = client.post(reverse("preferences"), form, follow=True)

    # then their pages show Shanghai time (in this browser and after logging in on another), and
    # what they chose is stored
    assert "Preferences saved." in response.content.decode()
    assert "2026-03-01 20:00" in client.get("/").content.decode()
    browser = Client()
    browser.post(reverse("login"), {"username": researcher.username, "password": PASSWORD})
    assert "2026-03-01 20:00" in browser.get("/").content.decode()
    stored = UserPreference.objects.get(user=researcher)
    assert (stored.time_zone, stored.email_when_failed, stored.email_when_waiting) == (
        "Asia/Shanghai",
        True,
        False,
    )
    researcher.refresh_from_db()
    assert researcher.email == "r@desk.test"


def test_the_preferences_page_refuses_what_it_does_not_know(researcher):
    client = client_for(researcher)
    response = client.post(reverse("preferences"), {"time_zone": "Mars/Olympus", "email": "not-an-address"})
    assert response.status_code == 200 and not UserPreference.objects.exists()
    assert client_for(None).get(reverse("preferences")).status_code == 302


# --- error pages, favicon, DEBUG ------------------------------------------------------------------


def test_a_missing_page_is_the_sites_404_with_a_way_back(researcher):
    response = client_for(researcher).get("/tasks/999999/")
    body = response.content.decode()
    assert response.status_code == 404
    assert 'data-testid="error-page"' in body and 'data-testid="error-home"' in body
    assert 'data-testid="nav-tasks"' in body  # in the site's layout


def test_a_refused_page_is_the_sites_403_and_says_why(researcher):
    response = client_for(researcher).get(reverse("review_queue"))
    body = response.content.decode()
    assert response.status_code == 403
    assert "The review queue is for analysts." in body and 'data-testid="error-home"' in body


def test_a_form_without_its_security_token_is_refused_with_a_way_back(researcher):
    client = client_for(researcher)
    client.handler.enforce_csrf_checks = True
    response = client.post(reverse("preferences"), {"email": "r@desk.test"})
    body = response.content.decode()
    assert response.status_code == 403
    assert "The form was refused" in body and 'data-testid="error-home"' in body


def test_a_server_error_is_the_sites_500_in_the_readers_language(researcher, monkeypatch):
    def broken(*args, **kwargs):
        raise RuntimeError("boom")

    monkeypatch.setattr("researchapp.selectors.task_list_for", broken)
    client = client_for(researcher)
    client.raise_request_exception = False
    response = client.get("/", HTTP_ACCEPT_LANGUAGE="zh-CN")
    assert response.status_code == 500
    assert "我们这边出了问题" in response.content.decode() and 'href="/"' in response.content.decode()
    assert "boom" not in response.content.decode()
    with translation.override("en"):
        assert "Error 500" in render_to_string("500.html")  # renders with no request at all


def test_the_favicon_is_served(client):
    assert client.get("/favicon.ico")["Location"] == "/static/favicon.svg"
    icon = client.get("/static/favicon.svg")
    assert icon.status_code == 200 and icon["Content-Type"].startswith("image/svg+xml")
    assert b"<svg" in b"".join(icon.streaming_content)


def test_debug_is_off_unless_asked_for():
    environment = {k: v for k, v in os.environ.items() if k != "DEBUG"}
    environment["DJANGO_SETTINGS_MODULE"] = "researchapp.settings"
    result = subprocess.run(
        [sys.executable, "-c", "from researchapp.settings import DEBUG; print(DEBUG)"],
        cwd=ROOT,
        env=environment,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.stdout.strip() == "False", result.stderr


def test_report_emails_are_a_switch_of_their_own(researcher):
    # given the preferences page, report emails on by default
    client = client_for(researcher)
    page = client.get(reverse("preferences")).content.decode()
    assert 'name="email_when_report_decided"' in page and "approved or sent back" in page
    assert re.search(r'<input type="checkbox" name="email_when_report_decided"[^>]* checked', page)
    # when the owner turns them off and keeps the failure emails
    form = {"email": "r@desk.test", "language": "", "time_zone": "", "email_when_failed": "on"}
    client.post(reverse("preferences"), form)
    # then only the report emails are off, and the page shows it
    stored = UserPreference.objects.get(user=researcher)
    assert (stored.email_when_failed, stored.email_when_report_decided) == (True, False)
    page = client.get(reverse("preferences")).content.decode()
    assert not re.search(r'<input type="checkbox" name="email_when_report_decided"[^>]* checked', page)
