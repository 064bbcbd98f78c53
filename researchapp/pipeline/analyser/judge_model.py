"""The model's judgement of a pair of passages: ``agree``, ``contradict`` or ``unrelated``, one reason.

With the model engine the rules still judge every candidate pair (they say what differs, which the
evidence gate highlights); the model is then asked about the pairs the rules flagged and, while
the bound allows, about those they passed, best candidates first. One call per pair: a strict
schema whose verdict is an ``enum`` and whose reason is bounded, ``max_tokens`` sized to it. A pair
either judge calls a contradiction is a dispute for an analyst (a judge's doubt goes to a person,
never into the report as fact), and records what each judge said. An answer rejected twice costs
that pair the model's opinion, never the task.
"""

from __future__ import annotations

from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from typing import Any

from researchapp.pipeline import structured
from researchapp.pipeline.text.contradiction import (
    CONTRADICT,
    VERDICTS,
    DisagreementJudge,
    Judgement,
    Pair,
)
from researchapp.pipeline.values import UsageLog
from researchapp.providers.base import ChatClient, ProviderError

MAX_MODEL_PAIRS = 12  # per task: the calls a task's judging may make
MAX_REASON_CHARS = 160
MAX_TOKENS = 100  # {"verdict": "...", "reason": "<= 160 characters"} with room to spare
STAGE = "judge"

SCHEMA = structured.json_object(
    {
        "verdict": {"type": "string", "enum": list(VERDICTS)},
        "reason": {"type": "string", "maxLength": MAX_REASON_CHARS},
    }
)

SYSTEM = f"""You compare two passages, A and B, quoted from different sources.
{structured.UNTRUSTED_NOTICE}
- "contradict": A and B cannot both be true of the same thing: a different number, date or name \
for the same fact, or one says it is not so (or is false) where the other says it is.
- "agree": both say the same thing, or compatible things, about the same subject.
- "unrelated": they are about different things or different facts.
- Give one short reason. Use no outside knowledge.
Answer with one JSON object that matches the schema, nothing else."""


def judge_messages(pair: Pair) -> list[structured.Message]:
    user = (
        f'<untrusted_source id="A">{structured.defuse(pair.first.text)}</untrusted_source>\n'
        f'<untrusted_source id="B">{structured.defuse(pair.second.text)}</untrusted_source>'
    )
    return [{"role": "system", "content": SYSTEM}, {"role": "user", "content": user}]


def verdict_from_answer(data: dict[str, Any]) -> tuple[str, str]:
    verdict = structured.field_of(data, "verdict", str, "the answer")
    if verdict not in VERDICTS:
        raise structured.AnswerRejected(f"verdict must be one of {', '.join(VERDICTS)}, got {verdict!r}")
    reason = " ".join(structured.field_of(data, "reason", str, "the answer").split())
    return verdict, reason[:MAX_REASON_CHARS]


class ModelJudge:
    """``DisagreementJudge`` by the rules and a chat model together (see the module's docstring)."""

    name = "model"

    def __init__(
        self, client: ChatClient, *, model: str, rules: DisagreementJudge, concurrency: int = MAX_MODEL_PAIRS
    ):
        self.client = client
        self.model = model
        self.rules = rules
        self.concurrency = concurrency

    def ask(self, pair: Pair, usage: UsageLog) -> tuple[str, str] | None:
        try:
            return structured.ask(
                self.client,
                stage=STAGE,
                model=self.model,
                schema_name=STAGE,
                schema=SCHEMA,
                messages=judge_messages(pair),
                interpret=verdict_from_answer,
                usage=usage,
                max_tokens=MAX_TOKENS,
            )
        except ProviderError as error:
            if error.code != "malformed_output":
                raise
            return None

    def judge(self, pairs: Sequence[Pair], *, usage: UsageLog) -> list[Judgement]:
        """1. The rules judge every pair. 2. The model judges the pairs they flagged, then the
        rest, up to ``MAX_MODEL_PAIRS``. 3. A contradiction by either is kept, with both opinions."""
        by_rules = {id(j.pair): j for j in self.rules.judge(pairs, usage=usage)}
        # Only passages selected as evidence (or statements of a report) go to the model provider:
        # a passage of an opened page that no sub-question selected is judged by the rules alone.
        shown = [pair for pair in pairs if None not in (pair.first.evidence_id, pair.second.evidence_id)]
        asked = sorted(shown, key=lambda pair: id(pair) not in by_rules)[:MAX_MODEL_PAIRS]
        answers = self.ask_all(asked, usage)
        judgements = []
        for pair in pairs:
            ruled = by_rules.get(id(pair))
            answer = answers.get(id(pair))
            if answer is None:
                judgements += [ruled] if ruled else []
                continue
            verdict, reason = answer
            said = f"the model: {verdict} ({reason})" if reason else f"the model: {verdict}"
            if ruled is not None:
                judges = ("model", "rules") if verdict == CONTRADICT else ("rules",)
                judgements.append(replace(ruled, reason=f"{ruled.reason}; {said}", judge="+".join(judges)))
            elif verdict == CONTRADICT:
                judgements.append(Judgement(pair, CONTRADICT, "", (), (), said, "model"))
        return judgements

    def ask_all(self, pairs: Sequence[Pair], usage: UsageLog) -> dict[int, tuple[str, str] | None]:
        """The model's answer for each pair (by ``id``). The calls are independent, so they go
        together (``concurrency`` at a time, by default all a task may make): a task's twelve then
        cost one call's wait, not twelve."""
        if not pairs:
            return {}
        workers = max(1, min(self.concurrency, len(pairs)))
        with ThreadPoolExecutor(max_workers=workers, thread_name_prefix="judge") as pool:
            return dict(zip(map(id, pairs), pool.map(lambda pair: self.ask(pair, usage), pairs), strict=True))
