"""Where a sub-question's collection is, stored on its row as it moves, for the task page's poll.

A page opened is not a write: within one state the row is written at most once every
``MIN_INTERVAL`` seconds (and when the count reaches its total); a new state is always written.
"""

from __future__ import annotations

import time

from researchapp.models import SubQuestion

MIN_INTERVAL = 1.0  # seconds between two writes of the same state


class ProgressRecorder:
    """Tells ``SubQuestion.progress`` for one sub-question and round."""

    def __init__(self, subquestion_id: int, round_no: int, *, clock=time.monotonic):
        self.subquestion_id = subquestion_id
        self.round_no = round_no
        self.clock = clock
        self.state = ""
        self.written_at = float("-inf")
        self.writes = 0
        # Pages of earlier collect calls (the second hop adds to the first's counts).
        self.base_done = 0
        self.base_total = 0
        self.done = 0
        self.total = 0

    def __call__(self, state: str, done: int | None = None, total: int | None = None, **extra) -> None:
        """``done``/``total``: the pages of the current collect call; left out, the counts so far."""
        done = self.done if done is None else self.base_done + done
        total = self.total if total is None else self.base_total + total
        changed = state != self.state
        finished = total and done >= total
        if not changed and not finished and self.clock() - self.written_at < MIN_INTERVAL:
            self.done, self.total = done, total
            return
        self.state, self.done, self.total = state, done, total
        self.written_at = self.clock()
        self.writes += 1
        value = {"state": state, "done": done, "total": total, "round": self.round_no, **extra}
        SubQuestion.objects.filter(pk=self.subquestion_id).update(progress=value)

    def next_call(self) -> None:
        """A further collect call (the second hop): its pages count on top of the first's."""
        self.base_done, self.base_total = self.done, self.total
