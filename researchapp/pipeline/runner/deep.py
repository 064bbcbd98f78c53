"""Deep mode's research loop for one sub-question: think → act → observe, step by stored step.

With the model engine the model chooses the tools; with the extractive engine the loop is
deterministic: search the queries, open what they find, rewrite the queries from the names the
best passages mention, until the sub-question is covered or a budget is spent. Both store every
step as a ``Step`` row.

Durability: a step is stored ``started`` (with its arguments) before its tool runs and ``done``
(with what it stored and what the model was shown) after. A loop that runs again (a crashed
worker, a redelivered job) replays the done steps without running them, re-runs the started ones
(their stores are upserts) and goes on from there.
"""

from __future__ import annotations

import json

from django.conf import settings
from django.db import IntegrityError, transaction
from django.db.models import Max
from django.utils import timezone

from researchapp.core.messages import Message, gettext_noop, message
from researchapp.core.urls import normalize_url
from researchapp.models import Event, Evidence, ResearchTask, Stage, Step, SubQuestion
from researchapp.pipeline.collector.hops import bridge_queries
from researchapp.pipeline.deep import tools
from researchapp.pipeline.deep.loop import (
    Budgets,
    Spent,
    StoredStep,
    budget_reached,
    first_messages,
    replay,
    stop_message,
    summarise_thought,
)
from researchapp.pipeline.runner.collect import recluster, store_evidence
from researchapp.pipeline.runner.deep_tools import Outcome, ToolContext, run_tool
from researchapp.pipeline.runner.rows import evidence_value, record_usage, subquestion_value
from researchapp.pipeline.runner.wiring import StageModel, deep_model_for
from researchapp.pipeline.values import LLMUsage, UsageLog
from researchapp.providers.base import ChatRequest

Status = Step.Status
TURN_MAX_TOKENS = 1500  # one turn: a short thought and a few tool calls
FINISHED = (Status.ANSWERED, Status.STOPPED)
COVERED_PASSAGES = 2  # the extractive loop stops once this many passages clear the bar


def run_deep(task: ResearchTask, subquestion: SubQuestion, round_no: int) -> bool:
    """Run (or resume) the sub-question's loop, then finish its collection. False if already done."""
    if subquestion.collected_round >= round_no:
        return False
    context = ToolContext(task, subquestion, round_no)
    budgets = Budgets.from_settings(settings.RESEARCH)
    chat = deep_model_for(task)
    loop = ExtractiveLoop(context, budgets) if chat is None else ModelLoop(context, budgets, chat)
    loop.run()
    recluster(task)
    store_evidence(task, subquestion, round_no)
    SubQuestion.objects.filter(pk=subquestion.pk, collected_round__lt=round_no).update(
        collected_round=round_no
    )
    steps = Step.objects.filter(subquestion=subquestion, round=round_no)
    last = steps.order_by("-index").first()
    Event.objects.create(
        task=task,
        stage=Stage.COLLECTING,
        kind=Event.Kind.PROGRESS,
        message=_deep_done(subquestion.order + 1, steps.count(), last),
        data={"subquestion": subquestion.pk, "round": round_no, "budget": last.budget if last else ""},
    )
    return True


def _deep_done(number: int, count: int, last: Step | None) -> Message:
    if last and last.status == Status.STOPPED:
        return message(
            gettext_noop("Sub-question %(number)s: deep research took %(count)s steps; %(why)s"),
            number=number,
            count=count,
            why=last.error,
        )
    return message(
        gettext_noop("Sub-question %(number)s: deep research took %(count)s steps."),
        number=number,
        count=count,
    )


