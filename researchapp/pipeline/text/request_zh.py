"""A Chinese research request: its topic, the clauses that ask something, and the aspects it lists.

"收集整理目前国际综合实力前十的保险公司的相关资料，横向比较各公司的融资情况、信誉度、过往五年的增长
幅度……" is about "国际综合实力前十的保险公司" and lists 融资情况, 信誉度, 过往五年的增长幅度. Clauses that
set the scene ("在当前中国房地产市场低迷的情况下", "我今年五十三岁") are not the topic; clauses with a
question word ("如何", "哪些", "是否", "多少") are asks.
"""

from __future__ import annotations

import re

MAX_TOPIC_CHARS = 24
MIN_ASK_CHARS = 5
MAX_ASK_CHARS = 60
MAX_ASPECT_CHARS = 14

_SENTENCES = re.compile(r"[^。？！?!；;\n]+[。？！?!；;]?")
_LEAD = re.compile(
    r"^(?:(?:然|那么|另外|此外|同时|最后|再就是|其次|首先|并且|而且|以及|或者|或|所以|因此|更进一步|进一步|并)\s*)*"
    r"(?:(?:请问|请你|请帮我|请为我|请|你能否|你能不能|您能否|你可以|帮我|为我|给我|替我|能否|可否|能不能|我需要|我想要|我想|希望|麻烦|"
    r"比较想了解|想了解|"
    r"我想了解|针对)\s*)*"
    r"(?:(?:分析出|评估出|预测出|收集整理|收集|整理一下|整理下|整理|调研一下|调研|研究一下|研究下|分析一下|梳理一下|梳理|总结一下|总结|"
    r"介绍一下|介绍|撰写|写一篇|写一份|提供一份|做一份|做一个|给出|列出|详细分析|深入分析|分析|探讨|论述|评估|"
    r"整合|预测出|预测|分析出|评估出|得出|学习一下|列举|列出|结合)\s*)*"
    r"(?:一份|一篇|一个)?(?:详尽的|详细的|深入的|全面的)?(?:报告|分析报告|研究报告|综述)?\s*[：:，,]?\s*"
)
_QUESTION = re.compile(
    r"有没有|如何|怎样|怎么|哪些|哪个|哪一|哪几|什么|多少|多大|多远|多久|是否|吗|为什么|为何|能否|有何|何种"
)
# A clause that sets the scene rather than naming the topic.
_SCENE = re.compile(
    r"^(?:\S{0,3}\d+\s*年代?(?:至今|以来)?|近\S{0,3}年(?:来|以来)?)$|"
    r"^(?:在|随着|作为|对于|针对|鉴于|由于|我|我们|你|目前|当前|如今|现在|"
    r"全球范围内|国内外|问题|选题|背景|但是|但|而且|以便|还是|比较|如|并|或|用|从|按|以|通过|为了|因为|所以|"
    r"然后|虽然|如果|要|能|会|可以|需要)|这么|那么|、|(?:下|中|里|时|时候|方面|领域|背景下|的情况下|以来|至今)$|[我你您]"
)
# Question words an ask's topic is read without ("房地产行业的动力是什么？" → "房地产行业的动力").
_ASKING = re.compile(
    r"(?:是什么|有哪些|有什么|是多少|有多少|有多大|怎么样|如何|怎样|怎么|是否|能否|多少|多大|什么|吗|呢|？|\?)"
)
_LIST_CUE = re.compile(
    r"(?:包括|包含|比如|例如|譬如|诸如|涵盖|从以下几个维度[^：:]*[：:]|以下几个方面[：:]|维度[：:]|"
    r"比较各\S{0,6}?的|横向比较\S{0,8}?的|需要包括\S{0,6}?的|结构如下[：:])"
)
_ADVERB = re.compile(r"^(?:更|最|很|非常|比较|较为|十分|从以下|以下)")
_LIST_END = re.compile(r"(?:等等|等维度|等方面|等因素|等|以及其他\S*|及其他\S*)$")
_TAILS = re.compile(r"(?:的相关资料|相关资料|的资料|的相关研究|的情况|的现状|等等|等)$")
_BACK_REFERENCE = re.compile(r"^(?:这|那|其|它|该|此|上述|以上)")


