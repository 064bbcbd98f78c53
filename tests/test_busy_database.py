"""A database too busy to answer in time: a page that says "try again" (503), never a 500; and a
request refused before it has a user (a Host outside ALLOWED_HOSTS) gets the 400 page."""

from __future__ import annotations

import psycopg
import pytest
from django.contrib.auth import get_user_model
from django.db import OperationalError, connection
from django.test import Client, RequestFactory
from django.urls import reverse

from researchapp.errors import server_error

PASSWORD = "a-long-and-unusual-passphrase-7"


def test_a_locked_sqlite_database_is_answered_with_a_retry_page():
    # given the error SQLite raises when its write lock stays taken past the busy timeout
    request = RequestFactory().post("/login/")
    try:
        raise OperationalError("database is locked")
    except OperationalError:
        # when Django asks the 500 handler for a page
        response = server_error(request)
    # then it is a 503 that says to try again, and when
    assert response.status_code == 503 and response["Retry-After"] == "10"
    assert "The desk is busy: try again in a moment" in response.content.decode()


def test_any_other_error_is_still_a_500():
    request = RequestFactory().get("/")
    try:
        raise ValueError("a bug")
    except ValueError:
        response = server_error(request)
    assert response.status_code == 500


@pytest.mark.django_db(transaction=True)
def test_a_login_waiting_on_a_lock_gets_the_retry_page_and_works_once_it_is_released(settings):
    # given an account, and another connection holding the users table against writers
    if connection.vendor != "postgresql":
        pytest.skip("holds a lock from a second PostgreSQL connection (`make test` provides it)")
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    get_user_model().objects.create_user("erin", password=PASSWORD)
    options = connection.settings_dict.setdefault("OPTIONS", {})
    kept = options.get("options")
    options["options"] = "-c lock_timeout=300"  # the web's connections give up on a lock after 0.3 s
    connection.close()
    params = connection.get_connection_params()
    params.pop("options", None)
    client = Client(raise_request_exception=False)
    try:
        with psycopg.connect(**params) as holder:
            holder.execute("LOCK TABLE auth_user IN EXCLUSIVE MODE")
            # when erin logs in (the login writes last_login), then the page says to try again
            busy = client.post(reverse("login"), {"username": "erin", "password": PASSWORD})
            assert busy.status_code == 503
            assert "Try again in about 10 seconds" in busy.content.decode()
        # and once the lock is released, the same login works
        done = client.post(reverse("login"), {"username": "erin", "password": PASSWORD})
        assert done.status_code == 302
    finally:
        if kept is None:
            options.pop("options")
        else:
            options["options"] = kept
        connection.close()


def test_a_host_outside_allowed_hosts_gets_the_400_page_not_a_500(db):
    response = Client().get("/login/", HTTP_HOST="attacker.example")
    assert response.status_code == 400
    assert "The request could not be understood" in response.content.decode()
