"""The extractive planner: sub-questions and search queries from templates, no model.

A comparative question gets one sub-question per *dimension of difference* (cost,
performance, ...), each naming every option, so the evidence for each dimension is compared
side by side instead of being collected per option and never set against each other.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from researchapp.pipeline.text import STOPWORDS, cjk_count
from researchapp.pipeline.types import Intent, Plan, PlannedSubQuestion

MAX_SUBQUESTIONS = 6

# --- reading the question ---------------------------------------------------------------------

_QUESTION_LEADS = re.compile(
    r"^(?:(?:please|can you|could you)\s+)?(?:tell me about|explain|describe|summari[sz]e|"
    r"what (?:is|are|was|were|do we know about)|who (?:is|are|was|were)|how (?:do|does|did|is|are|"
    r"much|many|can|could|should)|why (?:do|does|did|is|are)|which (?:is|are)|when (?:did|was|were|is)|"
    r"where (?:is|are|did)|is it|are there|is there|should (?:i|we|you|one)|is|are|does|do|can|"
    r"what|which|who|how|why|when|where)\b\s*",
    re.IGNORECASE,
)
_ARTICLES = re.compile(r"^(?:the|a|an)\s+", re.IGNORECASE)
_ZH_LEADS = re.compile(
    r"^(?:请问|请|介绍一下|介绍|说说|谈谈|分析一下|分析|对比一下|对比|比较一下|比较|推荐一款|推荐一个|推荐一下|推荐|"
    r"我应该选择|我应该|应该选择|应该)+"
)
_ZH_TAILS = re.compile(
    r"(?:是什么|是谁|有哪些|有什么|怎么样|如何|吗|呢|的区别|的差异|的不同|有什么区别|有何区别|有什么不同|"
    r"哪个好|哪个更好|哪个更|哪个|应该选哪个|推荐哪个|怎么选)+$"
)
_END_PUNCT = re.compile(r"[\s?？.。!！]+$")

_RECOMMENDATION_EN = re.compile(
    r"\b(?:should|best|recommend(?:ed|ation|ations)?|worth (?:it|using|buying)|"
    r"which\b.*\b(?:choose|pick|use|select|buy|adopt))\b",
    re.IGNORECASE,
)
_RECOMMENDATION_ZH = re.compile(r"推荐|应该|哪个好|值得|怎么选|选哪个|最好")

_COMPARE_EN = (
    re.compile(r"\bdifferences? between (?P<a>.+?) and (?P<b>.+)", re.IGNORECASE),
    re.compile(r"\bcompar(?:e|ing|ison of|ison between) (?P<a>.+?) (?:and|with|to|against|vs\.?|versus) (?P<b>.+)", re.IGNORECASE),
    re.compile(r"(?P<a>.+?)\s+(?:vs\.?|versus)\s+(?P<b>.+)", re.IGNORECASE),
    re.compile(r"(?P<a>.+?)\s+(?:\w+er|more \w+|less \w+)\s+than\s+(?P<b>.+)", re.IGNORECASE),
)  # fmt: skip
# "A or B" offers a choice only in a question that asks to choose: "Should I use A or B?"
_OR_OPTIONS = re.compile(r"(?P<a>.+?),?\s+or\s+(?P<b>.+)", re.IGNORECASE)
_CHOICE_CUE = re.compile(
    r"^(?:which|should|would|shall|is it better|what is better|what's better)\b|\b(?:better|prefer|choose|pick)\b",
    re.IGNORECASE,
)
# Words that end an option and start the question's own context: "A or B *for* analytics".
_OPTION_TAIL = re.compile(
    r"\s+(?:for|in|on|when|if|as|to|at|with|regarding|over|during|across|after|under|within|among|"
    r"better|cheaper|faster|safer|more|less|which|in terms of)\b.*$",
    re.IGNORECASE,
)
# "good or bad", "yes or no": an "or" that offers no options to compare.
_NOT_OPTIONS = frozenset("good bad better worse true false yes no not more less right wrong up down".split())
_ZH_COMPARE_CUE = re.compile(r"对比|比较|区别|差异|不同|哪个|还是|相比|vs|VS|versus")
_ZH_SPLIT = re.compile(r"还是|和|与|跟|同|vs\.?|VS|versus|对比|相比")
_ZH_B_END = re.compile(r"(?:的|有什么|有何|之间|哪|谁|相比|对比|比较|，|,|在|更).*$")


@dataclass(frozen=True)
class Reading:
    """What the planner understood: language, intent, subject and, if comparative, options."""

    chinese: bool
    intent: Intent
    subject: str
    options: tuple[str, ...]
    context: str  # what a comparison is about beyond its options: "for analytics"
    key_terms: str  # the words that carry the question, for search queries


_LEAD_WORDS = frozenset(
    "please can could tell explain describe what who how why which when where is are does do should".split()
)
_CHOICE_VERBS = re.compile(r"\b(?:use|choose|pick|buy|adopt|learn|between|prefer)\b\s*", re.IGNORECASE)


def _clean_left(text: str) -> str:
    """The option just before "or"/"vs": after the last comma, colon or choosing verb."""
    text = re.split(r"[,:;]\s*", text)[-1]
    text = _CHOICE_VERBS.split(text)[-1]
    if text.split(" ")[0].lower() in _LEAD_WORDS:
        text = _QUESTION_LEADS.sub("", text)
    words = text.split()
    if len(words) > 3:
        # "Which band was formed first The Exies": the trailing name is the option.
        capitalised = [i for i, word in enumerate(words) if i > 0 and word[:1].isupper()]
        start = capitalised[0] if capitalised and capitalised[-1] == len(words) - 1 else len(words) - 3
        while start > 0 and words[start - 1][:1].isupper():
            start -= 1
        words = words[start:]
    return _ARTICLES.sub("", " ".join(words)).strip(" ,;:")


def _clean_right(text: str) -> str:
    text = re.split(r"[,:;]\s*", text)[0]
    return _ARTICLES.sub("", _END_PUNCT.sub("", text)).strip(" ,;:")


def _english_options(question: str) -> tuple[tuple[str, ...], str]:
    body = _END_PUNCT.sub("", question)
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
        if any(word in _NOT_OPTIONS for word in edge_words) or any(len(o.split()) > 6 for o in options):
            continue
        return options, context
    return (), ""


def _chinese_options(question: str) -> tuple[tuple[str, ...], str]:
    """Options and the context after them: "苹果和三星手机的电池续航" → (苹果, 三星手机), 电池续航."""
    if not _ZH_COMPARE_CUE.search(question):
        return (), ""
    body = _ZH_LEADS.sub("", _END_PUNCT.sub("", question.strip()))
    split = _ZH_SPLIT.search(body)
    if not split:
        return (), ""
    left = body[: split.start()].strip(" ，,")
    rest = body[split.end() :]
    end = _ZH_B_END.search(rest)
    right = (rest[: end.start()] if end else rest).strip(" ，,")
    context = ""
    if end and end.group(0).startswith("的") and not _ZH_TAILS.fullmatch(end.group(0)):
        context = _ZH_TAILS.sub("", end.group(0)[1:]).strip(" ，,")
    if not left or not right or left == right:
        return (), ""
    return (left, right), context


def _english_key_terms(text: str) -> str:
    words = re.findall(r"[^\W_]+(?:[-'.][^\W_]+)*", text)
    kept = [w for w in words if w.lower() not in STOPWORDS and w.lower() not in _QUERY_NOISE]
    return " ".join(dict.fromkeys(kept))


_QUERY_NOISE = frozenset(
    """tell explain describe know please best recommend recommended recommendation choose pick
    compare comparison difference differences between better worse versus vs""".split()
)


_MODAL_CLAUSE = re.compile(
    r"\s*\b(?:should|would|could|can|do|does|must|shall)\s+(?:i|we|you|one|they)\s+\w+", re.IGNORECASE
)
_SUPERLATIVE = re.compile(r"\b(?:the\s+)?(?:best|most recommended|top)\s+", re.IGNORECASE)
_ASKS_TO_DECIDE = re.compile(r"^(?:should|shall|must|can)\s+(?:i|we|you|one|they)\s+", re.IGNORECASE)


def _gerund(verb: str) -> str:
    """ "adopt" → "adopting": "Should we adopt X?" is about *adopting X*, which templates can use."""
    lower = verb.lower()
    if lower.endswith("ing"):
        return verb
    if lower.endswith("e") and not lower.endswith(("ee", "ye", "oe")):
        return verb[:-1] + "ing"
    return verb + "ing"


def _subject(question: str, chinese: bool) -> str:
    body = _END_PUNCT.sub("", question.strip())
    if chinese:
        return _ZH_TAILS.sub("", _ZH_LEADS.sub("", body)).strip(" ，,") or body
    decide = _ASKS_TO_DECIDE.match(body)
    if decide:
        verb, _, rest = body[decide.end() :].partition(" ")
        stripped = f"{_gerund(verb)} {rest}".strip()
    else:
        stripped = _QUESTION_LEADS.sub("", body, count=1)
    stripped = _MODAL_CLAUSE.sub("", stripped)
    stripped = _ARTICLES.sub("", _SUPERLATIVE.sub("", stripped)).strip()
    return stripped or body


def read_question(question: str) -> Reading:
    text = " ".join(question.split())
    if not text:
        raise ValueError("The research question is empty: type a question to plan.")
    chinese = cjk_count(text) >= 2
    if chinese:
        options, context = _chinese_options(text)
        recommends = bool(_RECOMMENDATION_ZH.search(text))
    else:
        options, context = _english_options(text)
        recommends = bool(_RECOMMENDATION_EN.search(text))
    if options:
        intent = Intent.COMPARATIVE
    elif recommends:
        intent = Intent.RECOMMENDATION
    else:
        intent = Intent.DESCRIPTIVE
    subject = _subject(text, chinese)
    key_terms = subject if chinese else (_english_key_terms(subject) or _english_key_terms(text) or text)
    return Reading(chinese, intent, subject, options, context, key_terms)


# --- templates --------------------------------------------------------------------------------

# (sub-question template, rationale, extra query words). {s} = subject, {a}/{b} = options.
_Template = tuple[str, str, str]

_DESCRIPTIVE_EN: tuple[_Template, ...] = (
    ("What are the key facts and figures about {s}?", "Grounds the report in checkable numbers.", "facts figures statistics"),
    ("What are the recent developments in {s}?", "What changed lately may overturn older sources.", "latest news developments"),
    ("What are the main limitations and risks of {s}?", "A fair picture includes the downsides.", "limitations risks criticism"),
    ("What are the causes and drivers behind {s}?", "Explains why, not only what.", "causes drivers reasons"),
    ("How is {s} expected to change in the coming years?", "Outlook from sources that forecast.", "outlook forecast future"),
)  # fmt: skip
_DESCRIPTIVE_ZH: tuple[_Template, ...] = (
    ("{s}有哪些关键事实和数据？", "用可核查的数字支撑报告。", "数据 统计"),
    ("{s}最近有哪些新进展？", "近期变化可能推翻旧的来源。", "最新 进展"),
    ("{s}有哪些主要局限和风险？", "完整的图景包括不利之处。", "风险 局限"),
    ("{s}背后的原因和驱动因素是什么？", "解释为什么，而不仅是什么。", "原因 驱动因素"),
    ("{s}未来几年预计会如何变化？", "来自预测类来源的展望。", "趋势 预测"),
)  # fmt: skip
_COMPARATIVE_EN: tuple[_Template, ...] = (
    ("How do {a} and {b} differ in cost?", "Cost is usually the first trade-off.", "cost pricing"),
    ("How do {a} and {b} differ in performance?", "Performance claims need side-by-side evidence.", "performance benchmark"),
    ("How do {a} and {b} differ in adoption and popularity?", "Adoption shows what others chose.", "adoption market share usage"),
    ("How do {a} and {b} differ in risks and limitations?", "Each option's weaknesses, compared.", "risks limitations drawbacks"),
    ("What are the main differences between {a} and {b}?", "An overview before the details.", "differences comparison"),
    ("For which use cases is {a} better suited than {b}, and vice versa?", "Which fits which need.", "use cases when to use"),
)  # fmt: skip
_COMPARATIVE_ZH: tuple[_Template, ...] = (
    ("{a}和{b}在成本方面有何不同？", "成本通常是首要权衡。", "成本 价格"),
    ("{a}和{b}在性能方面有何不同？", "性能说法需要并列的证据。", "性能 评测"),
    ("{a}和{b}在采用和普及程度方面有何不同？", "采用情况说明别人如何选择。", "市场份额 采用"),
    ("{a}和{b}在风险和局限方面有何不同？", "比较各自的弱点。", "风险 缺点"),
    ("{a}和{b}的主要区别是什么？", "先总览，再看细节。", "区别 对比"),
    ("{a}和{b}分别适合哪些场景？", "哪个适合哪种需求。", "适用场景"),
)  # fmt: skip
_RECOMMENDATION_EN_T: tuple[_Template, ...] = (
    ("What options are available for {s}?", "The choice set comes first.", "options alternatives"),
    ("What criteria matter most when deciding on {s}?", "Criteria make a recommendation checkable.", "criteria requirements"),
    ("What are the costs and benefits of {s}?", "Weighs what each choice gives and takes.", "costs benefits"),
    ("What are the risks and limitations of {s}?", "A recommendation must name its risks.", "risks limitations"),
    ("What do independent evaluations conclude about {s}?", "Independent tests beat vendor claims.", "evaluation benchmark review"),
    ("What do experts recommend regarding {s}?", "Expert guidance, with its reasons.", "expert recommendation guidance"),
)  # fmt: skip
_RECOMMENDATION_ZH_T: tuple[_Template, ...] = (
    ("{s}有哪些可选方案？", "先明确可选范围。", "方案 选择"),
    ("在{s}上做决定时最重要的标准是什么？", "标准让建议可以核查。", "标准 要求"),
    ("{s}的成本和收益如何？", "权衡各选项的得失。", "成本 收益"),
    ("{s}有哪些风险和局限？", "建议必须说明风险。", "风险 局限"),
    ("独立评测对{s}有何结论？", "独立测试胜过厂商宣传。", "评测 测试"),
    ("专家对{s}有何建议？", "专家意见及其理由。", "专家 建议"),
)  # fmt: skip

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
    context = reading.context if reading.chinese else _english_key_terms(reading.context)
    first = " ".join(part for part in (core, context, extra) if part)
    candidates = [first, " ".join(part for part in (core, context) if part)]
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
    if reading.intent is Intent.COMPARATIVE:
        templates = _COMPARATIVE_ZH if reading.chinese else _COMPARATIVE_EN
        chosen = [(_fill(text, reading), why, extra) for text, why, extra in templates[: 6 if deep else 4]]
    else:
        if reading.intent is Intent.RECOMMENDATION:
            templates = _RECOMMENDATION_ZH_T if reading.chinese else _RECOMMENDATION_EN_T
        else:
            templates = _DESCRIPTIVE_ZH if reading.chinese else _DESCRIPTIVE_EN
        lead = "用户提出的原问题。" if reading.chinese else "The question as asked."
        chosen = [(" ".join(question.split()), lead, "")]
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
