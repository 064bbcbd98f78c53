"""Debian's Chromium driven by Playwright, for the browser tests."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from contextlib import contextmanager

import pytest
from django.db import connections

from tests.factories import PASSWORD

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
WAIT_MS = 90_000


@contextmanager
def chromium_page(base_url: str, **context_options) -> Iterator:
    """A page of a fresh browser context on ``base_url``; ``page.errors`` collects console errors."""
    from playwright.sync_api import sync_playwright

    if not shutil.which("chromium"):
        pytest.fail("chromium is not installed: .ci/run installs it (apt-get install chromium)")
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        context = browser.new_context(base_url=base_url, **context_options)
        page = context.new_page()
        page.set_default_timeout(WAIT_MS)
        errors: list[str] = []
        page.on("console", lambda message: message.type == "error" and errors.append(message.text))
        page.errors = errors
        yield page
        browser.close()
        # While Playwright's sync API runs, the test body sees its own contextvars, hence its own
        # database connection, which pytest-django's teardown (outside this block) never closes: it
        # would keep the test database from being dropped at the end of the session.
        connections.close_all()


def log_in(page, username: str) -> None:
    page.goto("/login/")
    page.get_by_test_id("login-username").fill(username)
    page.get_by_test_id("login-password").fill(PASSWORD)
    page.get_by_test_id("login-submit").click()
    page.wait_for_selector('[data-testid="nav-user"]')
