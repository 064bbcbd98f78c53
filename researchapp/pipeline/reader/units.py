"""The pieces of a passage an answer can be: whole sentences, a lead-in with its list, a definition
list's term with its description, a table's row. Offsets are into the passage's quote.

A sentence cut from its list ("There are five kinds of parameter:") says nothing; a description cut
from its term ("Does not touch the index file") does not say what it describes. A reader judges the
widened piece, and quotes it whole.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from researchapp.pipeline.text.sentences import is_heading_line, split_sentences
from researchapp.pipeline.text.tokens import Span

SENTENCE, LIST, ENTRY, ROW = "sentence", "list", "entry", "row"
MAX_TERM_WORDS = 8
MAX_DESCRIPTION_SENTENCES = 3
MAX_LIST_ITEMS = 12
_EMPTY_ITEM = re.compile(r"^(?:[-*•·]|\d{1,3}[.)])\s*$")
# A list item's marker (not a Markdown heading's "#" nor a quote's ">").
LIST_MARKER = re.compile(r"(?:[-*•·]|\d{1,3}[.)])\s")
_ENDS = (".", "!", "?", ":", ";", "。", "！", "？", "：", "；")


@dataclass(frozen=True)
class Unit:
    start: int
    end: int
    kind: str  # SENTENCE, LIST (a lead-in and its items), ENTRY (term and description) or ROW
    term: str = ""  # an entry's term ("--soft"), "" for other units


def _is_item(text: str) -> bool:
    return bool(LIST_MARKER.match(text) or _EMPTY_ITEM.match(text))


def _is_term(text: str) -> bool:
    """A definition list's term as an extractor writes it: a short item without a full stop."""
    if _EMPTY_ITEM.match(text) or not LIST_MARKER.match(text):
        return False
    body = LIST_MARKER.sub("", text, count=1).strip()
    return bool(body) and len(body.split()) <= MAX_TERM_WORDS and not body.endswith(_ENDS)


def _description(quote: str, sentences: list[Span], index: int) -> int:
    """Where a description that starts at sentence ``index`` ends (the index after its last sentence)."""
    end = index
    while end < len(sentences) and _EMPTY_ITEM.match(quote[slice(*sentences[end])]):
        end += 1
    taken = 0
    while end < len(sentences) and taken < MAX_DESCRIPTION_SENTENCES:
        text = quote[slice(*sentences[end])]
        if taken and (_is_item(text) or is_heading_line(text) or not _continues(quote, sentences[end][0])):
            break
        end += 1
        taken += 1
    return end


def _continues(quote: str, start: int) -> bool:
    """A sentence goes on a description when it starts on the line the description is on, or on
    an indented line (an extractor indents a description's wrapped lines, not the text after it)."""
    line_start = quote.rfind("\n", 0, start) + 1
    before = quote[line_start:start]
    return bool(before.strip()) or before.startswith((" ", "\t"))


@lru_cache(maxsize=4096)
def units_of(quote: str) -> tuple[Unit, ...]:
    """1. Split into sentences. 2. A run of term items followed by a description becomes one
    ENTRY (term to the end of its description, a few sentences at most). 3. A table row
    ("| a | b |") is a ROW; every other sentence a SENTENCE. 4. A sentence ending with a colon
    and the items or entries after it are also one LIST; so is a run of three or more items."""
    sentences = split_sentences(quote)
    units: list[Unit] = []
    index = 0
    while index < len(sentences):
        start, end = sentences[index]
        text = quote[start:end]
        if _is_term(text):
            last = index
            while last + 1 < len(sentences) and _is_term(quote[slice(*sentences[last + 1])]):
                last += 1
            stop = _description(quote, sentences, last + 1)
            if stop > last + 1:
                terms = " ".join(
                    LIST_MARKER.sub("", quote[slice(*sentences[i])], count=1) for i in range(index, last + 1)
                )
                units.append(Unit(start, sentences[stop - 1][1], ENTRY, terms.strip()))
                index = stop
                continue
        if not _EMPTY_ITEM.match(text):
            units.append(Unit(start, end, ROW if text.lstrip().startswith("|") else SENTENCE))
        index += 1
    return tuple(units + _lists(quote, units))


def _lists(quote: str, units: list[Unit]) -> list[Unit]:
    """A lead-in ending with a colon and the items or entries right after it; a run of three or
    more items without one."""
    lists: list[Unit] = []
    index = 0
    while index < len(units):
        unit = units[index]
        leads = quote[unit.start : unit.end].rstrip().endswith((":", "："))
        first = index + 1 if leads else index
        stop = first
        while stop < len(units) and stop - first < MAX_LIST_ITEMS and _listed(quote, units[stop]):
            stop += 1
        if (leads and stop > first) or stop - first >= 3:
            lists.append(Unit(unit.start, units[stop - 1].end, LIST))
            index = stop
            continue
        index += 1
    return lists


def _listed(quote: str, unit: Unit) -> bool:
    return unit.kind == ENTRY or bool(LIST_MARKER.match(quote[unit.start : unit.end]))


def _item_run(quote: str, sentences: list[Span], index: int) -> int:
    run = 0
    while index + run < len(sentences) and _is_item(quote[slice(*sentences[index + run])]):
        run += 1
    return run
