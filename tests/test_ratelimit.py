"""The per-provider rate limiter: in-process, and shared through the real Redis on 127.0.0.1."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import time
import uuid
from pathlib import Path

import pytest

from researchapp.providers.base import ProviderError
from researchapp.providers.ratelimit import RateLimiter

REDIS_URL = os.environ.get("RATELIMIT_TEST_REDIS_URL", "redis://127.0.0.1:6379/14")
PROJECT_ROOT = Path(__file__).resolve().parent.parent


class FakeTime:
    """A clock that only moves when the limiter sleeps, so waits are exact and instant."""

    def __init__(self) -> None:
        self.now = 1000.0
        self.sleeps: list[float] = []

    def clock(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.sleeps.append(round(seconds, 3))
        self.now += seconds


@pytest.fixture
def fake_time():
    return FakeTime()


@pytest.fixture
def local(fake_time):
    return RateLimiter(None, clock=fake_time.clock, sleep=fake_time.sleep)


@pytest.fixture
def redis_prefix():
    """A key prefix of this test's own; its keys (and only they) are deleted afterwards."""
    redis = pytest.importorskip("redis")
    client = redis.Redis.from_url(REDIS_URL)
    try:
        client.ping()
    except redis.ConnectionError:
        pytest.skip(f"no Redis at {REDIS_URL}")
    prefix = f"test-ratelimit:{uuid.uuid4().hex}:"
    yield prefix
    for key in client.scan_iter(match=f"{prefix}*"):
        client.delete(key)
    client.close()


# --- in-process -----------------------------------------------------------------------------


def test_it_spaces_requests_at_the_given_rate(local, fake_time):
    for _ in range(3):
        local.acquire("tavily", rate_per_second=2, timeout=5)

    assert fake_time.sleeps == [0.5, 0.5]


def test_it_lets_a_burst_through_then_waits(local, fake_time):
    for _ in range(4):
        local.acquire("tavily", rate_per_second=4, timeout=5, burst=3)

    assert fake_time.sleeps == [0.25]


def test_it_keeps_separate_budgets_per_provider(local, fake_time):
    local.acquire("tavily", rate_per_second=1, timeout=5)
    local.acquire("openai", rate_per_second=1, timeout=5)

    assert fake_time.sleeps == []


def test_it_gives_up_at_once_when_the_wait_is_longer_than_the_timeout(local, fake_time):
    # given the budget used up for the next second
    local.acquire("tavily", rate_per_second=1, timeout=5)

    # when
    with pytest.raises(ProviderError) as refused:
        local.acquire("tavily", rate_per_second=1, timeout=0.3)

    # then
    assert (refused.value.code, refused.value.retryable) == ("rate_limited", True)
    assert "tavily" in refused.value.message
    assert fake_time.sleeps == []


def test_it_treats_an_empty_redis_url_as_no_redis():
    assert RateLimiter("").shared is False
    assert RateLimiter(None).shared is False


def test_it_rejects_a_rate_that_is_not_positive(local):
    with pytest.raises(ValueError):
        local.acquire("tavily", rate_per_second=0, timeout=1)


# --- shared through Redis -------------------------------------------------------------------


def test_it_shares_one_budget_between_two_limiters_on_redis(redis_prefix):
    # given two limiters with their own connections, as two worker processes have
    first = RateLimiter(REDIS_URL, prefix=redis_prefix)
    second = RateLimiter(REDIS_URL, prefix=redis_prefix)
    started = time.monotonic()

    # when six requests alternate between them at 20 per second
    for n in range(6):
        (first if n % 2 else second).acquire("tavily", rate_per_second=20, timeout=5)

    # then five intervals of 50 ms passed: neither limiter had a budget of its own
    assert time.monotonic() - started >= 5 * 0.05 * 0.9


def test_it_refuses_on_redis_when_no_slot_comes_in_time(redis_prefix):
    limiter = RateLimiter(REDIS_URL, prefix=redis_prefix)
    limiter.acquire("slow-api", rate_per_second=0.5, timeout=1)
    started = time.monotonic()

    with pytest.raises(ProviderError) as refused:
        limiter.acquire("slow-api", rate_per_second=0.5, timeout=0.2)

    assert (refused.value.code, refused.value.retryable) == ("rate_limited", True)
    assert time.monotonic() - started < 0.2  # it did not sleep for a slot it could not get


def test_it_expires_its_redis_key_once_the_budget_has_recovered(redis_prefix):
    import redis

    RateLimiter(REDIS_URL, prefix=redis_prefix).acquire("tavily", rate_per_second=10, timeout=1)

    ttl_ms = redis.Redis.from_url(REDIS_URL).pttl(f"{redis_prefix}tavily")
    assert 0 < ttl_ms <= 1100


def test_it_limits_separate_processes_together(redis_prefix):
    # given two worker processes each taking four slots of one 20-per-second budget, starting
    # together once both have imported (alone, each would be done in 150 ms)
    start_at = time.time() + 1.5
    script = textwrap.dedent(
        f"""
        import json, time
        from researchapp.providers.ratelimit import RateLimiter
        limiter = RateLimiter({REDIS_URL!r}, prefix={redis_prefix!r})
        time.sleep(max(0.0, {start_at!r} - time.time()))
        stamps = []
        for _ in range(4):
            limiter.acquire("shared", rate_per_second=20, timeout=10)
            stamps.append(time.time())
        print(json.dumps(stamps))
        """
    )
    env = {**os.environ, "PYTHONPATH": str(PROJECT_ROOT)}

    # when they run at the same time
    workers = [
        subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, env=env, text=True)
        for _ in range(2)
    ]
    outputs = [worker.communicate(timeout=60)[0] for worker in workers]

    # then the eight grants are spread over at least seven intervals of 50 ms
    assert all(worker.returncode == 0 for worker in workers)
    stamps = sorted(stamp for output in outputs for stamp in json.loads(output))
    assert len(stamps) == 8
    assert stamps[0] >= start_at
    assert stamps[-1] - stamps[0] >= 7 * 0.05 * 0.9


def test_it_reports_an_unreachable_redis_as_retryable():
    # given a loopback port where nothing listens
    limiter = RateLimiter("redis://127.0.0.1:1/0")

    with pytest.raises(ProviderError) as failed:
        limiter.acquire("tavily", rate_per_second=1, timeout=1)

    assert (failed.value.code, failed.value.retryable) == ("rate_limiter_unavailable", True)
