"""The judges of disagreement alone, on the conflict cases' own documents (no retrieval).

Each case folder of ``../shared/data/conflicts`` (CC BY-NC 4.0: local evaluation only) is cut into
passages as the collector cuts pages, its candidate pairs made as a task makes them
(``text.contradiction.pairs``, every document's passages as evidence), and each judge asked about
them: the rules alone, and the rules with a chat model (``--model-url``: any OpenAI-compatible
server; ``--smollm2`` starts llama.cpp's own server with SmolLM2-135M-Instruct, as
``tests/test_llama.py`` does). A case is caught when a contradiction joins the two files of its
pair; any other contradiction is a false flag. Set beside ``bench.conflicts`` (whole tasks), the
difference is what retrieval costs.

    python -m bench.conflict_judges --half second [--smollm2 | --model-url URL --model NAME]
"""

from __future__ import annotations

import argparse
import json
import time
from collections import Counter
from contextlib import contextmanager
from datetime import date
from pathlib import Path

from bench.common import DATA_ROOT, Figure, main, require_path
from bench.llama import smollm2_server

NAME = "conflict_judges"


def case_sides(folder: Path, docs: list[str], question: str = ""):
    from researchapp.pipeline.collector.splitting import split_passages
    from researchapp.pipeline.text.contradiction import Side

    sides = []
    for number, name in enumerate(docs):
        raw = (folder / name).read_text(encoding="utf-8").replace("\r\n", "\n")
        # the front matter (url, title, published) as corpus_import splits it off
        head, _, body = raw[4:].partition("\n---\n") if raw.startswith("---\n") else ("", "", raw)
        text = body.strip()
        day = next(
            (line.split(":", 1)[1].strip() for line in head.splitlines() if line.startswith("published:")), ""
        )
        published = date.fromisoformat(day[:10]) if day else None
        for start, end in split_passages(text):
            context = text if len(text) <= 2000 else ""
            sides.append(
                Side(
                    number, start, end, text[start:end], len(sides) + 1, 1, 1.0, context, published, question
                )
            )
    return sides


def score(records: list[dict], data: Path, judge) -> dict:
    from researchapp.pipeline.text.contradiction import CONTRADICT
    from researchapp.pipeline.text.contradiction.pairs import candidate_pairs
    from researchapp.pipeline.values import UsageLog

    caught = {"main": 0, "host": 0}
    positives = {"main": 0, "host": 0}
    false = {"main": 0, "host": 0}
    kinds: dict[str, list[int]] = {}
    rules: dict[str, list[int]] = {}  # rule -> [on the case's own pair, anywhere else]
    given = 0  # positives caught when the judge is given every passage pair of the two sides
    usage = UsageLog()
    for record in records:
        docs = record["docs"]
        pairs = candidate_pairs(case_sides(data / "cases" / record["id"], docs, record["question"]))
        judged = [j for j in judge.judge(pairs, usage=usage) if j.verdict == CONTRADICT]
        flags = [{docs[j.pair.first.source_id], docs[j.pair.second.source_id]} for j in judged]
        hit = record["label"] == "conflict" and set(record["pair"]) in flags
        for judgement, files in zip(judged, flags, strict=True):
            counts = rules.setdefault(judgement.rule or judgement.judge, [0, 0])
            counts[0 if hit and files == set(record["pair"]) else 1] += 1
        groups = ["host"] if record.get("same_host") else ["main"]
        if record["label"] == "none":
            groups = ["main", "host"]
        for group in groups:
            positives[group] += record["label"] == "conflict"
            caught[group] += hit
            false[group] += len([f for f in flags if not hit or f != set(record["pair"])])
        if record["label"] == "conflict":
            kinds.setdefault(record["kind"], [0, 0])
            kinds[record["kind"]][0] += hit
            kinds[record["kind"]][1] += 1
            given += given_both(record, data, judge, usage)
    calls = len(usage.calls)
    return {
        "caught": caught,
        "positives": positives,
        "false": false,
        "kinds": kinds,
        "calls": calls,
        "rules": rules,
        "given": given,
    }


def given_both(record: dict, data: Path, judge, usage) -> bool:
    """The upper bound of the judge: each passage of one side of the pair against each of the
    other, with no candidate-pair selection and no distractor (what perfect retrieval would give)."""
    from researchapp.pipeline.text.contradiction import CONTRADICT, Pair

    first, second = (record["docs"].index(name) for name in record["pair"])
    sides = case_sides(data / "cases" / record["id"], record["docs"], record["question"])
    pairs = [Pair(a, b) for a in sides if a.source_id == first for b in sides if b.source_id == second]
    return any(j.verdict == CONTRADICT for j in judge.judge(pairs, usage=usage))


