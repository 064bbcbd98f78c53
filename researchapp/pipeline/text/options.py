"""The options a comparative question sets against each other, and the context after them.

"Should I use PostgreSQL or MySQL for analytics?" compares PostgreSQL and MySQL, for analytics;
"苹果和三星手机的电池续航" compares 苹果 and 三星手机 on 电池续航. ``english_options`` and
``chinese_options`` read them; ``text.question`` decides with them whether a question compares.
"""

from __future__ import annotations

import re

QUESTION_LEADS = re.compile(
    r"^(?:(?:please|can you|could you)\s+)?(?:tell me about|explain|describe|summari[sz]e|"
    r"what (?:is|are|was|were|do we know about)|who (?:is|are|was|were)|how (?:do|does|did|is|are|"
    r"much|many|can|could|should)|why (?:do|does|did|is|are)|which (?:is|are)|when (?:did|was|were|is)|"
    r"where (?:is|are|did)|is it|are there|is there|should (?:i|we|you|one)|is|are|does|do|can|"
    r"what|which|who|how|why|when|where)\b\s*",
    re.IGNORECASE,
)
ARTICLES = re.compile(r"^(?:the|a|an)\s+", re.IGNORECASE)
ZH_LEADS = re.compile(
    r"^(?:请问|请|介绍一下|介绍|说说|谈谈|分析一下|分析|对比一下|对比|比较一下|比较|推荐一款|推荐一个|推荐一下|推荐|"
    r"我应该选择|我应该|应该选择|应该)+"
)
ZH_TAILS = re.compile(
    r"(?:是什么|是谁|有哪些|有什么|怎么样|如何|吗|呢|的区别|的差异|的不同|有什么区别|有何区别|有什么不同|"
    r"哪个好|哪个更好|哪个更|哪个|应该选哪个|推荐哪个|怎么选)+$"
)
END_PUNCT = re.compile(r"[\s?？.。!！]+$")

_COMPARE_EN = (
    re.compile(r"\bdifferences? between (?P<a>.+?) and (?P<b>.+)", re.IGNORECASE),
    re.compile(
        r"\bcompar(?:e|ing|ison of|ison between) (?P<a>.+?) (?:and|with|to|against|vs\.?|versus) (?P<b>.+)",
        re.IGNORECASE,
    ),
    re.compile(r"(?P<a>.+?)\s+(?:vs\.?|versus)\s+(?P<b>.+)", re.IGNORECASE),
    # "Are Christopher Nolan and Sathish Kalathil both film directors?"
    re.compile(r"^(?i:are|were|is|was|do|did|have|had)\s+(?P<a>.+?)\s+and\s+(?P<b>.+?)\s+(?i:both)\b"),
    # "Are both magazines, the Woman's Viewpoint and Pick Me Up, British?"
    re.compile(
        r"^(?i:are|were|is|was|do|did|have|had)\s+both\s+(?P<a>.+?)\s+and\s+(?P<b>[A-Z0-9][^,]*?)"
        r"(?=,|\s+(?!(?:of|the|de|and)\b)[a-z]|$)"
    ),
    re.compile(r"(?P<a>.+?)\s+(?:\w+er|more \w+|less \w+)\s+than\s+(?P<b>.+)", re.IGNORECASE),
)  # fmt: skip
# "A or B" offers a choice only in a question that asks to choose: "Should I use A or B?"
_OR_OPTIONS = re.compile(r"(?P<a>.+?),?\s+or\s+(?P<b>.+)", re.IGNORECASE)
_CHOICE_CUE = re.compile(
    r"^(?:which|should|would|shall|is it better|what is better|what's better)\b"
    r"|^who\s+(?:is|was|are|were)\s+(?:the\s+)?(?:\w+est|older|younger|first|last)\b"
    r"|\b(?:better|prefer|choose|pick)\b",
    re.IGNORECASE,
)
# Words that end an option and start the question's own context: "A or B *for* analytics".
_OPTION_TAIL = re.compile(
    r"\s+(?:for|in|on|when|if|as|to|at|with|regarding|over|during|across|after|under|within|among|"
    r"better|cheaper|faster|safer|more|less|which|in terms of)\b.*$",
    re.IGNORECASE,
)
# "good or bad", "yes or no": an "or" that offers no options to compare.
_NOT_OPTIONS = frozenset(
    """good bad better worse true false yes no not more less right wrong up down strengths weaknesses
    pros cons advantages disadvantages benefits drawbacks risks opportunities differences similarities
    connections these those their its this""".split()
)
_ZH_COMPARE_CUE = re.compile(r"对比|比较|区别|差异|不同|哪个|还是|相比|vs|VS|versus")
_ZH_SPLIT = re.compile(r"还是|和|与|跟|同|vs\.?|VS|versus|对比|相比")
_ZH_B_END = re.compile(r"(?:的|有什么|有何|之间|哪|谁|相比|对比|比较|，|,|在|更).*$")


