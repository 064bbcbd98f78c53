"""A rejected plan revised by the analyst's feedback: the next version is the previous one with the
feedback applied as edits, never a fresh plan with a sentence made of the feedback's leftover words.

The feedback is read clause by clause ("Drop sub-question 3. Add hiring costs." is two edits):

- a clause that asks to drop ("drop", "remove", "not needed", "删除", "不需要" ...) removes the
  sub-question it names: by number ("sub-question 3", "#3", "the last one", "第3个") or, failing
  that, by the words it shares with one sub-question and no other;
- any other clause asks for an aspect: its words, as written, with the asking ("please also
  cover", "need more on", "需要更多关于…的") taken off, become a well-formed sub-question
  ("What is known about hiring costs for Rust and Go?") with queries from the one query maker;
  an aspect a sub-question already asks about adds nothing.

What the feedback does not mention stays as it was, in its order, with its queries.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from researchapp.core.enums import Intent
from researchapp.pipeline.planner.queries import queries_for_subquestion
from researchapp.pipeline.text.question import Reading, read_question
from researchapp.pipeline.text.tokens import cjk_count, tokenize
from researchapp.pipeline.values import Plan, PlannedSubQuestion

MAX_SUBQUESTIONS = 6

_CLAUSES = re.compile(
    r"(?<=[.!?;。！？；\n])\s*|(?:,|，)?\s+(?:but|and then|also)\s+(?=(?:add|drop|remove|cover|include)\b)"
)
_DROP_EN = re.compile(
    r"\b(?:drop|remove|delete|cut|skip|omit|leave out|get rid of|no need for|not needed|unnecessary|"
    r"irrelevant|don't need|do not need|is off[- ]topic)\b",
    re.IGNORECASE,
)
_DROP_ZH = re.compile(r"删除|删掉|删去|去掉|去除|移除|不需要|不要|无关|多余")
_NUMBERED_EN = re.compile(
    r"(?:sub-?\s*questions?|questions?|items?|points?|no\.?|number|#)\s*(\d{1,2})\b", re.I
)
_ORDINALS_EN = {"first": 1, "second": 2, "third": 3, "fourth": 4, "fifth": 5, "sixth": 6}
_ORDINAL_EN = re.compile(r"\b(first|second|third|fourth|fifth|sixth|last)\b", re.IGNORECASE)
_ZH_DIGITS = {"一": 1, "二": 2, "两": 2, "三": 3, "四": 4, "五": 5, "六": 6}
_NUMBERED_ZH = re.compile(r"第\s*([0-9一二两三四五六])\s*(?:个|条|项|点)?|最后一个")
# The asking around an aspect: "please also look into", "need more on", "what about".
_ASKING_EN = re.compile(
    r"^(?:(?:please|pls|kindly|also|and|but|then|maybe|perhaps|i|we|you|would|could|should|can|"
    r"like|want|wanted|need|needs|it|the|plan|this|to|more|further|better|focus|focusing|add|adding|"
    r"cover|covering|include|including|consider|considering|look|looking|into|at|dig|research|"
    r"explore|investigate|ask|asking|about|on|missing|lacks|what|how|a|an|sub-?question|question|"
    r"for|of|some|is|are|there|data|evidence|information|info)\b[\s,:]*)+",
    re.IGNORECASE,
)
_STATEMENT_EN = re.compile(
    r"\b(?:is|are|was|were|be|been|seems?|looks?|has|have|had|already|isn't|aren't|doesn't|don't|not)\b",
    re.IGNORECASE,
)
_TRAILING_EN = re.compile(r"[\s,.;:!?]*(?:\b(?:too|as well|please|also|instead)\b[\s,.;:!?]*)*$", re.I)
_ASKING_ZH = re.compile(
    r"^(?:请|也|还|再|需要|希望|应该|要|更多|多|更|重点|关注|补充|增加|加上|考虑|一下|关于|有关|对|的)+"
)
_TRAILING_ZH = re.compile(r"(?:的)?(?:数据|资料|信息|证据|内容|问题|方面|情况)*[。！？；，,.!?;\s]*$")


@dataclass(frozen=True)
class Revision:
    """What the feedback did: the plan it gave, and which edits it read (for the rationale)."""

    plan: Plan
    dropped: tuple[str, ...]
    added: tuple[str, ...]


def feedback_clauses(feedback: str) -> list[str]:
    return [clause.strip(" ,，") for clause in _CLAUSES.split(feedback) if clause and clause.strip(" ,，")]


def revise_plan(question: str, previous: Plan, feedback: str, *, depth: str = "quick") -> Revision:
    """1. Split the feedback into clauses. 2. Apply each: drop what it names, or add the aspect it
    asks for. 3. Keep at most six, the analyst's additions before the planner's own last ones."""
    reading = read_question(question)
    kept = list(previous.subquestions)
    dropped: list[str] = []
    added: list[PlannedSubQuestion] = []
    for clause in feedback_clauses(feedback):
        if _asks_to_drop(clause):
            target = _target(clause, kept)
            if target is not None:
                dropped.append(kept.pop(target).text)
            continue
        aspect = _aspect(clause, reading)
        if not aspect or _already_asked(aspect, [*kept, *added], reading):
            continue
        text = _aspect_question(aspect, reading)
        rationale = (
            f"分析员的反馈：{clause}" if reading.chinese else f"Asked for in the analyst's feedback: {clause}"
        )
        added.append(
            PlannedSubQuestion(text, rationale, queries_for_subquestion(question, text, depth=depth))
        )
    room = MAX_SUBQUESTIONS - len(added)
    subquestions = (*kept[: max(room, 0)], *added[:MAX_SUBQUESTIONS])
    intent = previous.intent if isinstance(previous.intent, Intent) else reading.intent
    return Revision(Plan(intent, tuple(subquestions)), tuple(dropped), tuple(a.text for a in added))


def _asks_to_drop(clause: str) -> bool:
    return bool(_DROP_EN.search(clause) or _DROP_ZH.search(clause))


def _target(clause: str, subquestions: list[PlannedSubQuestion]) -> int | None:
    """The index of the sub-question a drop clause names, or None when it names none clearly."""
    if not subquestions:
        return None
    number = _NUMBERED_EN.search(clause)
    if number:
        index = int(number.group(1)) - 1
        return index if 0 <= index < len(subquestions) else None
    zh = _NUMBERED_ZH.search(clause)
    if zh:
        if zh.group(0) == "最后一个":
            return len(subquestions) - 1
        raw = zh.group(1)
        index = (int(raw) if raw.isdigit() else _ZH_DIGITS[raw]) - 1
        return index if 0 <= index < len(subquestions) else None
    ordinal = _ORDINAL_EN.search(clause)
    if ordinal and re.search(r"\b(?:one|sub-?questions?|questions?|item)\b", clause, re.IGNORECASE):
        word = ordinal.group(1).lower()
        return len(subquestions) - 1 if word == "last" else min(_ORDINALS_EN[word], len(subquestions)) - 1
    return _by_words(clause, subquestions)


def _by_words(clause: str, subquestions: list[PlannedSubQuestion]) -> int | None:
    """The one sub-question sharing most of the clause's distinctive words (words every sub-question
    has, like the question's subject, tell them apart from nothing)."""
    terms = [set(tokenize(sq.text)) for sq in subquestions]
    common = set.intersection(*terms) if len(terms) > 1 else set()
    wanted = set(tokenize(_DROP_ZH.sub(" ", _DROP_EN.sub(" ", clause)))) - common
    scores = [len(wanted & own) for own in terms]
    best = max(scores)
    if best == 0 or scores.count(best) > 1:
        return None
    return scores.index(best)


