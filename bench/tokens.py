"""Token economy: model tokens per finished report, and how much of what was read reaches the model.

Runs the standard task of ``bench.pipeline_time`` (``make bench`` shares one run between the two)
with the OpenAI-shaped stub counting tokens as ``len(text) // 4`` of prompt and answer, the way its
usage block reports them; the app records them per call (``LLMCall``). Figures: tokens per approved
report (in + out), calls, characters sent to the model (every message of every call) over the
characters extracted from the pages (the stored snapshots of the task's sources).

Anchor: LangChain open_deep_research spends about 580,000 tokens per report on DeepResearch Bench.
Evidence recall is held: the evidence stage runs with the task defaults that ``bench.evidence_recall``
scores (``max_passages`` 8 per sub-question).

    python -m bench.tokens
"""

from __future__ import annotations

import argparse

from bench.common import Figure, main

NAME = "tokens"
TARGET = 60_000
ANCHOR = 580_000


def token_figures(result: dict) -> list[Figure]:
    costs, batch = result["costs"], result["batch"]
    if costs["approved_reports"] < 1:
        return [
            Figure(
                NAME,
                "tokens per report",
                "no report finished",
                met=False,
                note=f"{dict(batch.statuses)} {'; '.join(batch.failures)[:300]}",
            )
        ]
    total = costs["tokens_in"] + costs["tokens_out"]
    per_report = total / costs["approved_reports"]
    ratio = result["prompt_chars"] / costs["chars_extracted"] if costs["chars_extracted"] else None
    return [
        Figure(
            NAME,
            "model tokens per report (in + out)",
            round(per_report),
            target=f"< {TARGET:,}",
            met=per_report < TARGET,
            note=f"{ANCHOR / per_report:.0f}x fewer than open_deep_research's ~580k",
        ),
        Figure(
            NAME,
            "tokens in / out",
            f"{costs['tokens_in']:,} / {costs['tokens_out']:,}",
            note=f"{costs['llm_calls']} model calls",
        ),
        Figure(NAME, "chars sent to the model", result["prompt_chars"]),
        Figure(
            NAME, "chars extracted from sources", costs["chars_extracted"], note=f"{costs['sources']} sources"
        ),
        Figure(NAME, "sent / extracted", round(ratio, 3) if ratio is not None else None),
        Figure(
            NAME,
            "evidence, findings, claims",
            f"{costs['evidence']} quotes, {sum(costs['findings'].values())} findings, "
            f"{costs['claims']} claims",
            note=", ".join(f"{k} {v}" for k, v in sorted(costs["findings"].items())),
        ),
    ]


def add_arguments(parser: argparse.ArgumentParser) -> None:
    from bench.pipeline_time import add_arguments as pipeline_arguments

    pipeline_arguments(parser)


def run(args: argparse.Namespace) -> list[Figure]:
    from bench.pipeline_time import run_standard

    return token_figures(run_standard(args))


if __name__ == "__main__":
    main(NAME, run, add_arguments)
