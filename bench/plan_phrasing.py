"""Plan phrasing: do the extractive planner's sub-questions read as a person wrote them?

Every prompt of DeepResearch Bench (50 Chinese, 50 English, real research requests of one
sentence to a page) is planned as a task plans it (``plan_extractive`` then ``validated_plan``),
quick and deep. Each plan is read for the oddities the issue names, by patterns written apart
from the planner's own reading (so the planner cannot pass by agreeing with itself):

- a garbled subject: a template frame around something that is not its object ("... about From
  1945-1949 Dick Humbert played ...", "... about Summarize the global ...", "…请帮我…有哪些关键事实
  和数据？"), or a sub-question holding two sentences or two questions;
- duplicates: two sub-questions of one plan with the same content words;
- a query that is not keywords: over 12 words (40 characters in Chinese), with a question word,
  a question mark or code;
- a sub-question longer than 40 words (90 characters in Chinese), reported, not a target.

Examples of each oddity are printed.

    python -m bench.plan_phrasing --data ../shared/data/questions/deepresearch_bench_queries.jsonl
"""

from __future__ import annotations

import argparse
import json
import re
from dataclasses import dataclass, field
from pathlib import Path

from bench.common import DATA_ROOT, Figure, main, require_path

NAME = "plan_phrasing"
MAX_QUERY_WORDS = 12
MAX_QUERY_CHARS_ZH = 40
MAX_SUBQUESTION_WORDS = 40
MAX_SUBQUESTION_CHARS_ZH = 90
EXAMPLES = 3

_FRAME_THEN_CLAUSE = re.compile(
    r"\b(?:about|of|in|on|for|behind|regarding|deciding on)\s+(?:the\s+)?(?:From|What|How|Why|Which|Who|When|"
    r"Where|Is|Are|Does|Do|Did|Can|Could|Should|Please|Research(?:ing)?|Summari[sz]e|Analy[sz]e|Write|Explain|"
    r"Describe|Investigate|Explore|Exploring|Find|Conduct|Create|Provide|Prepare|Draft|I|We|You|As|Acting|"
    r"In|For|While|Regarding|The\s+\w+\s+(?:is|are|was|were|has|have))\b"
)
_EN_QUESTION_WORD = re.compile(r"\b(?:what|how|why|which|who|whom|whose|when|where)\b", re.IGNORECASE)
_ZH_REQUEST_WORDS = re.compile(r"请|帮我|为我|给我|我们|你能|您")
_ZH_QUESTION = re.compile(r"如何|怎样|怎么|哪些|哪个|什么|多少|是否|吗|为什么|能否|有何|有没有")
_ZH_TEMPLATE_ENDS = ("有哪些关键事实和数据？", "最近有哪些新进展？", "有哪些主要局限和风险？",
                     "背后的原因和驱动因素是什么？", "未来几年预计会如何变化？", "的情况如何？")  # fmt: skip
_CODE = re.compile(r"[;{}`<>=$\\]|\b(?:SELECT|INSERT|UPDATE|DELETE|FROM|WHERE)\b\s+\S|\w+\(.*\)|::|https?://")


def _cjk(text: str) -> int:
    return sum(1 for ch in text if "\u3400" <= ch <= "\u9fff")


def garbled(text: str, question: str) -> str:
    """Why ``text`` reads garbled, or "" (the question as asked is the person's own words)."""
    if " ".join(text.split()) == " ".join(question.split()):
        return ""
    if _cjk(text) >= 2:
        body = text.rstrip("？?")
        if re.search(r"[。！？?!]", body):
            return "two sentences or questions in one"
        if _ZH_REQUEST_WORDS.search(text):
            return "a request's own wording inside a template"
        for end in _ZH_TEMPLATE_ENDS:
            if text.endswith(end) and _ZH_QUESTION.search(text[: -len(end)]):
                return "a template around a question"
        return ""
    if _FRAME_THEN_CLAUSE.search(text):
        return "a template around a sentence"
    body = text.rstrip("?. ")
    if re.search(r"[?]\s|[.!]\s+[A-Z]", body):
        return "two sentences or questions in one"
    if re.search(r"\b(\w+) \1\b", text, re.IGNORECASE) and not re.search(r"\b(?:that that|had had)\b", text):
        return "a word twice in a row"
    if re.search(r"\b(?:the|a|an) (?:the|a|an|their|its|these|those)\b", text, re.IGNORECASE):
        return "two determiners"
    return ""


