"""The report's own words (headings, labels, notes) in the report's language.

A report is written in the language of its question: a Chinese question's report has Chinese
headings and labels in its page, its PDF and its Markdown, whatever language the reader's UI is in
(the page around the report follows the UI). ``[证据不足]`` is written verbatim in every language.
Both the Markdown writers and the templates (through ``exports.report.Report.labels``) read this
table, so every format says the same thing.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Protocol

from researchapp.pipeline.text.tokens import cjk_count

ENGLISH, CHINESE = "en", "zh-Hans"


def report_language(title: str) -> str:
    """Simplified Chinese for a question in Chinese (two CJK characters or more), English otherwise."""
    return CHINESE if cjk_count(title) >= 2 else ENGLISH


class _Decided(Protocol):
    # Read-only, as the frozen ``Decision`` value has them.
    @property
    def resolution(self) -> str: ...
    @property
    def by(self) -> str: ...
    @property
    def at(self) -> str: ...
    @property
    def note(self) -> str: ...


@dataclass(frozen=True)
class Labels:
    language: str
    answer: str
    key_findings: str
    summary_line: str
    comparison: str
    dimension: str
    disputed: str
    to_verify: str
    hypotheses: str
    computed: str
    computed_line: str
    method: str
    references: str
    appendix: str
    appendix_short: str  # in the table of contents
    contents: str
    provenance: str
    ledger_line: str
    searched: str
    nothing_searched: str
    no_close_passage: str
    no_passage_for_hypothesis: str
    supports_if: str
    refutes_if: str
    decision: str
    reason: str
    result: str
    code: str
    sources_opened: str
    independent_sources: str
    rounds: str
    search: str
    engine: str
    tokens: str
    note: str
    accessed: str
    claimed_address: str  # a corpus document's URL: what its corpus file says, not opened
    characters: str
    relevance: str
    by: str  # "by {who}"
    auto_approved: str
    no_analyst: str
    # the title block, the PDF's footer and what stands in for a quote the ledger lacks
    task: str
    status: str
    written: str
    task_version: str  # "{task}, report version {version}"
    title_line: str  # the Markdown's: "Task {task}, report v{version}, {status}."
    approved_by: str  # "approved by {who} on {when} UTC"
    not_approved: str  # "{status} (not approved)"
    auto_approval: str
    written_by: str  # "{when} UTC by the {engine} writer, from {quotes} quoted passages of {sources} sources"
    footer: str  # "Research desk · task {task} · report v{version}"
    invented_sources: str
    not_in_ledger: str
    not_in_this_ledger: str
    answer_is: str = "Answer"  # before an answer span: "Answer: 1,000,000,000 — <the sentence>"
    not_stated: str = "The sources do not state"
    answered_above: str = "Answered above"
    comment_response: str = "About the comment on the previous version"
    roles: Mapping[str, str] = field(default_factory=dict)
    notes: Mapping[str, str] = field(default_factory=dict)  # English note → this language's
    decisions: Mapping[str, str] = field(default_factory=dict)
    engines: Mapping[str, str] = field(default_factory=dict)  # engine and search codes → names

    def engine_name(self, code: str) -> str:
        """An engine or a search provider ("extractive", "local") as this language names it."""
        return self.engines.get(code, code)

    def role(self, role: str) -> str:
        return self.roles.get(role, role.capitalize())

    def note_text(self, note: str) -> str:
        """A note the writer stored in English (``NO_CLAIMS_LINE``, ...) in this language."""
        return self.notes.get(note, note)

    def decision_summary(self, decision: _Decided, *, auto_note: str = "auto-approved") -> str:
        """ "one side picked (by analyst, 2025-06-01 10:12 UTC)": the decision without its reason."""
        what = self.decisions.get(decision.resolution, decision.resolution)
        when = f"{decision.at[:16].replace('T', ' ')} UTC" if decision.at else ""
        # A gate passed with --auto-approve decided by itself, and says so.
        auto = not decision.by and decision.note == auto_note
        if decision.by:
            by = self.by.format(who=decision.by)
        else:
            by = self.auto_approved if auto else self.no_analyst if decision.resolution else ""
        who = ", ".join(part for part in (by, when) if part)
        return f"{what} ({who})" if who else what


# The notes the writer stores on a section without claims (``writer.render``), in English.
NO_CLAIMS_NOTE = "No supported finding for this sub-question."
DISPUTED_SECTION_NOTE = "Sources disagree on this sub-question: see Disputed findings."
GAP_SECTION_NOTE = "Too little evidence to state anything: see To verify."
STATED_ABOVE_NOTE = "What the sources say on this sub-question is stated in an earlier section."
WEAK_SECTION_NOTE = (
    "The passages found for this sub-question hold no sentence that states an answer, so the report "
    "states nothing for it."
)
# The notice at the top of a report written from the invented demo corpus.
DEMO_NOTICE = (
    "The sources of this report are an invented demo corpus: its companies, products, figures and web "
    "sites do not exist. Do not act on it."
)

EN = Labels(
    language=ENGLISH,
    answer="Answer",
    key_findings="Key findings",
    summary_line="The first finding of each section below.",
    comparison="Comparison",
    dimension="Dimension",
    disputed="Disputed findings",
    to_verify="To verify",
    hypotheses="Hypotheses tested",
    computed="Computed figures",
    computed_line=(
        "Computed in a sandbox from numbers of the quoted passages; each input was checked against its quote."
    ),
    method="Method",
    references="References",
    appendix="Appendix: every cited quote",
    appendix_short="Appendix",
    contents="Contents",
    provenance=(
        "This report was written from verbatim quotes of stored sources: every [E…] marker points at "
        "a quoted passage listed under References."
    ),
    ledger_line=(
        "Each quote is the exact text snapshot[start:end] of the stored source snapshot "
        "whose SHA-256 is given."
    ),
    searched="Searched",
    nothing_searched="no search recorded",
    no_close_passage="No passage came close.",
    no_passage_for_hypothesis="No passage found on either side yet.",
    supports_if="Would support it",
    refutes_if="Would refute it",
    decision="Decision",
    reason="Reason",
    result="Result",
    code="Code",
    sources_opened="Sources opened",
    independent_sources="Independent sources",
    rounds="Rounds of research",
    search="Search",
    engine="Engine",
    tokens="Model tokens (in / out)",
    note="Note",
    accessed="accessed",
    claimed_address="address claimed by the corpus, not verified",
    characters="characters",
    relevance="relevance",
    by="by {who}",
    auto_approved="auto-approved",
    no_analyst="by no analyst named",
    task="Task",
    status="Status",
    written="Written",
    task_version="{task}, report version {version}",
    title_line="Task {task}, report v{version}, {status}.",
    approved_by="approved by {who} on {when} UTC",
    not_approved="{status} (not approved)",
    auto_approval="auto-approval",
    written_by="{when} UTC by the {engine} writer, from {quotes} quoted passages of {sources} sources",
    footer="Research desk · task {task} · report v{version}",
    invented_sources="Invented sources.",
    not_in_ledger="not in the ledger",
    not_in_this_ledger="Not in this report’s ledger",
    engines={
        "extractive": "extractive",
        "openai": "OpenAI-compatible",
        "local": "local corpus",
        "tavily": "Tavily",
    },
    roles={
        "supports": "Says so",
        "contradicts": "Disagrees",
        "kept": "Kept",
        "set aside": "Set aside",
        "closest": "Closest passage",
        "for": "For",
        "against": "Against",
        "read from": "Read from",
    },
    decisions={
        "picked": "one side picked",
        "disputed": "kept as disputed",
        "gap": "kept as a point to verify",
        "accepted": "accepted",
        "rejected": "rejected",
        "open": "kept open",
        "": "not reviewed by an analyst",
    },
)

ZH = Labels(
    language=CHINESE,
    answer="回答",
    key_findings="主要发现",
    summary_line="以下各节的第一条发现。",
    comparison="对比",
    dimension="维度",
    disputed="有争议的发现",
    to_verify="待核实",
    hypotheses="已检验的假设",
    computed="计算所得数字",
    computed_line="在沙箱中由引用段落里的数字计算得出；每个输入都已与其引文核对。",
    method="方法",
    references="参考文献",
    appendix="附录：全部引文",
    appendix_short="附录",
    contents="目录",
    provenance="本报告依据所存来源的逐字引文写成：每个 [E…] 标记都指向“参考文献”中列出的一段引文。",
    ledger_line="每段引文都是所存来源快照的原文 snapshot[start:end]，并给出该快照的 SHA-256。",
    searched="已搜索",
    nothing_searched="无搜索记录",
    no_close_passage="没有相近的段落。",
    no_passage_for_hypothesis="尚未找到支持或反驳它的段落。",
    supports_if="支持它的证据",
    refutes_if="反驳它的证据",
    decision="决定",
    reason="理由",
    result="结果",
    code="代码",
    sources_opened="打开的来源",
    independent_sources="独立来源",
    rounds="研究轮次",
    search="搜索",
    engine="引擎",
    tokens="模型词元（输入 / 输出）",
    note="注",
    accessed="访问于",
    claimed_address="语料库所称的地址，未经核实",
    characters="字符",
    relevance="相关度",
    by="由 {who}",
    auto_approved="自动批准",
    no_analyst="无署名分析员",
    task="任务",
    status="状态",
    written="撰写",
    task_version="任务 {task}，报告第 {version} 版",
    title_line="任务 {task}，报告 v{version}，{status}。",
    approved_by="由 {who} 于 {when} UTC 批准",
    not_approved="{status}（未批准）",
    auto_approval="自动批准",
    written_by="{when} UTC 由 {engine} 撰写器写成，依据 {sources} 个来源的 {quotes} 段引文",
    footer="研究台 · 任务 {task} · 报告 v{version}",
    invented_sources="虚构的来源。",
    not_in_ledger="不在证据账本中",
    not_in_this_ledger="不在本报告的证据账本中",
    engines={"extractive": "抽取式", "openai": "OpenAI 兼容模型", "local": "本地语料库", "tavily": "Tavily"},
    answer_is="答",
    not_stated="来源未说明",
    answered_above="答案见上",
    comment_response="关于对上一版的意见",
    roles={
        "supports": "支持",
        "contradicts": "反对",
        "kept": "保留",
        "set aside": "搁置",
        "closest": "最接近的段落",
        "for": "支持",
        "against": "反对",
        "read from": "读自",
    },
    notes={
        NO_CLAIMS_NOTE: "此子问题没有得到支持的发现。",
        DISPUTED_SECTION_NOTE: "来源在此子问题上存在分歧：见“有争议的发现”。",
        GAP_SECTION_NOTE: "证据太少，无法陈述任何结论：见“待核实”。",
        STATED_ABOVE_NOTE: "来源对此子问题的说法已在前面一节中陈述。",
        DEMO_NOTICE: "本报告的来源是虚构的演示语料：其中的公司、产品、数字和网站都不存在。请勿据此行事。",
        WEAK_SECTION_NOTE: "为此子问题找到的段落中没有陈述答案的句子，因此报告对此不作陈述。",
    },
    decisions={
        "picked": "已选定一方",
        "disputed": "作为争议保留",
        "gap": "作为待核实项保留",
        "accepted": "已接受",
        "rejected": "已拒绝",
        "open": "保持开放",
        "": "未经分析员审阅",
    },
)

LABELS = {ENGLISH: EN, CHINESE: ZH}


def labels_for(language: str) -> Labels:
    return LABELS.get(language, EN)


def labels_of_title(title: str) -> Labels:
    """The labels of a report whose question (title) is ``title``."""
    return labels_for(report_language(title))
