"""The analyst's feedback on a rejected plan, read as edits: one per clause.

"Drop sub-question 2 and add hiring costs" is two edits, and so is "删除第2个子问题，并增加招聘成本": a
feedback is cut at its sentences and at the joins between edits ("and", "also", "then", ";", "然后",
"并且", "以及", a comma) where an edit verb follows, so "limitations and risks" stays one aspect. Each
clause is then

- a drop ("drop", "remove", "not needed", "删除", "不需要" ...) of the sub-questions it names: by number
  ("sub-questions 2 and 3", "#3", "the last one", "第2和第3个") or, failing that, by the words it
  shares with one sub-question and no other; numbers are those of the version the analyst read;
- a replacement ("replace sub-question 2 with hiring costs"): a drop and an aspect;
- an aspect asked for: its words as written, with the asking ("please also cover", "need more on",
  "需要更多关于…的") taken off;
- or none of these: a remark, read as no edit (``Edit.understood`` is false), which the plan gate
  lists as not understood rather than dropping in silence (``notes.feedback_notes``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from researchapp.pipeline.text.question import Reading
from researchapp.pipeline.text.tokens import cjk_count, tokenize
from researchapp.pipeline.values import Plan, PlannedSubQuestion

_DROP_EN = re.compile(
    r"\b(?:drop|remove|delete|cut|skip|omit|leave out|get rid of|no need for|not needed|unnecessary|"
    r"irrelevant|don't need|do not need|is off[- ]topic)\b",
    re.IGNORECASE,
)
_DROP_ZH = re.compile(r"删除|删掉|删去|去掉|去除|移除|不需要|不要|无关|多余")
_REPLACE_EN = re.compile(r"^\s*(?:please\s+)?replace\s+(?P<target>.+?)\s+(?:with|by)\s+(?P<aspect>.+)$", re.I)
_REPLACE_ZH = re.compile(r"^\s*(?:请)?(?:把|将)(?P<target>.+?)(?:替换|换)成(?P<aspect>.+)$")

# The verbs an edit starts with: a join ("and", "，") before one of them starts a new clause.
_EDIT_EN = (
    r"(?:add|adding|drop|remove|delete|cut|skip|omit|replace|cover|include|consider|research|investigate|"
    r"explore|look\s+(?:into|at)|focus\s+on|dig\s+into|ask\s+about|leave\s+out|get\s+rid\s+of|"
    r"what\s+about|how\s+about|need|we\s+need|i\s+need|please)\b"
)
_EDIT_ZH = (
    r"(?:请)?(?:也|还|再|另外)?(?:删除|删掉|删去|去掉|去除|移除|不需要|不要|增加|添加|加上|加入|补充|"
    r"需要|考虑|关注|研究|覆盖|包括|包含|替换|把)"
)
_SENTENCE_END = re.compile(r"(?<=[.!?;])\s+|(?<=[。！？；\n])\s*")
_JOIN_EN = re.compile(
    rf"\s*[,;]?\s+(?:(?:and|then|also|plus|but|as\s+well\s+as)\s+)+(?={_EDIT_EN})|\s*[,;]\s*(?={_EDIT_EN})",
    re.IGNORECASE,
)
_JOIN_ZH = re.compile(
    rf"[，,、]\s*(?:然后|并且|以及|并|同时|此外)?\s*(?={_EDIT_ZH})|(?:然后|并且|以及|并|同时|此外)(?={_EDIT_ZH})"
    rf"|[，,]\s*(?:然后|并且|另外|此外|同时)"
)
# Words that end in a full stop without ending a sentence: "No. 3", "e.g. costs", "vs. Go".
_CLAUSE_EDGES = " \t\n,，、;；.。"
_NOT_AN_END = re.compile(r"\b(?:no|nos|e\.g|i\.e|vs|cf)\.$", re.IGNORECASE)

_NUMBER_LIST_EN = re.compile(
    r"(?:sub-?\s*questions?|questions?|items?|points?|nos?\.?|numbers?|#)\s*"
    r"(#?\d{1,2}(?:\s*(?:,|and|&|or|\+)\s*#?\d{1,2})*)\b",
    re.IGNORECASE,
)
_ORDINALS_EN = {"first": 1, "second": 2, "third": 3, "fourth": 4, "fifth": 5, "sixth": 6}
_ORDINAL_EN = re.compile(r"\b(first|second|third|fourth|fifth|sixth|last)\b", re.IGNORECASE)
_ZH_DIGITS = {"一": 1, "二": 2, "两": 2, "三": 3, "四": 4, "五": 5, "六": 6}
_NUMBER_LIST_ZH = re.compile(
    r"第\s*[0-9一二两三四五六](?:\s*(?:个|条|项|点)?\s*(?:和|与|及|、|,|，|以及)\s*第?\s*[0-9一二两三四五六])*"
)
_ZH_NUMBER = re.compile(r"[0-9一二两三四五六]")
# The asking around an aspect: "please also look into", "need more on", "what about".
_ASKING_EN = re.compile(
    r"^(?:(?:please|pls|kindly|also|and|but|then|maybe|perhaps|i|we|you|would|could|should|can|"
    r"like|want|wanted|need|needs|it|the|plan|this|to|more|further|better|focus|focusing|add|adding|"
    r"cover|covering|include|including|consider|considering|look|looking|into|at|dig|research|"
    r"explore|investigate|ask|asking|about|on|missing|lacks|what|how|a|an|sub-?question|question|"
    r"for|of|some|is|are|there|data|evidence|information|info|plus|new|one)\b[\s,:]*)+",
    re.IGNORECASE,
)
_STATEMENT_EN = re.compile(
    r"\b(?:is|are|was|were|be|been|seems?|looks?|has|have|had|already|isn't|aren't|doesn't|don't|not|"
    r"thanks|thank)\b",
    re.IGNORECASE,
)
_TRAILING_EN = re.compile(r"[\s,.;:!?]*(?:\b(?:too|as well|please|also|instead)\b[\s,.;:!?]*)*$", re.I)
_ASKING_ZH = re.compile(
    r"^(?:请|也|还|再|需要|希望|应该|要|更多|更(?!新|改|换)|重点|关注|补充|增加|添加|加上|加入|考虑|一下|关于|有关|对于|的|"
    r"研究|覆盖|包括|包含|一个|子问题|问题|新的|另外|然后|并且|以及|并|同时|此外)+"
)
_TRAILING_ZH = re.compile(
    r"(?:的)?(?:数据|资料|信息|证据|内容|问题|方面|情况|吧|吗|呢)*[。！？；，,.!?;\s]*$"
)
# Edits the desk does not make from feedback (rewording, merging, moving): a clause asking one is not
# an aspect to add, however it reads after its verb.
_OTHER_EDIT_EN = re.compile(
    r"^\s*(?:please\s+)?(?:make|rewrite|rephrase|reword|shorten|simplify|merge|combine|split|reorder|move|"
    r"swap|change|fix|improve|clarify|narrow|broaden|expand|edit|rename|use|keep|sort|be)\b",
    re.IGNORECASE,
)
_OTHER_EDIT_ZH = re.compile(r"改|修改|合并|拆分|调整|移动|重写|简化|缩短|排序|使用|保持|让")
_STATEMENT_ZH = re.compile(r"已经|太(?:泛|宽|笼统|长|短|多|少)|很好|不错|可以了|没问题|谢谢|看起来|似乎")


@dataclass(frozen=True)
class Edit:
    """What one clause of the feedback asks.

    ``drops``: indexes (0-based) of the rejected version's sub-questions it removes; ``missing``: numbers
    it names that the version does not have; ``aspect``: the aspect it asks a sub-question for.
    """

    clause: str
    drops: tuple[int, ...] = ()
    missing: tuple[int, ...] = ()
    aspect: str = ""
    asks_to_drop: bool = False

    @property
    def understood(self) -> bool:
        return bool(self.drops or self.aspect)


def feedback_clauses(feedback: str) -> list[str]:
    """The feedback cut into clauses, one edit each; a piece that only asks ("Please also") stays with
    the clause after it, as written."""
    clauses: list[str] = []
    for sentence in _sentences(feedback):
        joins = _JOIN_ZH if cjk_count(sentence) >= 2 else _JOIN_EN
        start = 0
        for join in joins.finditer(sentence):
            piece = sentence[start : join.start()]
            if join.start() == start:  # a sentence that opens with a join: "然后补充…", "Also, add…"
                start = join.end()
            elif not _only_asking(piece):
                clauses.append(piece)
                start = join.end()
        clauses.append(sentence[start:])
    return [text for clause in clauses if (text := clause.strip(_CLAUSE_EDGES))]


def _sentences(feedback: str) -> list[str]:
    """The feedback cut after ``.!?;`` (either script) and line ends, but not after "No." or "e.g."."""
    sentences, start = [], 0
    for end in _SENTENCE_END.finditer(feedback):
        if end.start() == 0 or end.start() >= len(feedback):
            continue
        if _NOT_AN_END.search(feedback[start : end.start()]):
            continue
        sentences.append(feedback[start : end.start()])
        start = end.end()
    sentences.append(feedback[start:])
    return [sentence for sentence in sentences if sentence.strip()]


def _only_asking(piece: str) -> bool:
    if cjk_count(piece) >= 2:
        return not _ASKING_ZH.sub("", piece).strip(" ，,。")
    return not _ASKING_EN.sub("", piece).strip(" ,.;:!?")


def read_feedback(reading: Reading, previous: Plan, feedback: str) -> tuple[Edit, ...]:
    """Each clause of ``feedback`` as the edit it asks of ``previous``."""
    subquestions = list(previous.subquestions)
    return tuple(_edit(clause, reading, subquestions) for clause in feedback_clauses(feedback))


def _edit(clause: str, reading: Reading, subquestions: list[PlannedSubQuestion]) -> Edit:
    replaced = _REPLACE_EN.match(clause) or _REPLACE_ZH.match(clause)
    if replaced:
        drops, missing = _targets(replaced.group("target"), subquestions)
        return Edit(clause, drops, missing, aspect_of(replaced.group("aspect"), reading), asks_to_drop=True)
    if _DROP_EN.search(clause) or _DROP_ZH.search(clause):
        drops, missing = _targets(clause, subquestions)
        return Edit(clause, drops, missing, asks_to_drop=True)
    return Edit(clause, aspect=aspect_of(clause, reading))


def _targets(clause: str, subquestions: list[PlannedSubQuestion]) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """The indexes of the sub-questions a drop clause names, and the numbers it names that do not exist."""
    numbers = _numbers(clause, len(subquestions))
    if numbers:
        return (
            tuple(n - 1 for n in numbers if 1 <= n <= len(subquestions)),
            tuple(n for n in numbers if not 1 <= n <= len(subquestions)),
        )
    found = by_words(clause, subquestions)
    if found is None:
        # "the one about costs and the one about history": each part names its own.
        parts = [by_words(part, subquestions) for part in re.split(r"\band\b|和|以及|、", clause)]
        found_parts = tuple(dict.fromkeys(index for index in parts if index is not None))
        return (found_parts if len(parts) > 1 and None not in parts else ()), ()
    return (found,), ()


def _numbers(clause: str, count: int) -> list[int]:
    """The sub-question numbers a clause names (1-based): "sub-questions 2 and 3", "第2、3个", "the
    first and the last one"."""
    found: list[int] = []
    for match in _NUMBER_LIST_EN.finditer(clause):
        found += [int(n) for n in re.findall(r"\d{1,2}", match.group(1))]
    for match in _NUMBER_LIST_ZH.finditer(clause):
        found += [int(n) if n.isdigit() else _ZH_DIGITS[n] for n in _ZH_NUMBER.findall(match.group(0))]
    if "最后一个" in clause or "最后一条" in clause:
        found.append(count)
    if not found and re.search(r"\b(?:ones?|sub-?questions?|questions?|items?)\b", clause, re.I):
        for match in _ORDINAL_EN.finditer(clause):
            word = match.group(1).lower()
            found.append(count if word == "last" else _ORDINALS_EN[word])
    return list(dict.fromkeys(found))


