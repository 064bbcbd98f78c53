"""The production profile under gunicorn, as docker compose runs it: static files, health, logins.

gunicorn serves ``researchapp.settings_production`` on 127.0.0.1 against this test's PostgreSQL
database, with the static files collected as the Docker image collects them. Requests that stand for
a browser behind the TLS proxy carry ``X-Forwarded-Proto: https``; the health check does not.
"""

from __future__ import annotations

import os
import re
import socket
import subprocess
import sys
from pathlib import Path

import httpx
import pytest
from django.contrib.auth import get_user_model
from django.db import connection

from tests.helpers import client_for, wait_for

pytestmark = pytest.mark.django_db(transaction=True)
ROOT = Path(__file__).resolve().parent.parent
PASSWORD = "a-long-and-unusual-passphrase-7"


def production_env(static_root: Path) -> dict[str, str]:
    db = connection.settings_dict
    host, port = db["HOST"] or "127.0.0.1", db["PORT"] or 5432
    return {
        **{k: v for k, v in os.environ.items() if k not in ("DJANGO_ALLOW_ASYNC_UNSAFE",)},
        "DJANGO_SETTINGS_MODULE": "researchapp.settings_production",
        "SECRET_KEY": "gunicorn-test-" + "k" * 50,
        "ALLOWED_HOSTS": "127.0.0.1,localhost",
        "DATABASE_URL": f"postgres://{db['USER']}@{host}:{port}/{db['NAME']}",
        "CELERY_BROKER_URL": os.environ.get("CELERY_BROKER_URL", "redis://127.0.0.1:6379/15"),
        "STATIC_ROOT": str(static_root),
        "SECURE_SSL_REDIRECT": "true",
        # The test's requests stand for the TLS proxy, on this machine: only its X-Forwarded-* count.
        "TRUSTED_PROXIES": "127.0.0.1",
    }


