"""The model engine on a real small model: SmolLM2-135M behind llama.cpp's server (``xllamacpp``).

Starts the server as ``tests/test_llama.py`` does (one thread, 4096 tokens of context), runs whole
tasks through the worker's stages in process (a scratch SQLite database, every gate approved as
proposed), and reports per task its wall time, model calls (failed ones apart) and tokens. With
``--docs N``, the first N questions of a half of the manual QA set too, scored as ``bench.docs_qa``
scores a report (the fact in one of its own statements citing its page).

    python -m bench.model_task                      # the demo corpus's one question
    python -m bench.model_task --docs 4 --half first
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

from bench.common import DATA_ROOT, PROJECT_ROOT, Figure, main
from bench.llama import smollm2_server

NAME = "model_task"
DEMO_QUESTION = "What does the Kestrel S1 home battery cost?"
DEMO_CORPUS = PROJECT_ROOT / "researchapp" / "demo_corpus"


def configure(base_url: str) -> None:
    from django.conf import settings

    settings.RESEARCH = {
        **settings.RESEARCH,
        "ENGINE": "openai",
        "OPENAI_API_KEY": "local",
        "OPENAI_BASE_URL": base_url,
        "OPENAI_MODEL": "smollm2-135m",
        "OPENAI_TIMEOUT": 600,
        "AUTO_FOLLOWUP": "never",
    }


def measured(question: str, corpus) -> dict:
    """One task to its report: wall time, calls by stage, tokens, and what the report states."""
    from bench.docs_zh import run_task
    from researchapp.models import LLMCall

    started = time.monotonic()
    task = run_task(question, corpus)
    wall = time.monotonic() - started
    calls = list(LLMCall.objects.filter(task=task))
    by_stage: dict[str, list[int]] = {}
    for call in calls:
        counts = by_stage.setdefault(call.stage, [0, 0, 0])
        counts[0] += 1
        counts[1] += 0 if call.ok else 1
        counts[2] += call.tokens_out
    draft = task.drafts.order_by("-version").first()
    plan = task.plans.latest_version()
    return {
        "question": question,
        "status": task.status,
        "failure": task.failure_reason,
        "wall_s": round(wall, 1),
        "calls": len(calls),
        "failed_calls": sum(1 for call in calls if not call.ok),
        "tokens_in": sum(call.tokens_in for call in calls),
        "tokens_out": sum(call.tokens_out for call in calls),
        "by_stage": by_stage,
        "plan_engine": plan.engine if plan else "",
        "plan": [sq.text for sq in plan.subquestions.order_by("order")] if plan else [],
        "claims": [(claim.get("text", ""), claim.get("evidence_ids", [])) for claim in draft.claims]
        if draft
        else [],
        "task": task,
    }


def docs_outcome(result: dict, record: dict) -> bool:
    """The fact in one of the report's own statements, citing its page (as ``bench.docs_qa``)."""
    from researchapp.models import Evidence

    evidence = {e.pk: e for e in Evidence.objects.filter(task=result["task"]).select_related("source")}
    answers = [answer.lower() for answer in record.get("answers", ())]
    pages = set(record.get("pages", ()))
    return any(
        any(answer in text.lower() for answer in answers)
        and any(i in evidence and evidence[i].source.url.rsplit("/", 1)[-1] in pages for i in ids)
        for text, ids in result["claims"]
    )


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--docs", type=int, default=0, help="also the first N questions of a docs QA half")
    parser.add_argument("--half", choices=("first", "second"), default="first")
    parser.add_argument("--no-demo", action="store_true", help="skip the demo corpus's question")
    parser.add_argument("--data", type=Path, default=DATA_ROOT / "qa")


def run(args: argparse.Namespace) -> list[Figure]:
    from bench.docs_zh import setup_django

    setup_django()
    with smollm2_server() as base_url:
        configure(base_url)
        return _measure_all(args)


def _measure_all(args: argparse.Namespace) -> list[Figure]:
    from researchapp.services.corpus import corpus_import

    figures: list[Figure] = []
    results = []
    if not args.no_demo:
        results.append((measured(DEMO_QUESTION, corpus_import(path=DEMO_CORPUS).corpus), None))
    if args.docs:
        lines = (args.data / "docs_questions.jsonl").read_text(encoding="utf-8").splitlines()
        records = [json.loads(line) for line in lines if line.strip()]
        records = (records[0::2] if args.half == "first" else records[1::2])[: args.docs]
        corpora: dict = {}
        for record in records:
            manual = record["manual"]
            if manual not in corpora:
                corpora[manual] = corpus_import(path=args.data / "docs" / manual).corpus
            results.append((measured(record["question"], corpora[manual]), record))
    for result, record in results:
        verdict = ""
        if record is not None:
            ok = docs_outcome(result, record) if record["answerable"] else not result["claims"]
            verdict = f" {'answered' if ok else 'missed'} ({'answerable' if record['answerable'] else 'not'})"
        shown = {key: value for key, value in result.items() if key != "task"}
        print(json.dumps(shown, ensure_ascii=False, default=str) + verdict, flush=True)
        label = result["question"][:50]
        figures += [
            Figure(NAME, f"{label}: wall time", result["wall_s"], "s", "< 600", result["wall_s"] < 600),
            Figure(NAME, f"{label}: calls", result["calls"], note=f"{result['failed_calls']} failed"),
            Figure(NAME, f"{label}: tokens out", result["tokens_out"], note=f"in {result['tokens_in']}"),
        ]
    return figures


if __name__ == "__main__":
    main(NAME, run, add_arguments)