LEAD_WORDS = frozenset(
    "please can could tell explain describe what who how why which when where is are does do should".split()
)
_CHOICE_VERBS = re.compile(r"\b(?:use|choose|pick|buy|adopt|learn|between|prefer)\b\s*", re.IGNORECASE)


def _clean_left(text: str) -> str:
    """The option just before "or"/"vs": after the last comma, colon or choosing verb."""
    text = re.split(r"[,:;]\s*", text)[-1]
    text = _CHOICE_VERBS.split(text)[-1]
    if text.split(" ")[0].lower() in LEAD_WORDS:
        text = QUESTION_LEADS.sub("", text)
    words = text.split()
    if len(words) > 3:
        # "Which band was formed first The Exies": the trailing name is the option.
        capitalised = [i for i, word in enumerate(words) if i > 0 and word[:1].isupper()]
        start = capitalised[0] if capitalised and capitalised[-1] == len(words) - 1 else len(words) - 3
        while start > 0 and words[start - 1][:1].isupper():
            start -= 1
        words = words[start:]
    return ARTICLES.sub("", " ".join(words)).strip(" ,;:")


def _clean_right(text: str) -> str:
    text = re.split(r"[,:;]\s*", text)[0]
    return ARTICLES.sub("", END_PUNCT.sub("", text)).strip(" ,;:")


def english_options(question: str) -> tuple[tuple[str, ...], str]:
    body = END_PUNCT.sub("", question)
    patterns = _COMPARE_EN + ((_OR_OPTIONS,) if _CHOICE_CUE.search(body) else ())
    for pattern in patterns:
        match = pattern.search(body)
        if not match:
            continue
        right = match.group("b")
        context_match = _OPTION_TAIL.search(right)
        context = context_match.group(0).strip() if context_match else ""
        right = right[: context_match.start()] if context_match else right
        options = (_clean_left(match.group("a")), _clean_right(right))
        if not all(options) or options[0].lower() == options[1].lower():
            continue
        edge_words = options[0].lower().split()[-1:] + options[1].lower().split()[:1]
        back = any(
            word in ("these", "those", "their", "its", "this") for o in options for word in o.lower().split()
        )
        if (
            back
            or any(word in _NOT_OPTIONS for word in edge_words)
            or any(len(o.split()) > 6 for o in options)
        ):
            continue
        return options, context
    return (), ""


def chinese_options(question: str) -> tuple[tuple[str, ...], str]:
    """Options and the context after them: "苹果和三星手机的电池续航" → (苹果, 三星手机), 电池续航."""
    if not _ZH_COMPARE_CUE.search(question):
        return (), ""
    body = ZH_LEADS.sub("", END_PUNCT.sub("", question.strip()))
    split = _ZH_SPLIT.search(body)
    if not split:
        return (), ""
    left = body[: split.start()].strip(" ，,")
    rest = body[split.end() :]
    end = _ZH_B_END.search(rest)
    right = (rest[: end.start()] if end else rest).strip(" ，,")
    context = ""
    if end and end.group(0).startswith("的") and not ZH_TAILS.fullmatch(end.group(0)):
        context = ZH_TAILS.sub("", end.group(0)[1:]).strip(" ，,")
    if not left or not right or left == right:
        return (), ""
    return (left, right), context
