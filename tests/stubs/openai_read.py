"""The stub chat API's answers to the stages without a long answer of their own: the reader's pick
among numbered candidates (the first, the best the rule ranked, with no words: the rule's span
stands) and the judge's verdict on a pair (unrelated)."""

from __future__ import annotations

import re
from typing import Any

_NUMBERED = re.compile(r'<untrusted_source id="(\d+)">')


def other_answer(stage: str, prompt: str) -> dict[str, Any]:
    if stage == "read":
        return {"pick": 1 if _NUMBERED.search(prompt) else 0, "answer": ""}
    if stage == "judge":
        return {"verdict": "unrelated", "reason": "The stub reads no disagreement."}
    return {}
