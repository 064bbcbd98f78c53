"""Login throttling by username and by address apart, and whose address a request is."""

from __future__ import annotations

import pytest
from axes.models import AccessAttempt
from django.contrib.auth import get_user_model
from django.test import Client
from django.urls import reverse

pytestmark = pytest.mark.django_db
PASSWORD = "a-long-and-unusual-passphrase-7"


def account(username: str):
    return get_user_model().objects.create_user(username, password=PASSWORD)


def log_in(username: str, password: str, *, address: str = "203.0.113.7", **headers) -> int:
    client = Client(REMOTE_ADDR=address, **headers)
    return client.post(reverse("login"), {"username": username, "password": password}).status_code


@pytest.fixture
def limits(settings):
    """Five wrong passwords per username, twelve per address (as LOGIN_* would set them)."""
    settings.AXES_FAILURE_LIMIT = 6
    settings.AXES_ADDRESS_FAILURE_LIMIT = 13
    settings.TRUSTED_PROXIES = ["10.0.0.1"]
    # (a fast hasher: these tests log in dozens of times, and what they test is the counting)
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


def test_one_persons_wrong_passwords_lock_their_username_not_the_people_beside_them(limits):
    # given two people behind one shared address
    account("carol"), account("dave")
    # when carol's username gets five wrong passwords
    assert [log_in("carol", "wrong") for _ in range(5)] == [200] * 5
    # then carol's username is paused, even with the right password, even from another address
    assert log_in("carol", "wrong") == 429
    assert log_in("carol", PASSWORD) == 429
    assert log_in("carol", PASSWORD, address="198.51.100.9") == 429
    # while dave, from the same address, logs in
    assert log_in("dave", PASSWORD) == 302


def test_an_address_is_paused_only_past_its_much_higher_ceiling(limits):
    # given one address trying two wrong passwords on each of six usernames (twelve failures)
    names = [f"user{n}" for n in range(7)]
    for name in names:
        account(name)
    for name in names[:6]:
        assert [log_in(name, "wrong"), log_in(name, "wrong")] == [200, 200]
    # then the address is paused at its thirteenth failure, whoever it is for, right password or not
    assert log_in(names[6], "wrong") == 429
    assert log_in(names[6], PASSWORD) == 429
    # and another address is not
    assert log_in(names[6], PASSWORD, address="198.51.100.9") == 302


def test_logging_into_ones_own_account_does_not_clear_failures_against_another(limits):
    account("carol"), account("mallory")
    for _ in range(4):
        log_in("carol", "wrong")
    assert log_in("mallory", PASSWORD) == 302  # mallory's own login, from the same address
    assert log_in("carol", "wrong") == 200  # the four before still count: this is the fifth
    assert log_in("carol", "wrong") == 429
    assert log_in("carol", PASSWORD) == 429


def test_a_client_cannot_name_its_own_address(limits):
    # given a client that is not a trusted proxy, claiming another address in X-Forwarded-For
    account("carol")
    log_in("carol", "wrong", address="203.0.113.7", HTTP_X_FORWARDED_FOR="192.0.2.50")
    # then its failure is recorded under its own address
    assert list(AccessAttempt.objects.values_list("ip_address", flat=True)) == ["203.0.113.7"]


def test_a_trusted_proxy_names_the_client_it_heard_from(limits):
    # given the trusted proxy, passing on a chain whose left end the client wrote itself
    account("carol")
    log_in("carol", "wrong", address="10.0.0.1", HTTP_X_FORWARDED_FOR="192.0.2.50, 203.0.113.9")
    # then the client is the address the proxy heard from: the right end
    assert list(AccessAttempt.objects.values_list("ip_address", flat=True)) == ["203.0.113.9"]


def test_x_forwarded_proto_counts_only_from_a_trusted_proxy(settings):
    # given the production rule: HTTPS only, and "X-Forwarded-Proto: https" trusted as HTTPS
    settings.SECURE_SSL_REDIRECT = True
    settings.SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    settings.TRUSTED_PROXIES = ["10.0.0.1"]
    # when a client reaching the server directly claims HTTPS, then it is still sent to https
    direct = Client(REMOTE_ADDR="203.0.113.7").get("/login/", HTTP_X_FORWARDED_PROTO="https")
    assert direct.status_code == 301 and direct["Location"].startswith("https://")
    # while the proxy's word is taken
    proxied = Client(REMOTE_ADDR="10.0.0.1").get("/login/", HTTP_X_FORWARDED_PROTO="https")
    assert proxied.status_code == 200