class Loop:
    def __init__(self, context: ToolContext, budgets: Budgets) -> None:
        self.context = context
        self.budgets = budgets
        self.steps = Step.objects.filter(subquestion=context.subquestion)

    # --- stored steps ---

    def round_steps(self) -> list[Step]:
        return list(self.steps.filter(round=self.context.round_no).order_by("index"))

    def next_index(self) -> int:
        last = self.steps.aggregate(last=Max("index"))["last"]
        return 0 if last is None else last + 1

    def spent(self, steps: list[Step]) -> Spent:
        turns = {step.turn for step in steps if step.status != Status.STOPPED}
        started = min((step.created for step in steps), default=timezone.now())
        return Spent(
            steps=len(turns),
            tool_calls=sum(1 for step in steps if step.tool and step.status in (Status.DONE, Status.ERROR)),
            tokens=sum(step.tokens for step in steps),
            seconds=(timezone.now() - started).total_seconds(),
        )

    def stop_if_spent(self) -> bool:
        steps = self.round_steps()
        budget = budget_reached(self.budgets, self.spent(steps))
        if not budget:
            return False
        turn = max((step.turn for step in steps), default=0) + 1
        self.record(turn=turn, status=Status.STOPPED, budget=budget, error=stop_message(self.budgets, budget))
        return True

    def record(self, **fields) -> Step:
        """A step that runs nothing: an answer, a stop, a refused call."""
        fields.setdefault("finished", timezone.now())
        return self.create_step(**fields)

    def create_step(self, **fields) -> Step:
        context = self.context
        for _ in range(3):  # another run of this loop may take the index first: take the next one
            try:
                with transaction.atomic():
                    return Step.objects.create(
                        task=context.task, subquestion=context.subquestion, round=context.round_no,
                        index=self.next_index(), **fields,
                    )  # fmt: skip
            except IntegrityError as error:
                if "step_unique_index" not in str(error):
                    raise
        raise RuntimeError(f"could not store a step of sub-question {context.subquestion.pk}")

    def seen_urls(self) -> frozenset[str]:
        urls = []
        for step in self.steps.filter(tool=tools.WEB_SEARCH, status=Status.DONE):
            try:
                urls += [item["url"] for item in json.loads(step.observation).get("results", [])]
            except (ValueError, AttributeError, KeyError, TypeError):
                continue
        return frozenset(normalize_url(url) for url in urls)

    def execute(self, step: Step) -> Step:
        """Run a started step's tool and store what it produced: done, or an error step."""
        request = tools.ToolRequest(step.tool, step.arguments)
        outcome: Outcome = run_tool(self.context, request, seen_urls=self.seen_urls())
        step.status = Status.ERROR if outcome.error and not outcome.result_ids else Status.DONE
        step.result_ids = list(outcome.result_ids)
        step.observation = outcome.observation
        step.error = outcome.error
        step.finished = timezone.now()
        step.save(update_fields=["status", "result_ids", "observation", "error", "finished"])
        return step

    def resume_started(self) -> None:
        """Steps a dead worker started and never finished run again (their stores are upserts)."""
        for step in self.steps.filter(round=self.context.round_no, status=Status.STARTED).order_by("index"):
            self.execute(step)

    def finished(self) -> bool:
        last = self.steps.filter(round=self.context.round_no).order_by("-index").first()
        return last is not None and last.status in FINISHED


class ModelLoop(Loop):
    """The model reasons, calls tools and observes, until it answers or a budget is spent."""

    def __init__(self, context: ToolContext, budgets: Budgets, chat: StageModel) -> None:
        super().__init__(context, budgets)
        self.client = chat.client
        self.model = chat.model

    def messages(self) -> list[dict]:
        context = self.context
        value = subquestion_value(context.subquestion, round_no=context.round_no)
        stored = [
            StoredStep(
                turn=step.turn, call_id=step.call_id, tool=step.tool, arguments=step.arguments,
                observation=step.observation, thought=step.thought,
                raw_arguments=step.arguments.get("_raw", "") if step.status == Status.ERROR else "",
            )
            for step in self.steps.order_by("index")
            if step.call_id
        ]  # fmt: skip
        return first_messages(context.task.question, value.text, value.queries) + replay(stored)

    def run(self) -> None:
        self.resume_started()
        while not self.finished() and not self.stop_if_spent():
            self.turn()

    def turn(self) -> None:
        """One think → act → observe turn: ask the model, store its calls as started, run them."""
        usage = UsageLog()
        reply = self.client.complete(
            ChatRequest(
                model=self.model,
                messages=self.messages(),
                tools=list(tools.TOOL_SCHEMAS),
                max_tokens=TURN_MAX_TOKENS,
            )
        )
        usage.record(LLMUsage("deep", self.model, reply.tokens_in, reply.tokens_out, reply.latency_ms))
        record_usage(self.context.task, usage)
        turn = (self.steps.aggregate(last=Max("turn"))["last"] or 0) + 1
        thought = summarise_thought(reply.content)
        tokens = reply.tokens_in + reply.tokens_out
        if not reply.tool_calls:
            status = Status.ANSWERED if reply.finish_reason != "length" else Status.ERROR
            error = "" if status == Status.ANSWERED else "the answer was cut off at its token limit"
            self.record(turn=turn, thought=thought, tokens=tokens, status=status, error=error)
            return
        done = {step_signature(step) for step in self.steps.filter(status=Status.DONE)}
        room = self.budgets.tool_calls - self.spent(self.round_steps()).tool_calls
        started = []
        for position, call in enumerate(reply.tool_calls):
            fields = {"turn": turn, "call_id": call.id, "thought": thought if position == 0 else "",
                      "tokens": tokens if position == 0 else 0, "tool": call.name[:40]}  # fmt: skip
            try:
                request = tools.parse_call(call.name, call.arguments)
                if request.signature in done:
                    raise tools.ToolCallError(
                        f"this exact {call.name} call was already made; use its results"
                    )
                if len(started) >= room:
                    raise tools.ToolCallError("not run: the tool calls budget is spent")
            except tools.ToolCallError as error:
                self.record(**fields, arguments={"_raw": call.arguments[:2000]}, status=Status.ERROR,
                            error=str(error), observation=json.dumps({"error": str(error)}))  # fmt: skip
                continue
            done.add(request.signature)
            started.append(self.create_step(**fields, arguments=request.arguments, status=Status.STARTED))
        for step in started:
            self.execute(step)