def _figures(label: str, result: dict, half: str) -> list[Figure]:
    figures = []
    for group, name in (("main", "main"), ("host", "same-host")):
        caught, false, positives = result["caught"][group], result["false"][group], result["positives"][group]
        precision = caught / (caught + false) if caught + false else 0.0
        figures.append(
            Figure(
                NAME,
                f"{label}, {name}: precision / recall",
                f"{precision:.2f} / {caught / positives if positives else 0:.2f}",
                note=f"{caught} of {positives} caught, {false} false flags; {half} half",
            )
        )
    kinds = ", ".join(f"{kind} {hit}/{total}" for kind, (hit, total) in sorted(result["kinds"].items()))
    figures.append(Figure(NAME, f"{label}: caught by kind", kinds, note=f"{result['calls']} model calls"))
    positives = result["positives"]["main"] + result["positives"]["host"]
    figures.append(
        Figure(
            NAME,
            f"{label}: recall given both sides' passages (upper bound)",
            round(result["given"] / positives, 2) if positives else 0.0,
            note=f"{result['given']} of {positives} positives (main and same-host): each passage of one "
            "side judged against each of the other, no pairing, no distractors",
        )
    )
    rules = ", ".join(
        f"{rule} {right}/{right + wrong}" for rule, (right, wrong) in sorted(result["rules"].items())
    )
    figures.append(Figure(NAME, f"{label}: each rule, on the pair / all it fired", rules))
    return figures


def wice_negatives(path: Path, judge) -> Figure:
    """Negatives from another third-party set: each WiCE claim its article supports, paired with
    that article's passages. A source seldom contradicts the claim it supports, so every
    contradiction here is counted as a false flag (by rule: which mechanism over-fires)."""
    from researchapp.pipeline.collector.splitting import split_passages
    from researchapp.pipeline.text.contradiction import CONTRADICT, Side
    from researchapp.pipeline.text.contradiction.pairs import candidate_pairs
    from researchapp.pipeline.values import UsageLog

    records = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    supported = [r for r in records if r["label"] == "supported"]
    flagged, rules = 0, Counter()
    for record in supported:
        article = "\n".join(line for line in record["evidence"] if not line.startswith("(meta data)"))
        sides = [Side(0, 0, len(record["claim"]), record["claim"], 1, 1, 1.0)]
        sides += [
            Side(1, start, end, article[start:end], len(sides) + n + 1, 1, 1.0)
            for n, (start, end) in enumerate(split_passages(article))
        ]
        judged = [j for j in judge.judge(candidate_pairs(sides), usage=UsageLog()) if j.verdict == CONTRADICT]
        flagged += bool(judged)
        rules.update(j.rule or j.judge for j in judged)
    by_rule = ", ".join(f"{rule} {count}" for rule, count in sorted(rules.items())) or "none"
    return Figure(
        NAME,
        "WiCE supported claims flagged against their own article",
        f"{flagged} of {len(supported)}",
        note=f"false flags by rule: {by_rule}",
    )


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--data", type=Path, default=DATA_ROOT / "conflicts")
    parser.add_argument("--half", choices=("all", "first", "second"), default="second")
    parser.add_argument("--wice", type=Path, default=DATA_ROOT / "claims" / "wice_dev.jsonl")
    parser.add_argument("--smollm2", action="store_true", help="judge with SmolLM2-135M through llama.cpp")
    parser.add_argument("--model-url", default="", help="an OpenAI-compatible server's /v1 address")
    parser.add_argument("--model", default="smollm2-135m")


def run(args: argparse.Namespace) -> list[Figure]:
    from researchapp.pipeline.analyser.judge_model import ModelJudge
    from researchapp.pipeline.text.contradiction import RuleJudge
    from researchapp.providers.chat.openai import OpenAIChat

    data = require_path(args.data)
    records = [
        json.loads(line) for line in (data / "cases.jsonl").read_text(encoding="utf-8").splitlines() if line
    ]
    records = {"first": records[0::2], "second": records[1::2]}.get(args.half, records)
    figures = _figures("rules", score(records, data, RuleJudge()), args.half)
    if args.wice.exists():
        figures.append(wice_negatives(args.wice, RuleJudge()))
    if args.smollm2 or args.model_url:
        with smollm2_server() if args.smollm2 else _given(args.model_url) as url:
            client = OpenAIChat("local", base_url=url, timeout=600, max_retries=0)
            started = time.monotonic()
            result = score(records, data, ModelJudge(client, model=args.model, rules=RuleJudge()))
            figures += _figures(f"rules + model ({args.model})", result, args.half)
            figures.append(Figure(NAME, "model judging time", round(time.monotonic() - started, 1), "s"))
    return figures


@contextmanager
def _given(url: str):
    yield url


if __name__ == "__main__":
    main(NAME, run, add_arguments)
