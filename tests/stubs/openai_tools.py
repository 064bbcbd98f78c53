"""What the stub model does in a conversation with ``tools``: read the conversation, call tools.

``dutiful_researcher`` searches the web and the scholarly APIs for its sub-question, opens the
first results it has not opened, and then answers citing the evidence it was shown. Tests script
other behaviour with the helpers here (``seen_evidence``, ``calls_made``, ``turns_taken``).
"""

from __future__ import annotations

import json
import re
from typing import Any

_SUBQUESTION = re.compile(r"<subquestion>(.*?)</subquestion>", re.DOTALL)
OPEN_PER_TURN = 2


def subquestion_of(body: dict[str, Any]) -> str:
    for message in body.get("messages", []):
        match = _SUBQUESTION.search(str(message.get("content") or ""))
        if match:
            return match.group(1).strip()
    return ""


def turns_taken(body: dict[str, Any]) -> int:
    return sum(1 for message in body.get("messages", []) if message.get("role") == "assistant")


def calls_made(body: dict[str, Any]) -> list[tuple[str, dict[str, Any], Any]]:
    """(tool, arguments, observation) of every call so far; arguments/observation parsed when JSON."""
    names: dict[str, tuple[str, Any]] = {}
    made = []
    for message in body.get("messages", []):
        for call in message.get("tool_calls") or []:
            try:
                arguments = json.loads(call["function"]["arguments"])
            except ValueError:
                arguments = call["function"]["arguments"]
            names[call["id"]] = (call["function"]["name"], arguments)
        if message.get("role") == "tool" and message.get("tool_call_id") in names:
            name, arguments = names[message["tool_call_id"]]
            try:
                seen = json.loads(message.get("content") or "null")
            except ValueError:
                seen = message.get("content")
            made.append((name, arguments, seen))
    return made


def seen_evidence(body: dict[str, Any]) -> list[dict[str, Any]]:
    """Every evidence item shown so far ({id, quote, numbers}), first seen first, once each."""
    found: dict[str, dict[str, Any]] = {}
    for _, _, seen in calls_made(body):
        if not isinstance(seen, dict):
            continue
        items = [e for source in seen.get("sources", []) for e in source.get("evidence", [])]
        for item in [*items, *seen.get("results", [])]:
            if isinstance(item, dict) and str(item.get("id", "")).startswith("E"):
                found.setdefault(item["id"], item)
    return list(found.values())


def search_results(body: dict[str, Any]) -> list[str]:
    return [
        item["url"]
        for name, _, seen in calls_made(body)
        if name == "web_search" and isinstance(seen, dict)
        for item in seen.get("results", [])
    ]


def opened(body: dict[str, Any]) -> set[str]:
    return {arguments.get("url") for name, arguments, _ in calls_made(body) if name == "open_page"}


def call(name: str, **arguments: Any) -> dict[str, Any]:
    return {"name": name, "arguments": arguments}


def answer(body: dict[str, Any]) -> dict[str, Any]:
    cited = ", ".join(item["id"] for item in seen_evidence(body)[:3]) or "nothing found"
    return {"content": f"The stored evidence answers the sub-question ({cited}).", "tool_calls": []}


def dutiful_researcher(body: dict[str, Any]) -> dict[str, Any]:
    """Turn 1: search the web and the scholarly APIs; turn 2: open the first results; then answer."""
    subquestion = subquestion_of(body) or "the question"
    if turns_taken(body) == 0:
        return {
            "content": f"I will search for: {subquestion}",
            "tool_calls": [
                call("web_search", query=subquestion),
                call("academic_search", query=subquestion, limit=2),
            ],
        }
    to_open = [url for url in dict.fromkeys(search_results(body)) if url not in opened(body)][:OPEN_PER_TURN]
    if turns_taken(body) == 1 and to_open:
        return {
            "content": "Reading the best results.",
            "tool_calls": [call("open_page", url=url) for url in to_open],
        }
    return answer(body)