_PARENTHESES = re.compile(r"[（(][^（()）]*[)）]")


def _clauses(sentence: str) -> list[str]:
    sentence = _PARENTHESES.sub("", sentence)
    return [c.strip() for c in re.split(r"[，,]", sentence.rstrip("。？！?!；;")) if c.strip()]


def _asks(sentence: str) -> list[str]:
    """Each clause of a sentence that asks something, as a question."""
    asks = []
    for clause in _clauses(sentence):
        clause = _LEAD.sub("", re.sub(r"^[^：:]{0,12}[：:]", "", clause)).strip()
        if (
            MIN_ASK_CHARS <= len(clause) <= MAX_ASK_CHARS
            and _QUESTION.search(clause)
            and not _LIST_CUE.search(clause)
        ):
            asks.append(clause.rstrip("？?") + "？")
    return asks


def _aspects(sentence: str) -> list[str]:
    sentence = _PARENTHESES.sub("", sentence)
    cue = _LIST_CUE.search(sentence)
    if not cue:
        return []
    listed = re.split(r"[。；;？?！!（(]|，并|，以及|并为我|并且|，从而", sentence[cue.end() :])[0]
    listed = _LIST_END.sub("", listed.strip())
    items = [_LIST_END.sub("", item.strip(" ，,、")) for item in re.split(r"[、，,]|以及|及", listed)]
    items = [
        item
        for item in items
        if 2 <= len(item) <= MAX_ASPECT_CHARS and not _QUESTION.search(item) and not _ADVERB.match(item)
    ]
    return items if len(items) >= 2 else []


def _topic(sentences: list[str]) -> str:
    """The first clause that names something: not a scene, a question, a list or a back reference."""
    for sentence in sentences[:2]:
        for clause in _clauses(sentence):
            clause = _LEAD.sub("", re.sub(r"^[^：:]{0,12}[：:]", "", clause)).strip()
            clause = _TAILS.sub("", _LIST_CUE.split(clause)[0].strip())
            clause = re.sub(r"^(?:目前|当前|现在|有关|关于|近几年有关|近年来)", "", clause)
            clause = re.sub(r"[“”\"'「」]", "", clause).strip()
            if len(clause) > MAX_TOPIC_CHARS:
                clause = clause[:MAX_TOPIC_CHARS].rsplit("的", 1)[0]
            if (
                2 <= len(clause) <= MAX_TOPIC_CHARS
                and not _SCENE.search(clause)
                and not _QUESTION.search(clause)
                and not _BACK_REFERENCE.match(clause)
            ):
                return clause
    return ""


def read_chinese(text: str, fallback_topic: str = "") -> tuple[str, tuple[str, ...], tuple[str, ...]]:
    """(topic, asks, aspects) of a Chinese request; the topic is "" when no clause names one."""
    sentences = [s.strip() for s in _SENTENCES.findall(text) if s.strip()]
    asks: list[str] = []
    aspects: list[str] = []
    for sentence in sentences:
        asks += [ask for ask in _asks(sentence) if ask not in asks]
        aspects += [item for item in _aspects(sentence) if item not in aspects]
    asked = [_ASKING.sub("", ask).strip("，, ") for ask in asks]
    from_asks = [
        t
        for t in asked
        if 2 <= len(t) <= MAX_TOPIC_CHARS
        and not _SCENE.search(t)
        and not _BACK_REFERENCE.match(t)
        and not _QUESTION.search(t)
    ]
    topic = (
        _topic(sentences)
        or (from_asks[0] if from_asks else "")
        or (fallback_topic if len(fallback_topic) <= MAX_TOPIC_CHARS else "")
    )
    return topic, tuple(asks), tuple(aspects)
