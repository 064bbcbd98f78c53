"""A factual question's own facets: what a plan asks beside the question itself.

"What is the default cache size?" is answered by a value; around it the reader wants how it is set
or changed and when it does not hold, not "the recent developments in the default cache size" or
"What is known about PostgreSQL?". Each answer type has its facets, asked in the question's
language, about its topic when the topic reads as a noun phrase and as a follow-up otherwise. A
facet is about the asked value: analysis reports it only when the question itself is answered
(``analyser.facets.gate_facets``), so a question the sources do not answer is not answered around.
"""

from __future__ import annotations

import re

from researchapp.pipeline.text.answer_type import AnswerType

Template = tuple[str, str, str]  # (text, rationale, extra query words), as ``planner.templates``

# Why a facet is a point to verify when the question itself is not answered (``analyser.facets``).
UNANSWERED_NOTE = "the question itself is not answered by the sources, so this is not reported"

_VALUE_EN: tuple[Template, ...] = (
    ("How is {s} set or changed?", "How the value is set or changed.", "set change configure option"),
    (
        "What conditions or exceptions apply to {s}?",
        "When the value does not hold.",
        "unless except only limit",
    ),
)
_VALUE_EN_BARE: tuple[Template, ...] = (
    ("How is it set or changed?", "How the value is set or changed.", "set change configure option"),
    ("What conditions or exceptions apply?", "When the value does not hold.", "unless except only limit"),
    ("What does it depend on?", "What determines the value.", "depends determined"),
)
_VALUE_ZH: tuple[Template, ...] = (
    ("{s}如何设置或更改？", "取值如何设置或更改。", "设置 更改 配置"),
    ("{s}有哪些条件或例外？", "取值何时不成立。", "条件 例外 限制"),
)
_VALUE_ZH_BARE: tuple[Template, ...] = (
    ("如何设置或更改？", "取值如何设置或更改。", "设置 更改 配置"),
    ("有哪些条件或例外？", "取值何时不成立。", "条件 例外 限制"),
    ("取决于什么？", "什么决定了取值。", "取决 决定"),
)
_EN: dict[AnswerType, tuple[Template, ...]] = {
    AnswerType.DEFINITION: (
        ("How is {s} used?", "What it is for, with an example.", "use used example"),
        ("What conditions or exceptions apply to {s}?", "Where the definition stops.", "unless except only"),
    ),
    AnswerType.LIST: (
        ("What does each of {s} do?", "What each item means.", "each mode option means"),
        ("Which of {s} is the default?", "The one used when none is chosen.", "default"),
    ),
    AnswerType.EXPLANATION: (
        ("Why does {s} happen?", "The reason behind it.", "because reason"),
        ("How can {s} be avoided or changed?", "What can be done about it.", "avoid change option force"),
    ),
    AnswerType.PROCEDURE: (
        ("What must be in place before {s}?", "What it requires.", "requires before first"),
        ("What can go wrong with {s}?", "Errors and pitfalls.", "error fail warning"),
    ),
}
_EN_BARE: dict[AnswerType, tuple[Template, ...]] = {
    AnswerType.VERSION: (
        ("What did it add or change?", "What came with it.", "added changed new"),
        ("What was the case before?", "The state before it.", "before previously earlier"),
        ("What conditions or exceptions apply?", "Where it does not hold.", "unless except only"),
    ),
    AnswerType.DEFINITION: (
        ("How is it used?", "What it is for, with an example.", "use used example"),
        ("What conditions or exceptions apply?", "Where the definition stops.", "unless except only"),
        ("How does it differ from related terms?", "What it is not.", "unlike differs"),
    ),
    AnswerType.LIST: (
        ("What does each of them do?", "What each item means.", "each mode option means"),
        ("Which of them is the default?", "The one used when none is chosen.", "default"),
        ("When is each one used?", "Which fits which need.", "when use"),
    ),
    AnswerType.EXPLANATION: (
        ("Why does this happen?", "The reason behind it.", "because reason"),
        ("How can it be avoided or changed?", "What can be done about it.", "avoid change option force"),
        ("What follows from it?", "Its consequences.", "result consequence"),
    ),
    AnswerType.PROCEDURE: (
        ("What must be in place first?", "What it requires.", "requires before first"),
        ("What can go wrong?", "Errors and pitfalls.", "error fail warning"),
        ("What are the alternatives?", "Other ways to the same end.", "alternative instead"),
    ),
}
_ZH_BARE: dict[AnswerType, tuple[Template, ...]] = {
    AnswerType.VERSION: (
        ("带来了哪些变化？", "随之而来的变化。", "新增 变化"),
        ("此前是什么情况？", "之前的状态。", "此前 以前"),
    ),
    AnswerType.DEFINITION: (
        ("如何使用？", "用途与示例。", "使用 示例"),
        ("有哪些条件或例外？", "定义的边界。", "条件 例外"),
    ),
    AnswerType.LIST: (
        ("各自有什么作用？", "每一项的含义。", "作用 含义"),
        ("哪一个是默认的？", "未指定时使用哪一个。", "默认"),
    ),
    AnswerType.EXPLANATION: (
        ("为什么会这样？", "背后的原因。", "原因"),
        ("如何避免或改变？", "可以怎么做。", "避免 更改"),
    ),
    AnswerType.PROCEDURE: (
        ("需要哪些前提？", "所需的前提。", "前提 要求"),
        ("可能出现什么问题？", "错误与陷阱。", "错误 失败"),
    ),
}
_VALUE_TYPES = frozenset((AnswerType.QUANTITY, AnswerType.LIMIT, AnswerType.NAME, AnswerType.YES_NO))


def facet_templates(answer_type: AnswerType, *, chinese: bool, topic: bool) -> tuple[Template, ...]:
    """The facets of a question of ``answer_type`` (a comparison and an open request have none
    here: they are planned by dimension and by topic)."""
    if answer_type in _VALUE_TYPES:
        if chinese:
            return _VALUE_ZH if topic else _VALUE_ZH_BARE
        return _VALUE_EN if topic else _VALUE_EN_BARE
    if chinese:
        return _ZH_BARE.get(answer_type, ())
    return (_EN if topic else _EN_BARE).get(answer_type, ())


def _frame(text: str) -> re.Pattern[str]:
    parts = [re.escape(part) for part in text.split("{s}")]
    return re.compile("^" + ".+".join(parts) + "$", re.IGNORECASE)


_ALL = [
    *_VALUE_EN,
    *_VALUE_EN_BARE,
    *_VALUE_ZH,
    *_VALUE_ZH_BARE,
    *(t for table in (_EN, _EN_BARE, _ZH_BARE) for ts in table.values() for t in ts),
]
_FRAMES = tuple(_frame(text) for text, _, _ in _ALL)


def is_facet(text: str) -> bool:
    """``text`` is one of the facet sub-questions (as the planner writes them)."""
    text = " ".join(text.split())
    return any(frame.match(text) for frame in _FRAMES)
