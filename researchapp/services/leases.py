"""The lease a worker holds on the stage job it runs, and which database errors are worth a retry.

A worker claims a job (a compare-and-set that fails if the job is finished or another worker's
lease on it is still alive), beats its heartbeat from a side thread while the stage runs, and
finishes the job at the end. A worker that dies stops beating; the sweeper sees the lease expire
and sends the job again. The run number is the lease's token: a worker whose lease was taken over
(it was thought dead) can no longer beat or finish it.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import timedelta

from django.conf import settings
from django.db import DatabaseError, InterfaceError, OperationalError, connection
from django.db.models import F, Q
from django.utils import timezone

from researchapp.models import StageJob

log = logging.getLogger(__name__)

# SQLSTATE classes and codes that say "try again": 40 transaction rollback (serialization failure
# 40001, deadlock 40P01), 08 connection exception, 53 insufficient resources (too many connections),
# 57 operator intervention (statement timeout 57014, admin shutdown 57P01), 55P03 lock not available.
_TRANSIENT_SQLSTATE_CLASSES = ("40", "08", "53", "57")
_TRANSIENT_SQLSTATES = frozenset({"55P03"})
# Without a SQLSTATE (SQLite, or a connection that broke before the server said anything).
_TRANSIENT_WORDS = ("database is locked", "database is busy", "connection", "server closed", "terminat")


def transient_database_error(error: BaseException) -> bool:
    """A database error that a later attempt may not meet (a lock, a deadlock, a lost connection)."""
    if isinstance(error, InterfaceError):
        return True  # the connection is gone
    if not isinstance(error, OperationalError):
        return False
    sqlstate = getattr(error.__cause__, "sqlstate", None)
    if sqlstate:
        return sqlstate in _TRANSIENT_SQLSTATES or sqlstate.startswith(_TRANSIENT_SQLSTATE_CLASSES)
    message = str(error).lower()
    return any(word in message for word in _TRANSIENT_WORDS)


def lease_seconds() -> float:
    return settings.RESEARCH["LEASE_SECONDS"]


@dataclass
class Lease:
    job_id: int
    run: int
    _stop: threading.Event = field(default_factory=threading.Event)

    def _mine(self):
        return StageJob.objects.filter(pk=self.job_id, runs=self.run, finished_at__isnull=True)

    def beat(self) -> bool:
        return self._mine().update(heartbeat_at=timezone.now()) == 1

    def finish(self) -> None:
        self._mine().update(finished_at=timezone.now(), retry_reason="")

    def release(self, *, reason: str) -> None:
        """Give the job back while Celery retries it later: not running, not expired, sent again."""
        self._mine().update(
            started_at=None, heartbeat_at=None, retry_reason=reason[:500], sent_at=timezone.now()
        )

    @contextmanager
    def heartbeat(self) -> Iterator[Lease]:
        """Beat every ``HEARTBEAT_SECONDS`` from a side thread (its own connection) until the block ends."""
        thread = threading.Thread(target=self._beat_until_stopped, name=f"lease-{self.job_id}", daemon=True)
        thread.start()
        try:
            yield self
        finally:
            self._stop.set()
            thread.join()

    def _beat_until_stopped(self) -> None:
        try:
            while not self._stop.wait(settings.RESEARCH["HEARTBEAT_SECONDS"]):
                try:
                    if not self.beat():
                        log.warning("job %s: lease lost (another run took it over)", self.job_id)
                        return
                except DatabaseError as error:  # a missed beat is survivable; the lease is longer
                    log.warning("job %s: heartbeat failed: %s", self.job_id, error)
        finally:
            connection.close()


def claim(job_id: int) -> Lease | None:
    """Take the job's lease if it is open and nobody's lease on it is alive; ``None`` otherwise."""
    now = timezone.now()
    free = Q(started_at__isnull=True) | Q(heartbeat_at__lt=now - timedelta(seconds=lease_seconds()))
    claimed = StageJob.objects.filter(free, pk=job_id, finished_at__isnull=True).update(
        started_at=now, heartbeat_at=now, runs=F("runs") + 1
    )
    if claimed != 1:
        return None
    return Lease(job_id=job_id, run=StageJob.objects.values_list("runs", flat=True).get(pk=job_id))