def by_words(clause: str, subquestions: list[PlannedSubQuestion]) -> int | None:
    """The one sub-question sharing most of the clause's distinctive words (words every sub-question
    has, like the question's subject, tell them apart from nothing)."""
    if not subquestions:
        return None
    terms = [set(tokenize(sq.text)) for sq in subquestions]
    common = set.intersection(*terms) if len(terms) > 1 else set()
    wanted = set(tokenize(_DROP_ZH.sub(" ", _DROP_EN.sub(" ", clause)))) - common
    scores = [len(wanted & own) for own in terms]
    best = max(scores)
    if best == 0 or scores.count(best) > 1:
        return None
    return scores.index(best)


def aspect_of(clause: str, reading: Reading) -> str:
    """The aspect a clause asks for, in the analyst's words: "hiring costs" of "Please also cover
    hiring costs too."; "" when nothing is left, or when the clause states rather than asks."""
    if cjk_count(clause) >= 2:
        if _STATEMENT_ZH.search(clause):
            return ""
        text = _ASKING_ZH.sub("", clause.strip())
        if _OTHER_EDIT_ZH.match(text):
            return ""
        text = _TRAILING_ZH.sub("", text)
        for known in sorted((*reading.options, reading.subject), key=len, reverse=True):
            if known and text.startswith(known) and len(text) > len(known):
                text = text[len(known) :].lstrip("的和与")
        return text.strip()
    if _OTHER_EDIT_EN.match(clause):
        return ""
    text = _TRAILING_EN.sub("", _ASKING_EN.sub("", clause.strip()))
    text = re.sub(r"^(?:the|a|an)\s+", "", text, flags=re.IGNORECASE).strip(" ,.;:!?\"'“”")
    if _STATEMENT_EN.search(text):  # "risks are already covered" says something; it names no aspect
        return ""
    return text if re.search(r"[^\W\d_]{2,}", text) else ""


def asked_by(aspect: str, subquestions: list[PlannedSubQuestion], reading: Reading) -> int | None:
    """The index of a sub-question that already has every distinctive word of ``aspect`` (None: none)."""
    wanted = distinctive_terms(aspect, reading)
    if not wanted:
        return None
    return next((i for i, sq in enumerate(subquestions) if wanted <= set(tokenize(sq.text))), None)


def distinctive_terms(aspect: str, reading: Reading) -> set[str]:
    """An aspect's terms less the question's subject and options, which every sub-question carries."""
    subject = set(tokenize(f"{reading.subject} {' '.join(reading.options)}"))
    return set(tokenize(aspect)) - subject
