"""An analyst's comment on a whole report: acted on, or the next version says why not.

The extractive writer can do two things with such a comment: leave out the statements it objects
to ("the battery ones are irrelevant", "remove the part about warranties"), and confirm that the
report opens with its answers when asked to answer directly. Nothing else is dropped: a statement
the comment does not object to stays. Either way the next version says what was done.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Sequence

from researchapp.pipeline.text.tokens import cjk_count, tokenize
from researchapp.pipeline.values import CheckIssue

_MARKER = re.compile(r"\[E(\d+)\]")
# Words of an analyst's comment that say what to do, not what it is about.
_COMMENT_NOISE = frozenset(
    """please these those this that they them about wrong irrelevant unrelated off topic remove drop
    delete cut leave out keep report draft claim claims sentence sentences section sections quote
    quotes source sources answer question nothing anything something fix change rewrite again not
    only also too more less instead here there should must need needs directly direct straight short
    shorter brief concise first give make focus focusing""".split()
)
# A comment objects to something: only then are its words what to leave out.
_OBJECTS = re.compile(
    r"\b(?:wrong|irrelevant|unrelated|off[- ]topic|remove|drop|delete|cut|leave\s+out|omit|not\s+about|"
    r"does\s+not\s+belong|doesn't\s+belong|no\s+need|nothing\s+to\s+do\s+with)\b|删除|去掉|无关|不相关|错误",
    re.IGNORECASE,
)
_DIRECT = re.compile(
    r"\b(?:direct(?:ly)?|straight|to\s+the\s+point|answer\s+first|shorter|concise|brief(?:ly)?|summar\w*)\b|"
    r"直接|简短|简洁|先回答",
    re.IGNORECASE,
)


def _comments(feedback: Sequence[CheckIssue]) -> str:
    return " ".join(issue.message for issue in feedback if issue.code == "analyst_feedback")


def objected_terms(question: str, feedback: Sequence[CheckIssue]) -> set[str]:
    """What an analyst's comment objects to ("these are irrelevant: they are about batteries" →
    battery): the content words of a comment that objects, less the question's own words. A claim
    holding one is left out of the next draft; a comment that objects to nothing drops nothing."""
    comments = _comments(feedback)
    if not _OBJECTS.search(comments):
        return set()
    asked = set(tokenize(question))
    return {
        term
        for term in tokenize(_MARKER.sub(" ", comments))
        if term not in asked and term not in _COMMENT_NOISE and not term.isdigit()
    }


def comment_responses(feedback: Sequence[CheckIssue], objected: Collection[str], left_out: int) -> list[str]:
    """What the next version says about the comment: acted on (and how), or why not."""
    comments = _comments(feedback)
    if not comments.strip():
        return []
    chinese = cjk_count(comments) >= 2
    words = ", ".join(sorted(objected))
    if objected and left_out:
        if chinese:
            return [f"已采纳：删去了 {left_out} 条提及 {words} 的陈述；其余陈述保留。"]
        return [f"Acted on: {left_out} statement(s) mentioning {words} were left out; every other one stays."]
    if objected:
        if chinese:
            return [f"未采纳：没有陈述提及 {words}，因此没有删去任何内容。"]
        return [f"Not acted on: no statement mentions {words}, so nothing was left out."]
    if _DIRECT.search(comments):
        if chinese:
            return ["已采纳：报告开头先给出每个子问题的答案，未删去任何陈述。"]
        return ["Acted on: the report opens with each sub-question's answer; no statement was left out."]
    if chinese:
        return ["未采纳：抽取式写作只能删去意见所反对的陈述，而此意见没有指出任何陈述；未删去任何内容。"]
    return [
        "Not acted on: the extractive writer can leave out statements a comment objects to, and this "
        "comment objects to none; nothing was left out."
    ]