def _aspect(clause: str, reading: Reading) -> str:
    """The aspect a clause asks for, in the analyst's words: "hiring costs" of "Please also cover
    hiring costs too."; "" when nothing is left."""
    if cjk_count(clause) >= 2:
        text = _ASKING_ZH.sub("", clause.strip())
        text = _TRAILING_ZH.sub("", text)
        for known in sorted((*reading.options, reading.subject), key=len, reverse=True):
            if known and text.startswith(known) and len(text) > len(known):
                text = text[len(known) :].lstrip("的和与")
        return text.strip()
    text = _TRAILING_EN.sub("", _ASKING_EN.sub("", clause.strip()))
    text = re.sub(r"^(?:the|a|an)\s+", "", text, flags=re.IGNORECASE).strip(" ,.;:!?\"'“”")
    if _STATEMENT_EN.search(text):  # "risks are already covered" says something; it names no aspect
        return ""
    return text if re.search(r"[^\W\d_]{2,}", text) else ""


def _already_asked(aspect: str, subquestions: list[PlannedSubQuestion], reading: Reading) -> bool:
    """An aspect whose distinctive words one sub-question already has all of."""
    subject = set(tokenize(f"{reading.subject} {' '.join(reading.options)}"))
    wanted = set(tokenize(aspect)) - subject
    return bool(wanted) and any(wanted <= set(tokenize(sq.text)) for sq in subquestions)


def _aspect_question(aspect: str, reading: Reading) -> str:
    """A well-formed sub-question about the aspect, for the question's options or topic."""
    joiner = "和" if reading.chinese else " and "
    about = joiner.join(reading.options) if reading.options else (reading.topic or reading.subject)
    if reading.chinese:
        # A Chinese subject is the question less its punctuation ("灰水角灯塔有多高"), not a noun
        # phrase: without options or a topic the aspect is asked bare (its queries carry the subject).
        about = joiner.join(reading.options) if reading.options else reading.topic
        return f"{about}的{aspect}如何？" if about else f"{aspect}如何？"
    return f"What is known about {aspect} for {about}?" if about else f"What is known about {aspect}?"
