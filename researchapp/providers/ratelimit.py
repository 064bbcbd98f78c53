"""A per-provider rate limit shared by every worker process, through Redis.

The algorithm is GCRA (the "generic cell rate algorithm", a token bucket kept as one timestamp):
the key holds the theoretical arrival time (TAT) of the next request. A request is allowed when
``now >= TAT - burst_allowance``, and then moves TAT one interval on. One key per provider, one
atomic Lua script per attempt, Redis's own clock, so workers on different machines agree.

Without a Redis URL (the embedded profile: filesystem broker, no Redis) the same algorithm runs
in-process behind a lock. It then limits only this process, which is all that profile has.
"""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Callable
from typing import Protocol

import redis

from researchapp.providers.base import Hit, ProviderError, SearchProvider

# KEYS[1] = the provider's key; ARGV = interval and burst allowance, in microseconds.
# Returns 0 when the request may go now (and books it), else the microseconds to wait.
_GCRA_LUA = """
local interval = tonumber(ARGV[1])
local allowance = tonumber(ARGV[2])
local clock = redis.call('TIME')
local now = tonumber(clock[1]) * 1000000 + tonumber(clock[2])
local tat = tonumber(redis.call('GET', KEYS[1]) or now)
if tat < now then tat = now end
local wait = tat - allowance - now
if wait > 0 then return math.ceil(wait) end
local next_tat = tat + interval
redis.call('SET', KEYS[1], string.format('%.0f', next_tat), 'PX', math.ceil((next_tat - now) / 1000) + 1000)
return 0
"""

_MICROS = 1_000_000


class _Scheduler(Protocol):
    def reserve(self, key: str, interval_us: int, allowance_us: int) -> int:
        """Book a slot and return 0, or return the microseconds until one is free."""
        ...


class _RedisScheduler:
    def __init__(self, redis_url: str) -> None:
        self._redis = redis.Redis.from_url(redis_url, socket_timeout=5, socket_connect_timeout=5)
        self._script = self._redis.register_script(_GCRA_LUA)
        self._errors: tuple[type[Exception], ...] = (redis.RedisError,)

    def reserve(self, key: str, interval_us: int, allowance_us: int) -> int:
        try:
            return int(self._script(keys=[key], args=[interval_us, allowance_us]))
        except self._errors as error:
            raise ProviderError(
                f"the rate limiter's Redis is unavailable: {error}",
                retryable=True,
                code="rate_limiter_unavailable",
            ) from error


class _LocalScheduler:
    def __init__(self, clock: Callable[[], float]) -> None:
        self._clock = clock
        self._lock = threading.Lock()
        self._tat: dict[str, int] = {}

    def reserve(self, key: str, interval_us: int, allowance_us: int) -> int:
        with self._lock:
            now = int(self._clock() * _MICROS)
            tat = max(self._tat.get(key, now), now)
            wait = tat - allowance_us - now
            if wait > 0:
                return wait
            self._tat[key] = tat + interval_us
            return 0


class RateLimiter:
    """``acquire(name, rate_per_second=..., timeout=...)`` blocks until a request may go.

    ``redis_url`` empty or None → the in-process limiter. ``prefix`` namespaces the keys, so
    tests (and several deployments on one Redis) do not share buckets by accident.
    """

    def __init__(
        self,
        redis_url: str | None,
        *,
        prefix: str = "research-desk:ratelimit:",
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self.prefix = prefix
        self.shared = bool(redis_url)
        self._clock = clock
        self._sleep = sleep
        self._scheduler: _Scheduler = _RedisScheduler(redis_url) if redis_url else _LocalScheduler(clock)

    def acquire(self, name: str, *, rate_per_second: float, timeout: float, burst: int = 1) -> None:
        """Wait for a slot of ``name``'s budget; raise ``rate_limited`` if none comes in ``timeout``.

        ``burst`` requests may go back to back after a quiet spell; on average never more than
        ``rate_per_second``. Giving up early, when the wait is already longer than what is left of
        ``timeout``, frees the worker at once; the error is retryable, so Celery tries later.
        """
        if rate_per_second <= 0:
            raise ValueError("rate_per_second must be positive")
        interval_us = max(1, math.ceil(_MICROS / rate_per_second))
        allowance_us = interval_us * (max(1, burst) - 1)
        key = f"{self.prefix}{name}"
        deadline = self._clock() + max(0.0, timeout)
        while True:
            wait_us = self._scheduler.reserve(key, interval_us, allowance_us)
            if wait_us <= 0:
                return
            wait = wait_us / _MICROS
            if self._clock() + wait > deadline:
                raise ProviderError(
                    f"rate limit for {name!r} ({rate_per_second:g}/s): no slot within {timeout:g}s",
                    retryable=True,
                    code="rate_limited",
                )
            self._sleep(wait)


class RateLimitedSearch:
    """A search provider that waits its turn in a budget shared by every worker."""

    def __init__(
        self,
        search: SearchProvider,
        limiter: RateLimiter,
        *,
        rate_per_second: float,
        burst: int = 1,
        timeout: float = 30.0,
    ) -> None:
        self.inner = search
        self.name = search.name
        self.limiter = limiter
        self.rate_per_second = rate_per_second
        self.burst = burst
        self.timeout = timeout

    def search(self, query: str, *, max_results: int) -> list[Hit]:
        self.limiter.acquire(
            self.name, rate_per_second=self.rate_per_second, burst=self.burst, timeout=self.timeout
        )
        return self.inner.search(query, max_results=max_results)
