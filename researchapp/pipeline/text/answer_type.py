"""What kind of answer a question expects, what it asks about, and which of its words name what.

``analyse_question`` reads the expected answer type (a quantity with its unit, a default or a limit,
a date or a version, a name, a list, a definition, yes or no, a comparison, a procedure, an
explanation; an open request is an overview), the *focus* (what is asked of the subject: "default",
"port", "lock") and the *subject* (the names it is about). The reader (``pipeline.reader``) takes a
sentence as an answer only when it states something of the expected type; the planner asks a
factual question's own facets by its type. ``common_terms`` weighs the subject by the corpus: a term
found in most documents at hand ("SQLite" in SQLite's manual) identifies nothing.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from enum import StrEnum

from researchapp.pipeline.text.salience import _figure_asked, asked_for
from researchapp.pipeline.text.tokens import STOPWORDS, cjk_count, tokenize


class AnswerType(StrEnum):
    QUANTITY = "quantity"
    LIMIT = "default_or_limit"
    VERSION = "date_or_version"
    NAME = "name"
    LIST = "list"
    DEFINITION = "definition"
    YES_NO = "yes_no"
    COMPARISON = "comparison"
    PROCEDURE = "procedure"
    EXPLANATION = "explanation"
    OVERVIEW = "overview"  # an open request: any sentence that bears on it


# A factual question asks for one of these; an open request (OVERVIEW) is planned by its topic.
FACTUAL = frozenset(AnswerType) - {AnswerType.OVERVIEW}
# The kinds of disagreement that are about the value a question of each type asks for: two release
# numbers answer "which release", "supported" against "not supported" does not. Other types: any kind.
ASKED_DISAGREEMENTS = {
    AnswerType.QUANTITY: frozenset({"number"}),
    AnswerType.LIMIT: frozenset({"number"}),
    AnswerType.VERSION: frozenset({"date", "number"}),
    AnswerType.NAME: frozenset({"entity"}),
    # A list is many names and values ("DELETE | TRUNCATE | WAL"): two pages naming different items
    # both answer it; only one denying what the other states disagrees.
    AnswerType.LIST: frozenset({"negation"}),
}


def about_the_asked(kind: str, asked: AnswerType) -> bool:
    """Whether a disagreement of ``kind`` ("" when a model judge did not say) is about the asked value."""
    return not kind or kind in ASKED_DISAGREEMENTS.get(asked, frozenset({kind}))


@dataclass(frozen=True)
class QuestionAnalysis:
    answer_type: AnswerType
    focus: tuple[str, ...]  # terms of what is asked of the subject
    subject: tuple[str, ...]  # terms of the names it is about
    # a quantity's unit ("percent", "money", "time", "byte", "count", ""); "version": which release
    unit: str = ""
    cues: tuple[str, ...] = ()  # terms a sentence stating this kind of answer tends to use
    chinese: bool = False
    head: tuple[str, ...] = ()  # what the answer is ("Which Android release" → android): it must be near
    options: tuple[tuple[str, ...], ...] = ()  # a comparison's options (each one's own terms)

    @property
    def terms(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys((*self.subject, *self.focus)))


def _rx(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern, re.IGNORECASE)


_YES_NO = _rx(r"^(?:is|are|was|were|does|do|did|can|could|will|would|has|have|had|should|must|may)\b")
_VERSION = _rx(
    r"\b(?:which|what)\s+(?:\w+\s+){0,2}(?:version|release|year|date)s?\b|\bsince\s+(?:which|when)\b|"
    r"\bstarting\s+(?:with|from|in)\s+which\b|^\s*when\b|\bin\s+what\s+year\b|\bon\s+what\s+date\b|"
    r"\bfirst\s+(?:version|release)\b|哪个版本|哪一版|从哪|什么时候|何时|哪一年|哪年|几年"
)
_EXPLANATION = _rx(
    r"^\s*why\b|\bwhat\s+happens\b|\bwhat\s+becomes\s+of\b|\bwhat\s+(?:is|are)\s+the\s+(?:reason|effect|"
    r"purpose|consequence)s?\b|\bbenefit\b|\bwhat\s+does\s+.+\s+do\b|为什么|为何|会怎样|怎样处理|如何处理|"
    r"会发生|什么作用|有什么好处"
)
_LIST_HEAD = _rx(r"^\s*(?:name|list|enumerate)\s+(?:the|all)\b|有哪些|哪几种|哪些")
_LIMIT = _rx(
    r"\bdefaults?\b|\bby\s+default\b|\bunless\b.*\b(?:changed|configured|set|otherwise|specified)\b|"
    r"\bout\s+of\s+the\s+box\b|\bmaximum\b|\bminimum\b|\blargest\b|\bsmallest\b|\bhighest\b|\blowest\b|"
    r"\blimits?\b|\bat\s+most\b|\bup\s+to\b|默认|最多|最大|最小|上限|下限|不指定"
)
_QUANTITY = _rx(
    r"\bhow\s+(?:many|much|long|big|large|tall|old|far|often|fast|high|deep|wide)\b|"
    r"\b(?:what|which)\s+(?:[\w'’]+\s+){0,3}?(?:percentage|fraction|share|proportion|number|size|length|amount|"
    r"count|total|ratio|rate|value|depth|width|height|weight|price|cost)\b|\bby\s+what\s+percentage\b|"
    r"\bwhat\s+(?:does|do|did|will|would)\s+.+\s+(?:cost|weigh|measure)\s*[?？]?$|"
    r"多少|几个|几列|多久|多(?:长|大|高|重|远|深|宽|快|厚|老|频繁)|百分之|比例"
)
_COMPARISON = _rx(
    r"\b(?:compare[sd]?|comparison|differ|differs|difference|differences|versus|vs\.?)\b|"
    r"\bcompared\s+(?:with|to)\b|\bdifferent\b.*\band\b|区别|不同|差异|相比|对比|比较"
)
_DEFINITION = _rx(
    r"^\s*what\s+(?:is|are)\s+(?:a|an|the)?\s*[\w'’ -]{1,40}\??$|\bwhat\s+does\s+.+\s+mean\b|\bmean\s+by\b|"
    r"\bhow\s+does\s+.+\s+define\b|\bdefinition\b|\bdefines\s+it\b|\bwhat\s+is\s+meant\s+by\b|"
    r"\bdistinguish(?:es)?\b|\bsaid\s+to\s+be\b|"
    r"是什么|什么是|指的是|定义|含义|意思"
)
_PROCEDURE = _rx(
    r"^\s*how\s+(?:do|can|should|would|could)\s+(?:i|you|we|one)\b|^\s*how\s+to\b|\bwhat\s+steps\b|"
    r"\bhow\s+(?:is|are)\s+.+\s+(?:set|changed|configured|enabled|disabled|done|created|used)\b|如何|怎么|怎样"
)
_NAME = _rx(
    r"^\s*(?:who|whom|whose|where)\b|\b(?:which|what)\s+(?:\w+\s+){0,2}(?:is|was)\s+called\b|"
    r"\bwhat\s+kind\s+of\b|\bwhat\s+is\s+the\s+name\b|^\s*(?:which|what)\b|哪个|哪种|哪一种|谁|哪里|什么"
)
# "Which merge strategies are ...": a plural head noun after "which"/"what" asks for a list.
_WHICH_HEAD = _rx(
    r"^\s*(?:which|what)\s+((?:[\w-]+\s+){0,3}?[\w-]+?)\s+(?:are|is|were|was|does|do|did|can|could|will|"
    r"would|has|have|had|should|must|may|exist|accept)\b"
)
_PERCENT_WORDS = _rx(r"\bpercentage\b|\bpercent\b|\bfraction\b|\bshare\b|\bproportion\b|百分之|比例|份额")
_MONEY_WORDS = _rx(r"\bhow\s+much\b.*\b(?:cost|costs|pay|paid|price|charge|earn|spend)\b|\bprice\b|\bcost\b")
_TIME_WORDS = _rx(
    r"\b(?:seconds?|minutes?|hours?|days?|weeks?|months?|years?)\b|\bhow\s+long\b|多久|多长时间"
)
_BYTE_WORDS = _rx(r"\bbytes?\b|\b(?:kib|mib|gib|kb|mb|gb)\b|字节")
# "多少列", "几个": a Chinese question asking how many, whose words do not survive translation.
_COUNT_WORDS_ZH = _rx(r"多少|几[个种项列行次]|多大|多长|多高")

_ASKING = frozenset(
    """what which who whom whose when where why how many much does did do is are was were has have had can
    could should would will may must tell explain describe list name give find show compare please know
    kind type mean meant define defined definition according documented documentation said happen happens
    becomes become exactly exact""".split()
)
_TYPE_WORDS = {
    AnswerType.LIMIT: "default defaults maximum minimum largest smallest highest lowest limit limits most",
    AnswerType.VERSION: "version release since first year date starting introduced added new",
    AnswerType.DEFINITION: "mean means meaning define defines definition called refers",
    AnswerType.COMPARISON: "compare compared comparison differ difference different versus",
    AnswerType.QUANTITY: "number percentage fraction share proportion",
}
_CUES = {
    AnswerType.LIMIT: "default defaults maximum minimum limit largest up most least unless",
    AnswerType.VERSION: "version release since beginning starting first added introduced new",
    AnswerType.DEFINITION: "called means refers known",
    AnswerType.COMPARISON: "while whereas unlike instead but than both",
    AnswerType.EXPLANATION: "because so result fails error returns causes then",
    AnswerType.PROCEDURE: "use run set using command option",
    AnswerType.LIST: "following one either",
}
_NAME_TOKEN = re.compile(
    r"`([^`]+)`|(?<![\w-])(--?[a-z][\w-]*|[\w.]+_[\w.]+|[A-Z][A-Z0-9_]{1,}|\w*[a-z][A-Z]\w*)"
)
_WORD = re.compile(r"[^\W_]+(?:[-'.][^\W_]+)*")
# Phrases that say which kind of value is asked for, not what it is about.
_IDIOMS = _rx(
    r"\bout\s+of\s+the\s+box\b|\bby\s+default\b|\bunless\s+(?:it\s+is\s+|they\s+are\s+)?(?:changed|configured|"
    r"set|specified)(?:\s+otherwise)?\b|\bhow\s+\w+\s+long\b|\bin\s+practice\b"
)


def answer_type_of(text: str) -> AnswerType:
    """The kind of answer ``text`` asks for (see the module's docstring)."""
    text = asking_sentence(text)
    if _YES_NO.match(text) and " or " not in text.lower():
        return AnswerType.YES_NO
    if _SAID_TO_BE.search(text):
        return AnswerType.DEFINITION
    if _VERSION.search(text):
        return AnswerType.VERSION
    if _plural_head(text) and not _QUANTITY.search(text) and not _COMPARISON.search(text):
        return AnswerType.LIST
    if _EXPLANATION.search(text) and not _QUANTITY.search(text):
        return AnswerType.EXPLANATION
    if _QUANTITY.search(text) and (_PERCENT_WORDS.search(text) or not _LIMIT.search(text)):
        return AnswerType.QUANTITY
    if _LIMIT.search(text) and (_QUANTITY.search(text) or _asks_for_value(text)):
        return AnswerType.LIMIT
    if _COMPARISON.search(text):
        return AnswerType.COMPARISON
    if _LIST_HEAD.search(text) or _plural_head(text):
        return AnswerType.LIST
    if _DEFINITION.search(text):
        return AnswerType.DEFINITION
    if _PROCEDURE.search(text):
        return AnswerType.PROCEDURE
    if _NAME.search(text):
        return AnswerType.NAME
    return AnswerType.EXPLANATION if text.endswith(("?", "？")) else AnswerType.OVERVIEW


_SAID_TO_BE = _rx(r"\bsaid\s+to\s+be\b|\bwhat\s+does\s+.+\s+mean\b|\bmean\s+by\b")
_SENTENCE_END = re.compile(r"(?<=[.?!。？！])\s+(?=\S)")


def asking_sentence(text: str) -> str:
    """The sentence that asks ("... is a synonym for another command. Which long option ...?"):
    the last one that ends in a question mark, or the whole text."""
    text = " ".join(text.split())
    sentences = _SENTENCE_END.split(text)
    asking = [s for s in sentences if s.endswith(("?", "？"))]
    return asking[-1] if asking and len(sentences) > 1 else text


_SECOND_ASK = re.compile(
    r",?\s+and\s+(?=(?:how|what|when|where|which|who|why|on\s+what|in\s+what|at\s+what)\b)", re.IGNORECASE
)


def asks_of(text: str) -> list[str]:
    """The questions one question asks: "When was X built, and how tall is it?" asks two."""
    asking = asking_sentence(text)
    parts = [part.strip(" ,") for part in _SECOND_ASK.split(asking) if part.strip(" ,")]
    if len(parts) < 2:
        return [" ".join(text.split())]
    lead = " ".join(text.split())[: -len(asking)] if " ".join(text.split()).endswith(asking) else ""
    return [f"{lead}{parts[0]}?".replace("??", "?"), *(f"{p.rstrip('?')}?" for p in parts[1:])]


def _asks_for_value(text: str) -> bool:
    return bool(re.search(r"\b(?:what|which)\b|哪|什么|多少", text, re.IGNORECASE))


def _plural_head(text: str) -> bool:
    match = _WHICH_HEAD.match(text)
    if not match:
        return False
    head = match.group(1).split()[-1].lower()
    return len(head) > 3 and head.endswith("s") and not head.endswith(("ss", "us", "is"))


_RELEASE_WORDS = re.compile(r"\b(?:versions?|releases?)\b|版本", re.IGNORECASE)


def unit_of(text: str, answer_type: AnswerType) -> str:
    """What the answer is counted or written in: a quantity's unit, or "version" for a question
    asking which version or release (a date answers "when")."""
    if answer_type is AnswerType.VERSION:
        return "version" if _RELEASE_WORDS.search(text) else ""
    if answer_type not in (AnswerType.QUANTITY, AnswerType.LIMIT):
        return ""
    if _PERCENT_WORDS.search(text):
        return "percent"
    if _MONEY_WORDS.search(text):
        return "money"
    if _TIME_WORDS.search(text):
        return "time"
    if _BYTE_WORDS.search(text):
        return "byte"
    return "count" if _COUNT_WORDS_ZH.search(text) else ""


def name_terms(text: str) -> list[str]:
    """Terms of the names a question writes as names: capitalised past its first word, with a
    capital inside ("MySQL"), all capitals ("BLOB"), code ("cache_size", "--aggressive",
    "`git gc`"), or quoted ("'type affinity'")."""
    words = list(_WORD.finditer(text))
    found: list[str] = []
    for position, match in enumerate(words):
        word = match.group()
        lowered = word.lower()
        if lowered in STOPWORDS or lowered in _ASKING:
            continue
        if (
            (position and word[:1].isupper())
            or (len(word) > 1 and word.isupper())
            or re.search(r".[A-Z]", word)
        ):
            found += tokenize(word)
    for match in _NAME_TOKEN.finditer(text):
        found += tokenize(match.group(1) or match.group(2))
    for quoted in re.findall(r"[\"'‘“]([^\"'’”]{2,60})[\"'’”]", text):
        found += tokenize(quoted)
    return list(dict.fromkeys(term for term in found if term not in _ASKING))


_HEAD = _rx(
    r"\b(?:which|what)\s+((?:(?!(?:is|are|was|were|does|do|did|can|could|will|would|has|have|had|of|in|for|to|"
    r"on|by|with|from|at)\b)[\w'’-]+\s*){1,3})"
)


def head_terms(text: str, answer_type: AnswerType, common: Collection[str] = ()) -> tuple[str, ...]:
    """The words naming what the answer is: "Which Android release ..." → android ("release" is
    what any version answer is), "What delta window size ..." → delta, window, size."""
    asking = asking_sentence(text)
    differ = _DIFFER_IN.search(asking)
    if differ:  # "How do A and B differ in fire safety?": the answer speaks to fire safety
        said = differ.group(1) or differ.group(2)  # the English or the Chinese wording
        return tuple(t for t in dict.fromkeys(tokenize(said)) if t not in _ASKING)
    match = _HEAD.search(asking)
    if not match:
        return ()
    generic = set(tokenize(_TYPE_WORDS.get(answer_type, ""))) | set(tokenize(_HEAD_GENERIC))
    return tuple(
        t
        for t in dict.fromkeys(tokenize(match.group(1)))
        if t not in generic and t not in common and t not in _ASKING
    )


_DIFFER_IN = _rx(r"\bdiffer(?:s|ent)?\s+(?:in|on|regarding)\s+([^?？.]+)|在(.+?)(?:方面|上)有何不同")
_MARKUP = re.compile(r"<[^<>]{1,200}>")
_HEAD_GENERIC = (
    "value number size kind type way thing one version release date year percentage fraction share"
)


def analyse_question(text: str, *, common: Collection[str] = ()) -> QuestionAnalysis:
    """1. The answer type. 2. The subject: the names it writes as names, less the ``common`` terms
    (found in most documents at hand); without a name, its first content words. 3. The focus: its
    other content words, less the words that only ask. A Chinese question's Latin words (names,
    code) are its subject; its Chinese words its focus."""
    text = " ".join(_MARKUP.sub(" ", text).split())  # "Is the <b>Northgate</b> ferry ...": its words
    chinese = cjk_count(text) >= 2
    answer_type = answer_type_of(text)
    attribute = asked_for(asking_sentence(text))  # "What is the weekly salary of X?" → salary
    figure = _figure_asked(asking_sentence(text), attribute)
    if figure and answer_type in (AnswerType.NAME, AnswerType.EXPLANATION, AnswerType.DEFINITION):
        answer_type = AnswerType.QUANTITY
    type_words = set(tokenize(_TYPE_WORDS.get(answer_type, "")))
    content = [t for t in dict.fromkeys(tokenize(_IDIOMS.sub(" ", text))) if t not in _ASKING]
    names = [t for t in name_terms(text) if t in content]
    subject = [t for t in names if t not in common]
    focus = [t for t in content if t not in names and t not in type_words]
    if not focus:
        focus = [t for t in content if t not in subject]
    unit = unit_of(text, answer_type) or ("money" if figure == "money" else "")
    head = head_terms(text, answer_type, common) or tuple(t for t in attribute if t not in common)
    return QuestionAnalysis(
        answer_type,
        tuple(focus),
        tuple(subject),
        unit,
        tuple(tokenize(_CUES.get(answer_type, ""))),
        chinese,
        head,
    )


def common_terms(texts: Sequence[str], *, share: float = 0.5, minimum: int = 3) -> frozenset[str]:
    """Terms found in more than ``share`` of ``texts`` (at least ``minimum`` texts must be given):
    in a manual every page names the product, so its name tells no page from another."""
    if len(texts) < minimum:
        return frozenset()
    counts: dict[str, int] = {}
    for text in texts:
        for term in set(tokenize(text)):
            counts[term] = counts.get(term, 0) + 1
    return frozenset(term for term, count in counts.items() if count > share * len(texts))
