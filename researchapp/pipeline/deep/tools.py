"""The tools the research loop may call, as OpenAI function schemas, and the check of each call.

A model's call is untrusted input: its arguments are JSON text that may be malformed, name
unknown tools, miss fields or invent ids. ``parse_call`` turns it into a ``ToolRequest`` or raises
``ToolCallError`` with a message the model is shown; the loop stores that as an error step.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

WEB_SEARCH = "web_search"
ACADEMIC_SEARCH = "academic_search"
OPEN_PAGE = "open_page"
FIND_IN_SOURCES = "find_in_sources"
CALCULATE = "calculate"
# The key prefix of a finding the loop computed: analysis keeps it (``runner.analyse``).
DERIVED_KEY = "derived:"

MAX_QUERY_CHARS = 300
MAX_CODE_CHARS = 4000
MAX_INPUTS = 8
MAX_RESULTS = 10
_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]{0,30}$")
_EVIDENCE_ID = re.compile(r"^\s*E?(\d{1,12})\s*$", re.IGNORECASE)


def _function(name: str, description: str, properties: dict[str, Any], required: list[str]) -> dict:
    return {
        "type": "function",
        "function": {
            "name": name,
            "description": description,
            "parameters": {
                "type": "object",
                "properties": properties,
                "required": required,
                "additionalProperties": False,
            },
        },
    }


_QUERY = {
    "type": "string",
    "description": "What to search for: a few keywords.",
    "maxLength": MAX_QUERY_CHARS,
}
_LIMIT = {"type": "integer", "minimum": 1, "maximum": MAX_RESULTS, "description": "How many results."}

TOOL_SCHEMAS: tuple[dict[str, Any], ...] = (
    _function(
        WEB_SEARCH,
        "Search the web. Returns result URLs and titles only; open a page to read it and cite it.",
        {"query": _QUERY},
        ["query"],
    ),
    _function(
        ACADEMIC_SEARCH,
        "Search scholarly works (OpenAlex, arXiv, Semantic Scholar). Each paper found is stored as a "
        "source (its abstract or open-access text) and its passages on the sub-question as evidence.",
        {"query": _QUERY, "limit": _LIMIT},
        ["query"],
    ),
    _function(
        OPEN_PAGE,
        "Open a URL that a web_search returned. The page is stored as a source and the passages "
        "that bear on the sub-question as evidence (ids like E12) you can cite.",
        {"url": {"type": "string", "description": "A URL from a web_search result.", "maxLength": 2000}},
        ["url"],
    ),
    _function(
        FIND_IN_SOURCES,
        "Search the passages this task has already stored (BM25). Returns evidence ids and quotes.",
        {"query": _QUERY, "limit": _LIMIT},
        ["query"],
    ),
    _function(
        CALCULATE,
        "Run Python in a sandbox on numbers taken from stored evidence. Each input names a variable "
        "and the evidence it comes from ('E12') with the position of the number in that quote "
        "(1 = first number; the numbers of each quote are listed with it). Set `result` to the answer.",
        {
            "code": {"type": "string", "description": "Python; assign the answer to `result`.",
                     "maxLength": MAX_CODE_CHARS},
            "inputs": {
                "type": "array",
                "maxItems": MAX_INPUTS,
                "items": {
                    "type": "object",
                    "properties": {
                        "name": {"type": "string", "description": "A Python variable name."},
                        "evidence": {"type": "string", "description": "An evidence id such as E12."},
                        "number": {"type": "integer", "minimum": 1, "description": "1 = the first."},
                    },
                    "required": ["name", "evidence"],
                    "additionalProperties": False,
                },
            },
            "description": {"type": "string", "description": "What the figure is, in a few words.",
                            "maxLength": 200},
        },
        ["code", "inputs"],
    ),
)  # fmt: skip
TOOL_NAMES = tuple(schema["function"]["name"] for schema in TOOL_SCHEMAS)


class ToolCallError(ValueError):
    """A call the loop cannot run as asked; the message is what the model is told."""


@dataclass(frozen=True)
class CalculationInput:
    name: str
    evidence_id: int
    number: int = 1  # 1-based position of the number in the quote


@dataclass(frozen=True)
class ToolRequest:
    """A checked call: ``arguments`` is the normalised JSON stored on the step."""

    tool: str
    arguments: dict[str, Any]

    @property
    def signature(self) -> str:
        """Two calls with the same signature do the same thing: the second is refused."""
        return self.tool + json.dumps(self.arguments, sort_keys=True, ensure_ascii=False)

    @property
    def inputs(self) -> tuple[CalculationInput, ...]:
        return tuple(CalculationInput(**item) for item in self.arguments.get("inputs", ()))


def evidence_id(value: Any) -> int:
    """``"E12"``, ``"e12"``, ``"12"`` or ``12`` → 12; anything else is a ToolCallError."""
    if isinstance(value, int) and not isinstance(value, bool) and value > 0:
        return value
    match = _EVIDENCE_ID.match(value) if isinstance(value, str) else None
    if not match:
        raise ToolCallError(f"{value!r} is not an evidence id (write it as E12)")
    return int(match.group(1))


def _text(arguments: dict[str, Any], key: str, limit: int) -> str:
    value = arguments.get(key)
    if not isinstance(value, str) or not value.strip():
        raise ToolCallError(f"`{key}` must be a non-empty string")
    if len(value) > limit:
        raise ToolCallError(f"`{key}` is longer than {limit} characters")
    return value.strip()


def _limit(arguments: dict[str, Any], default: int) -> int:
    value = arguments.get("limit", default)
    if not isinstance(value, int) or isinstance(value, bool) or not 1 <= value <= MAX_RESULTS:
        raise ToolCallError(f"`limit` must be an integer from 1 to {MAX_RESULTS}")
    return value


def _inputs(raw: Any) -> list[dict[str, Any]]:
    if not isinstance(raw, list) or not raw:
        raise ToolCallError("`inputs` must be a non-empty list of {name, evidence, number}")
    if len(raw) > MAX_INPUTS:
        raise ToolCallError(f"at most {MAX_INPUTS} inputs")
    inputs, names = [], set()
    for item in raw:
        if not isinstance(item, dict):
            raise ToolCallError("each input must be an object {name, evidence, number}")
        name = item.get("name")
        if not isinstance(name, str) or not _NAME.match(name) or name in names:
            raise ToolCallError(f"input name {name!r} must be a distinct Python variable name")
        number = item.get("number", 1)
        if not isinstance(number, int) or isinstance(number, bool) or number < 1:
            raise ToolCallError(f"input {name}: `number` must be a positive integer")
        names.add(name)
        inputs.append({"name": name, "evidence_id": evidence_id(item.get("evidence")), "number": number})
    return inputs


def parse_call(name: str, raw_arguments: str) -> ToolRequest:
    """Check one tool call of the model: a known tool, JSON object arguments of the right shape."""
    if name not in TOOL_NAMES:
        raise ToolCallError(f"unknown tool {name!r}; the tools are {', '.join(TOOL_NAMES)}")
    try:
        arguments = json.loads(raw_arguments or "{}")
    except json.JSONDecodeError as error:
        raise ToolCallError(f"the arguments are not valid JSON ({error.msg})") from None
    if not isinstance(arguments, dict):
        raise ToolCallError("the arguments must be a JSON object")
    if name in (WEB_SEARCH,):
        return ToolRequest(name, {"query": _text(arguments, "query", MAX_QUERY_CHARS)})
    if name in (ACADEMIC_SEARCH, FIND_IN_SOURCES):
        query = _text(arguments, "query", MAX_QUERY_CHARS)
        return ToolRequest(name, {"query": query, "limit": _limit(arguments, 5)})
    if name == OPEN_PAGE:
        url = _text(arguments, "url", 2000)
        if not url.lower().startswith(("http://", "https://")):
            raise ToolCallError("`url` must be an http(s) URL from a web_search result")
        return ToolRequest(name, {"url": url})
    arguments_out: dict[str, Any] = {
        "code": _text(arguments, "code", MAX_CODE_CHARS),
        "inputs": _inputs(arguments.get("inputs")),
    }
    description = arguments.get("description")
    arguments_out["description"] = description.strip()[:200] if isinstance(description, str) else ""
    return ToolRequest(name, arguments_out)
