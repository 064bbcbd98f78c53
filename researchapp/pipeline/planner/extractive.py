"""The extractive planner: sub-questions and search queries from templates, no model.

A comparative question gets one sub-question per *dimension of difference* (cost,
performance, ...), each naming every option, so the evidence for each dimension is compared
side by side instead of being collected per option and never set against each other.
"""

from __future__ import annotations

import re

from researchapp.core.enums import Intent
from researchapp.pipeline.text.question import (
    Reading,
    asks_its_own_criterion,
    english_key_terms,
    read_question,
)
from researchapp.pipeline.text.tokens import STOPWORDS, cjk_count
from researchapp.pipeline.values import Plan, PlannedSubQuestion, UsageLog

MAX_SUBQUESTIONS = 6

# --- templates --------------------------------------------------------------------------------

# (sub-question template, rationale, extra query words). {s} = subject, {a}/{b} = options.
_Template = tuple[str, str, str]

_DESCRIPTIVE_EN: tuple[_Template, ...] = (
    (
        "What are the key facts and figures about {s}?",
        "Grounds the report in checkable numbers.",
        "facts figures statistics",
    ),
    (
        "What are the recent developments in {s}?",
        "What changed lately may overturn older sources.",
        "latest news developments",
    ),
    (
        "What are the main limitations and risks of {s}?",
        "A fair picture includes the downsides.",
        "limitations risks criticism",
    ),
    ("What are the causes and drivers behind {s}?", "Explains why, not only what.", "causes drivers reasons"),
    (
        "How is {s} expected to change in the coming years?",
        "Outlook from sources that forecast.",
        "outlook forecast future",
    ),
)
_DESCRIPTIVE_ZH: tuple[_Template, ...] = (
    ("{s}有哪些关键事实和数据？", "用可核查的数字支撑报告。", "数据 统计"),
    ("{s}最近有哪些新进展？", "近期变化可能推翻旧的来源。", "最新 进展"),
    ("{s}有哪些主要局限和风险？", "完整的图景包括不利之处。", "风险 局限"),
    ("{s}背后的原因和驱动因素是什么？", "解释为什么，而不仅是什么。", "原因 驱动因素"),
    ("{s}未来几年预计会如何变化？", "来自预测类来源的展望。", "趋势 预测"),
)
_COMPARATIVE_EN: tuple[_Template, ...] = (
    ("How do {a} and {b} differ in cost?", "Cost is usually the first trade-off.", "cost pricing price"),
    (
        "How do {a} and {b} differ in performance?",
        "Performance claims need side-by-side evidence.",
        "performance benchmark efficiency speed",
    ),
    (
        "How do {a} and {b} differ in adoption and popularity?",
        "Adoption shows what others chose.",
        "adoption market share usage users",
    ),
    (
        "How do {a} and {b} differ in risks and limitations?",
        "Each option's weaknesses, compared.",
        "risks limitations drawbacks safety",
    ),
    (
        "What are the main differences between {a} and {b}?",
        "An overview before the details.",
        "differences comparison",
    ),
    (
        "For which use cases is {a} better suited than {b}, and vice versa?",
        "Which fits which need.",
        "use cases when to use",
    ),
)
_COMPARATIVE_ZH: tuple[_Template, ...] = (
    ("{a}和{b}在成本方面有何不同？", "成本通常是首要权衡。", "成本 价格"),
    ("{a}和{b}在性能方面有何不同？", "性能说法需要并列的证据。", "性能 评测 效率"),
    ("{a}和{b}在采用和普及程度方面有何不同？", "采用情况说明别人如何选择。", "市场份额 采用"),
    ("{a}和{b}在风险和局限方面有何不同？", "比较各自的弱点。", "风险 缺点"),
    ("{a}和{b}的主要区别是什么？", "先总览，再看细节。", "区别 对比"),
    ("{a}和{b}分别适合哪些场景？", "哪个适合哪种需求。", "适用场景"),
)
_RECOMMENDATION_EN_T: tuple[_Template, ...] = (
    ("What options are available for {s}?", "The choice set comes first.", "options alternatives"),
    (
        "What criteria matter most when deciding on {s}?",
        "Criteria make a recommendation checkable.",
        "criteria requirements",
    ),
    ("What are the costs and benefits of {s}?", "Weighs what each choice gives and takes.", "costs benefits"),
    (
        "What are the risks and limitations of {s}?",
        "A recommendation must name its risks.",
        "risks limitations",
    ),
    (
        "What do independent evaluations conclude about {s}?",
        "Independent tests beat vendor claims.",
        "evaluation benchmark review",
    ),
    (
        "What do experts recommend regarding {s}?",
        "Expert guidance, with its reasons.",
        "expert recommendation guidance",
    ),
)
_RECOMMENDATION_ZH_T: tuple[_Template, ...] = (
    ("{s}有哪些可选方案？", "先明确可选范围。", "方案 选择"),
    ("在{s}上做决定时最重要的标准是什么？", "标准让建议可以核查。", "标准 要求"),
    ("{s}的成本和收益如何？", "权衡各选项的得失。", "成本 收益"),
    ("{s}有哪些风险和局限？", "建议必须说明风险。", "风险 局限"),
    ("独立评测对{s}有何结论？", "独立测试胜过厂商宣传。", "评测 测试"),
    ("专家对{s}有何建议？", "专家意见及其理由。", "专家 建议"),
)