@pytest.fixture(scope="module")
def gunicorn(django_db_setup, django_db_blocker, tmp_path_factory):
    """``collectstatic``, then gunicorn on a free port; yields its base URL."""
    with django_db_blocker.unblock():
        if connection.vendor != "postgresql":
            pytest.skip("the production profile runs on PostgreSQL (`make test` provides it)")
        env = production_env(tmp_path_factory.mktemp("static"))
    collected = subprocess.run(
        [sys.executable, "manage.py", "collectstatic", "--noinput"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert collected.returncode == 0, collected.stderr
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    server = subprocess.Popen(
        [sys.executable, "-m", "gunicorn", "researchapp.wsgi:application"]
        + ["--bind", f"127.0.0.1:{port}", "--workers", "1", "--threads", "2"],
        cwd=ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    base = f"http://127.0.0.1:{port}"

    def answers() -> bool:
        try:
            return httpx.get(f"{base}/healthz", timeout=2).status_code == 200
        except httpx.HTTPError:
            return server.poll() is not None  # stop waiting if it died; the tests then fail with why

    try:
        wait_for(answers, timeout=60, what="gunicorn to answer /healthz")
        assert server.poll() is None, server.stderr.read().decode() if server.stderr else ""
        yield base
    finally:
        server.terminate()
        server.wait(timeout=30)


class Browser:
    """A browser behind the TLS proxy: secure cookies kept by hand (the hop to gunicorn is plain HTTP)."""

    def __init__(self, base: str) -> None:
        self.base = base
        self.cookies: dict[str, str] = {}
        self.headers = {"X-Forwarded-Proto": "https", "Origin": base.replace("http://", "https://")}

    def request(self, method: str, path: str, **kwargs) -> httpx.Response:
        cookie = "; ".join(f"{k}={v}" for k, v in self.cookies.items())
        response = httpx.request(
            method, self.base + path, headers={**self.headers, "Cookie": cookie}, timeout=10, **kwargs
        )
        for header in response.headers.get_list("set-cookie"):
            name, _, rest = header.partition("=")
            self.cookies[name.strip()] = rest.split(";", 1)[0]
        return response

    def log_in(self, username: str, password: str) -> httpx.Response:
        form = self.request("GET", "/login/").text
        token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', form).group(1)
        return self.request(
            "POST",
            "/login/",
            data={"username": username, "password": password, "csrfmiddlewaretoken": token},
        )


def test_it_answers_the_health_check_over_plain_http_with_the_ssl_redirect_on(gunicorn):
    # given SECURE_SSL_REDIRECT on, when the container's health check asks over plain HTTP
    health = httpx.get(f"{gunicorn}/healthz", timeout=5)
    # then it answers 200, while any other page is redirected to https
    assert (health.status_code, health.text) == (200, "ok")
    page = httpx.get(f"{gunicorn}/login/", timeout=5)
    assert page.status_code == 301 and page.headers["location"].startswith("https://")


def test_it_serves_the_css_and_htmx_the_pages_link_to(gunicorn):
    # given the login page, as a browser behind the proxy sees it
    browser = Browser(gunicorn)
    page = browser.request("GET", "/login/").text
    links = re.findall(r'<link rel="stylesheet" href="([^"]+)"', page)
    scripts = re.findall(r'<script[^>]* src="([^"]+)"', page)
    assert links and any("htmx" in src for src in scripts)

    # then every stylesheet and script it links is served, with its content type and a long cache life
    for path, kind in [*((href, "text/css") for href in links), *((src, "javascript") for src in scripts)]:
        response = browser.request("GET", path)
        assert response.status_code == 200, path
        assert kind in response.headers["content-type"]
        assert "max-age=315360000" in response.headers.get("cache-control", ""), path  # hashed names
        assert len(response.content) > 100


def test_it_refuses_the_demo_accounts_with_a_reason(gunicorn):
    # given a database that holds the demo account analyst / demo (copied from a laptop, say)
    user = get_user_model().objects.create(username="analyst")
    user.set_password("demo")
    user.save()

    # when someone logs in with it in the production profile
    response = Browser(gunicorn).log_in("analyst", "demo")

    # then the login is refused, saying why
    assert response.status_code == 200
    assert "log in only in the embedded profile" in response.text
    assert "sessionid" not in response.headers.get("set-cookie", "")


def test_it_refuses_the_sixth_wrong_password_for_a_user_and_lets_others_at_the_address_in(gunicorn):
    # given a real account
    user = get_user_model().objects.create(username="carol")
    user.set_password(PASSWORD)
    user.save()
    browser = Browser(gunicorn)

    # when five wrong passwords are tried in a row
    for _ in range(5):
        response = browser.log_in("carol", "wrong-password")
        assert response.status_code == 200 and "correct username and password" in response.text

    # then the sixth is refused with a message, and so is the next, even with the right password
    sixth = browser.log_in("carol", "wrong-password")
    assert sixth.status_code == 429
    assert "Too many failed logins" in sixth.text
    assert browser.log_in("carol", PASSWORD).status_code == 429
    assert "sessionid" not in browser.cookies
    # while another person behind the same address logs in (an address pauses only at a much higher
    # ceiling, LOGIN_ADDRESS_FAILURE_LIMIT)
    other = get_user_model().objects.create(username="dave")
    other.set_password(PASSWORD)
    other.save()
    assert Browser(gunicorn).log_in("dave", PASSWORD).status_code == 302


def test_it_logs_a_real_account_in(gunicorn):
    user = get_user_model().objects.create(username="erin")
    user.set_password(PASSWORD)
    user.save()
    response = Browser(gunicorn).log_in("erin", PASSWORD)
    assert response.status_code == 302


def test_it_keeps_the_admin_for_staff(analyst):
    # given an analyst (who reviews everything, but is not staff)
    # when the analyst opens the admin, then it asks for a staff login instead
    response = client_for(analyst).get("/admin/")
    assert response.status_code == 302 and "/admin/login/" in response["Location"]
    assert not analyst.is_staff
