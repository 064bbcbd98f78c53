"""The extractive planner's sub-question templates, in English and Chinese.

Each template is (text, rationale, extra query words). ``{s}`` is the question's topic (a noun
phrase), ``{a}``/``{b}`` a comparison's options, ``{c}`` a criterion the question names. Every
table has a form without ``{s}`` for requests whose topic does not read as a noun phrase: "What
are the main limitations and risks?" reads as a person's follow-up; "What are the main limitations
and risks of From 1945-1949 Dick Humbert played ...?" does not.
"""

from __future__ import annotations

Template = tuple[str, str, str]

DESCRIPTIVE_EN: tuple[Template, ...] = (
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
DESCRIPTIVE_EN_BARE: tuple[Template, ...] = (
    ("Which facts and figures bear on this?", "Grounds the report in checkable numbers.", "data statistics"),
    ("What has changed recently?", "What changed lately may overturn older sources.", "latest developments"),
    (
        "What are the main limitations and risks?",
        "A fair picture includes the downsides.",
        "limitations risks",
    ),
    ("What causes and drivers lie behind it?", "Explains why, not only what.", "causes drivers"),
    ("What is expected in the coming years?", "Outlook from sources that forecast.", "outlook forecast"),
)
DESCRIPTIVE_ZH: tuple[Template, ...] = (
    ("{s}有哪些关键事实和数据？", "用可核查的数字支撑报告。", "数据 统计"),
    ("{s}最近有哪些新进展？", "近期变化可能推翻旧的来源。", "最新 进展"),
    ("{s}有哪些主要局限和风险？", "完整的图景包括不利之处。", "风险 局限"),
    ("{s}背后的原因和驱动因素是什么？", "解释为什么，而不仅是什么。", "原因 驱动因素"),
    ("{s}未来几年预计会如何变化？", "来自预测类来源的展望。", "趋势 预测"),
)
DESCRIPTIVE_ZH_BARE: tuple[Template, ...] = (
    ("有哪些关键事实和数据？", "用可核查的数字支撑报告。", "数据 统计"),
    ("最近有哪些新进展？", "近期变化可能推翻旧的来源。", "最新 进展"),
    ("主要的局限和风险是什么？", "完整的图景包括不利之处。", "风险 局限"),
    ("背后的原因和驱动因素是什么？", "解释为什么，而不仅是什么。", "原因 驱动因素"),
    ("未来几年预计会如何变化？", "来自预测类来源的展望。", "趋势 预测"),
)

# A short question about named things: what the sources say of each name ("What is known about
# Dick Humbert?") finds the pages a multi-hop answer runs through.
NAME_EN: Template = ("What is known about {s}?", "The question turns on it; its own pages come first.", "")

# Comparative sub-questions by dimension (the names of ``text.aspects.DIMENSIONS``): the ones the
# sources discuss are asked, in the order the sources favour them.
COMPARATIVE_EN: dict[str, Template] = {
    "cost": (
        "How do {a} and {b} differ in cost?",
        "Cost is usually the first trade-off.",
        "cost pricing price",
    ),
    "performance": (
        "How do {a} and {b} differ in performance?",
        "Performance claims need side-by-side evidence.",
        "performance benchmark efficiency speed",
    ),
    "adoption": (
        "How do {a} and {b} differ in adoption and popularity?",
        "Adoption shows what others chose.",
        "adoption market share usage users",
    ),
    "risks": (
        "How do {a} and {b} differ in risks and limitations?",
        "Each option's weaknesses, compared.",
        "risks limitations drawbacks safety",
    ),
    "benefits": (
        "What advantages does each of {a} and {b} offer?",
        "What each option gives.",
        "advantages benefits",
    ),
    "recent": (
        "What has changed recently for {a} and {b}?",
        "New releases can change the answer.",
        "latest news",
    ),
    "outlook": (
        "How are {a} and {b} expected to develop?",
        "Where each option is heading.",
        "outlook forecast",
    ),
    "evaluation": (
        "What do independent tests say about {a} and {b}?",
        "Independent tests beat vendor claims.",
        "test review evaluation",
    ),
}
COMPARATIVE_EN_GENERAL: tuple[Template, ...] = (
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
CRITERION_EN: Template = ("How do {a} and {b} differ in {c}?", "The question names it.", "{c}")
COMPARATIVE_ZH: dict[str, Template] = {
    "cost": ("{a}和{b}在成本方面有何不同？", "成本通常是首要权衡。", "成本 价格"),
    "performance": ("{a}和{b}在性能方面有何不同？", "性能说法需要并列的证据。", "性能 评测 效率"),
    "adoption": ("{a}和{b}在采用和普及程度方面有何不同？", "采用情况说明别人如何选择。", "市场份额 采用"),
    "risks": ("{a}和{b}在风险和局限方面有何不同？", "比较各自的弱点。", "风险 缺点"),
    "benefits": ("{a}和{b}各有哪些优势？", "各自能带来什么。", "优势 优点"),
    "recent": ("{a}和{b}最近有哪些变化？", "新发布可能改变结论。", "最新 进展"),
    "outlook": ("{a}和{b}未来预计会如何发展？", "各自的发展方向。", "趋势 预测"),
    "evaluation": ("独立评测对{a}和{b}有何结论？", "独立测试胜过厂商宣传。", "评测 测试"),
}
COMPARATIVE_ZH_GENERAL: tuple[Template, ...] = (
    ("{a}和{b}的主要区别是什么？", "先总览，再看细节。", "区别 对比"),
    ("{a}和{b}分别适合哪些场景？", "哪个适合哪种需求。", "适用场景"),
)
CRITERION_ZH: Template = ("{a}和{b}在{c}方面有何不同？", "问题本身点名了这一方面。", "{c}")
# Without sources to tell, a comparison asks about these, in this order.
DEFAULT_DIMENSIONS = ("cost", "performance", "adoption", "risks")

RECOMMENDATION_EN: tuple[Template, ...] = (
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
RECOMMENDATION_EN_BARE: tuple[Template, ...] = (
    ("Which options are there to choose from?", "The choice set comes first.", "options alternatives"),
    ("Which criteria matter most in choosing?", "Criteria make a recommendation checkable.", "criteria"),
    (
        "What does each option cost, and what does it give?",
        "Weighs what each choice gives.",
        "costs benefits",
    ),
    ("What are the risks and limitations of each option?", "A recommendation must name its risks.", "risks"),
    (
        "What do independent evaluations conclude?",
        "Independent tests beat vendor claims.",
        "evaluation review",
    ),
    ("What do experts recommend?", "Expert guidance, with its reasons.", "expert recommendation"),
)
RECOMMENDATION_ZH: tuple[Template, ...] = (
    ("{s}有哪些可选方案？", "先明确可选范围。", "方案 选择"),
    ("在{s}上做决定时最重要的标准是什么？", "标准让建议可以核查。", "标准 要求"),
    ("{s}的成本和收益如何？", "权衡各选项的得失。", "成本 收益"),
    ("{s}有哪些风险和局限？", "建议必须说明风险。", "风险 局限"),
    ("独立评测对{s}有何结论？", "独立测试胜过厂商宣传。", "评测 测试"),
    ("专家对{s}有何建议？", "专家意见及其理由。", "专家 建议"),
)
RECOMMENDATION_ZH_BARE: tuple[Template, ...] = (
    ("有哪些可选方案？", "先明确可选范围。", "方案 选择"),
    ("做决定时最重要的标准是什么？", "标准让建议可以核查。", "标准 要求"),
    ("各方案的成本和收益如何？", "权衡各选项的得失。", "成本 收益"),
    ("各方案有哪些风险和局限？", "建议必须说明风险。", "风险 局限"),
    ("独立评测有何结论？", "独立测试胜过厂商宣传。", "评测 测试"),
    ("专家有何建议？", "专家意见及其理由。", "专家 建议"),
)

# A request's own asks and the aspects it lists.
ASKED_EN, ASKED_ZH = "Asked in the request.", "请求中直接提出的问题。"
TOPIC_EN: Template = ("What is known about {s}?", "Asked in the request.", "")
TOPIC_ZH: Template = ("{s}的情况如何？", "请求中直接提出的问题。", "")
# An English aspect is asked bare: it belongs to the request, not always to the topic's noun phrase
# ("caregiver support" of a request about Parkinson's disease, not "for the warning signs").
ASPECT_EN: Template = ("What is known about {x}?", "The request lists it.", "")
ASPECT_EN_BARE = ASPECT_EN
ASPECT_ZH: Template = ("{s}的{x}如何？", "请求中列出的方面。", "")
ASPECT_ZH_BARE: Template = ("{x}如何？", "请求中列出的方面。", "")