def query_problem(query: str) -> str:
    if _CODE.search(query):
        return "code"
    if "?" in query or "？" in query:
        return "a question mark"
    if _cjk(query) >= 2:
        if len(query) > MAX_QUERY_CHARS_ZH:
            return f"over {MAX_QUERY_CHARS_ZH} characters"
        return "a question word" if re.search(r"如何|怎么|什么|是否|吗|为什么", query) else ""
    if len(query.split()) > MAX_QUERY_WORDS:
        return f"over {MAX_QUERY_WORDS} words"
    return "a question word" if _EN_QUESTION_WORD.search(query) else ""


def _content(text: str) -> frozenset[str]:
    if _cjk(text) >= 2:
        return frozenset(text[i : i + 2] for i in range(len(text) - 1) if _cjk(text[i : i + 2]) == 2)
    stop = {"what", "is", "are", "the", "a", "an", "of", "in", "on", "for", "and", "about", "known", "how"}
    return frozenset(w for w in re.findall(r"[a-z0-9]+", text.lower()) if w not in stop)


def too_long(text: str) -> bool:
    if _cjk(text) >= 2:
        return len(text) > MAX_SUBQUESTION_CHARS_ZH
    return len(text.split()) > MAX_SUBQUESTION_WORDS


@dataclass
class Tally:
    plans: int = 0
    subquestions: int = 0
    queries: int = 0
    examples: dict[str, list[str]] = field(default_factory=dict)
    counts: dict[str, int] = field(default_factory=dict)

    def note(self, kind: str, example: str) -> None:
        self.counts[kind] = self.counts.get(kind, 0) + 1
        shown = self.examples.setdefault(kind, [])
        if len(shown) < EXAMPLES:
            shown.append(example)


def read_plan(tally: Tally, record: dict, depth: str) -> None:
    from researchapp.pipeline.planner.checks import validated_plan
    from researchapp.pipeline.planner.extractive import plan_extractive

    question = record["prompt"]
    template = plan_extractive(question, depth=depth)
    plan = validated_plan(template, template)
    tally.plans += 1
    if not 3 <= len(plan.subquestions) <= 6:
        tally.note(
            "plan size outside 3-6", f"#{record['id']} {depth}: {len(plan.subquestions)} sub-questions"
        )
    seen: list[frozenset[str]] = []
    for sq in plan.subquestions:
        tally.subquestions += 1
        why = garbled(sq.text, question)
        if why:
            tally.note("garbled subject", f"#{record['id']} ({why}): {sq.text}")
        words = _content(sq.text)
        if words and words in seen:
            tally.note("duplicate sub-question", f"#{record['id']}: {sq.text}")
        seen.append(words)
        if too_long(sq.text):
            tally.note("long sub-question (reported only)", f"#{record['id']}: {sq.text}")
        for query in sq.queries:
            tally.queries += 1
            problem = query_problem(query)
            if problem:
                tally.note("query not keywords", f"#{record['id']} ({problem}): {query}")


def plan_tally(path: Path, *, depths: tuple[str, ...] = ("quick", "deep"), language: str = "") -> Tally:
    tally = Tally()
    with require_path(path).open(encoding="utf-8") as lines:
        records = [json.loads(line) for line in lines if line.strip()]
    for record in records:
        if language and record.get("language") != language:
            continue
        for depth in depths:
            read_plan(tally, record, depth)
    return tally


TARGETS = ("garbled subject", "duplicate sub-question", "query not keywords", "plan size outside 3-6")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--data", type=Path, default=DATA_ROOT / "questions" / "deepresearch_bench_queries.jsonl"
    )
    parser.add_argument("--language", choices=("", "en", "zh"), default="")


def run(args: argparse.Namespace) -> list[Figure]:
    tally = plan_tally(args.data, language=args.language)
    figures = [
        Figure(
            NAME,
            "plans read",
            tally.plans,
            note=f"{tally.subquestions} sub-questions, {tally.queries} queries; quick and deep",
        )
    ]
    for kind in (*TARGETS, "long sub-question (reported only)"):
        count = tally.counts.get(kind, 0)
        targeted = kind in TARGETS
        figures.append(
            Figure(
                NAME,
                kind,
                count,
                target="0" if targeted else "",
                met=(count == 0) if targeted else None,
                note=" | ".join(tally.examples.get(kind, []))[:600],
            )
        )
    for kind, shown in tally.examples.items():
        print(f"\n{kind} ({tally.counts[kind]}):")
        for example in shown:
            print(f"  - {example}")
    return figures


if __name__ == "__main__":
    main(NAME, run, add_arguments)