_FEEDBACK_NOISE = frozenset(
    """please also more less focus include including add cover covering consider need needs needed
    missing lacks lack want wanted like would could should plan question questions sub subquestion
    subquestions query queries search too much many instead rather better make sure look into
    about regarding""".split()
)


def _feedback_terms(feedback: str, reading: Reading) -> str:
    if cjk_count(feedback) >= 2:
        cleaned = re.sub(
            r"请|需要|也|更多|更|关注|重点|补充|增加|加上|考虑|一下|关于|方面|问题|的|。|，|！|？",
            " ",
            feedback,
        )
        return " ".join(cleaned.split())
    known = {w.lower() for w in re.findall(r"[^\W_]+", reading.key_terms)}
    words = re.findall(r"[^\W_]+(?:[-'][^\W_]+)*", feedback)
    kept = [w for w in words if w.lower() not in STOPWORDS | _FEEDBACK_NOISE and w.lower() not in known]
    return " ".join(dict.fromkeys(kept))


def _fill(template: str, reading: Reading) -> str:
    options = reading.options
    a = options[0] if options else reading.subject
    b = " and ".join(options[1:]) if not reading.chinese else "和".join(options[1:])
    text = template.format(s=reading.subject, a=a, b=b)
    if reading.context and not reading.chinese and "{s}" not in template:
        text = f"{text[:-1]} {reading.context}?"
    return text


def _queries(reading: Reading, extra: str, depth: str, feedback_terms: str) -> tuple[str, ...]:
    joiner = " " if reading.chinese else " vs "
    core = joiner.join(reading.options) if reading.options else reading.key_terms
    context = reading.context if reading.chinese else english_key_terms(reading.context)
    first = " ".join(part for part in (core, context, extra) if part)
    candidates = [first, " ".join(part for part in (core, context) if part)]
    if len(reading.options) > 1 and extra and not feedback_terms:
        # A side-by-side query finds comparison pages; a page about one option alone (its
        # maker's launch note, a review of it) is found by a query naming that option.
        candidates[1:] = [
            " ".join(part for part in (option, context, extra) if part) for option in reading.options
        ]
    if depth == "deep":
        candidates.append(f"{core} {extra.split(' ')[0]} {'研究' if reading.chinese else 'study'}")
    if feedback_terms:
        candidates.insert(1, f"{core} {feedback_terms}")
    return tuple(dict.fromkeys(" ".join(q.split()) for q in candidates))[:3]


def plan_extractive(question: str, *, depth: str = "quick", feedback: str = "") -> Plan:
    """A plan of 3–6 sub-questions, each with 1–3 queries that carry the question's key terms.

    1. Read the question: language, intent, subject, options of a comparison.
    2. Take the intent's templates: the question itself first unless comparative, then 3 more
       dimensions for "quick" and 5 for "deep".
    3. Turn an analyst's feedback into its own sub-question and into extra query words.
    """
    reading = read_question(question)
    deep = depth == "deep"
    lead = "用户提出的原问题。" if reading.chinese else "The question as asked."
    as_asked = (" ".join(question.split()), lead, "")
    if reading.intent is Intent.COMPARATIVE:
        templates = _COMPARATIVE_ZH if reading.chinese else _COMPARATIVE_EN
        # "Which band was formed first, A or B?" asks one thing no dimension covers: ask it too.
        own = [as_asked] if asks_its_own_criterion(question, reading) else []
        count = min(6 if deep else 4, MAX_SUBQUESTIONS - len(own))
        chosen = own + [(_fill(text, reading), why, extra) for text, why, extra in templates[:count]]
    else:
        if reading.intent is Intent.RECOMMENDATION:
            templates = _RECOMMENDATION_ZH_T if reading.chinese else _RECOMMENDATION_EN_T
        else:
            templates = _DESCRIPTIVE_ZH if reading.chinese else _DESCRIPTIVE_EN
        chosen = [as_asked]
        chosen += [(_fill(text, reading), why, extra) for text, why, extra in templates[: 5 if deep else 3]]

    feedback_terms = _feedback_terms(feedback, reading) if feedback.strip() else ""
    subquestions = [
        PlannedSubQuestion(text=text, rationale=why, queries=_queries(reading, extra, depth, feedback_terms))
        for text, why, extra in chosen
    ]
    if feedback_terms:
        if reading.chinese:
            text = f"关于{_subject_phrase(reading)}，{feedback_terms}方面的证据是什么？"
            rationale = f"分析员的反馈：{feedback.strip()}"
        else:
            text = f"What does the evidence say about {feedback_terms} for {_subject_phrase(reading)}?"
            rationale = f"Asked for in the analyst's feedback: {feedback.strip()}"
        core = " ".join(reading.options) if reading.options else reading.key_terms
        queries = (f"{core} {feedback_terms}", feedback_terms)
        subquestions = subquestions[: MAX_SUBQUESTIONS - 1]
        subquestions.append(PlannedSubQuestion(text=text, rationale=rationale, queries=queries))
    return Plan(intent=reading.intent, subquestions=tuple(subquestions))


def _subject_phrase(reading: Reading) -> str:
    if reading.options:
        return ("和" if reading.chinese else " and ").join(reading.options)
    return reading.subject


class ExtractivePlanner:
    """``Planner`` without a model: the same question always gives the same plan."""

    name = "extractive"

    def plan(self, question: str, *, depth: str, feedback: str = "", usage: UsageLog) -> Plan:
        return plan_extractive(question, depth=depth, feedback=feedback)