def step_signature(step: Step) -> str:
    return tools.ToolRequest(step.tool, step.arguments).signature


class ExtractiveLoop(Loop):
    """Without a model: search, open, select; rewrite the queries from the best passages; again."""

    def run(self) -> None:
        """1. Finish what a dead worker left: its started steps, the pages its last searches found.
        2. Covered (enough passages clear the bar)? Answered. 3. Search what is new: the planned
        queries first, then queries rewritten from the names the best passages mention; nothing
        new is an answer too. 4. Open what the searches found; again from 2."""
        self.resume_started()
        context = self.context
        value = subquestion_value(context.subquestion, round_no=context.round_no)
        turn = max((step.turn for step in self.round_steps()), default=0)
        if turn:
            self.open_results(turn)
        searched = {step.arguments.get("query") for step in self.steps.filter(tool=tools.WEB_SEARCH)}
        while not self.finished() and not self.stop_if_spent():
            passages = self.passages() if turn else []
            if sum(1 for passage in passages if passage.clears_bar) >= COVERED_PASSAGES:
                self.record(
                    turn=turn, status=Status.ANSWERED, thought="The stored passages cover the sub-question."
                )
                return
            planned = value.queries or (value.text,)
            queries = bridge_queries(value, passages, question=context.task.question) if turn else planned
            fresh = [query for query in dict.fromkeys(queries) if query not in searched]
            if not fresh:
                self.record(turn=turn, status=Status.ANSWERED, thought="Nothing new to search.")
                return
            turn += 1
            for query in fresh:
                searched.add(query)
                self.call(turn, tools.ToolRequest(tools.WEB_SEARCH, {"query": query}))
            self.open_results(turn)

    def call(self, turn: int, request: tools.ToolRequest) -> Step | None:
        if self.stop_if_spent():
            return None
        step = self.create_step(
            turn=turn, tool=request.tool, arguments=request.arguments, status=Status.STARTED
        )
        return self.execute(step)

    def open_results(self, turn: int) -> None:
        """Open what this turn's searches found, best first, up to the task's sources per sub-question."""
        opened = {step.arguments.get("url") for step in self.steps.filter(tool=tools.OPEN_PAGE)}
        room = self.context.task.max_sources - self.context.subquestion.sources.count()
        for step in self.steps.filter(
            round=self.context.round_no, turn=turn, tool=tools.WEB_SEARCH, status=Status.DONE
        ):
            for item in json.loads(step.observation).get("results", []):
                if room <= 0 or self.finished():
                    return
                if item["url"] in opened:
                    continue
                opened.add(item["url"])
                done = self.call(turn, tools.ToolRequest(tools.OPEN_PAGE, {"url": item["url"]}))
                if done is None:
                    return
                room -= done.status == Status.DONE

    def passages(self):
        store_evidence(self.context.task, self.context.subquestion, self.context.round_no)
        rows = Evidence.objects.filter(subquestion=self.context.subquestion).select_related("source")
        return [evidence_value(row) for row in rows.order_by("-relevance", "pk")[:8]]
