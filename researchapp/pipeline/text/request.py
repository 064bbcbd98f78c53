"""A research request read as a person would: what it is about, what it asks, which aspects it lists.

A request is often several sentences: background ("Parkinson's disease has a profound impact on
patients."), asks ("What are the warning signs of each stage?", "Summarize the investments of the
major consulting firms in AI."), and lists of aspects ("Cover aspects such as client case studies,
application scenarios and talent programmes."). ``read_request`` finds each, so that a plan asks
what was asked, in words a person would use, instead of wrapping a template around the whole
request ("What are the key facts and figures about Summarize the global investments …?").

It reads English and Chinese by their patterns, without a model; what it cannot read it leaves
out, and the planner fills the plan from the request's topic (or, with no clean topic, with
sub-questions that need none).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from researchapp.pipeline.text.request_zh import read_chinese
from researchapp.pipeline.text.sentences import split_sentences
from researchapp.pipeline.text.tokens import cjk_count

MAX_TOPIC_WORDS = 12
MAX_ASK_WORDS = 32
MAX_ASPECT_WORDS = 6


@dataclass(frozen=True)
class Request:
    topic: str  # a short noun phrase the request is about, "" when none reads cleanly
    asks: tuple[str, ...] = ()  # each ask of the request, as a question
    aspects: tuple[str, ...] = ()  # aspects the request lists ("client case studies", "融资情况")


# "Acting as an expert in X, ...", "As a senior teacher, ...", "(working on LN photonics): ...",
# "Research Topic: X.", "1) ...": who asks, labels and numbering, not what is asked.
_PREAMBLE = re.compile(
    r"^(?:\([^)]{0,80}\)\s*:?\s*|(?:acting as|as)\s+(?:an?|the|my)\s+[^,]{3,80},\s*|"
    r"(?:research topic|topic|objective|task|goal|question|title)\s*:\s*|\d{1,2}[.)]\s+|\(\d{1,2}\)\s+|"
    r"(?:your|the|this) (?:report|analysis|paper|review|study|research)\s+should(?:\s+\w+)?\s*:\s*|"
    r"[^:?]{3,60}:\s+(?=[A-Z]))",
    re.IGNORECASE,
)
_LABELLED_TOPIC = re.compile(
    r"^(?:research topic|topic|title)\s*:\s*(?P<topic>[^.?!]+)"
    r"|\btitled\s+['‘\"“](?P<title>[^'’\"”]{3,120}?)[.,]?['’\"”]",
    re.IGNORECASE,
)
_MARKERS = re.compile(
    r"^(?:furthermore|additionally|moreover|also|finally|then|specifically|in particular|in addition|"
    r"besides|lastly|first|second|third|next|however|conversely|therefore|so|and|but|or)\s*,?\s+",
    re.IGNORECASE,
)
_REQUESTING = re.compile(
    r"^(?:(?:please|kindly)\s+|(?:could|can|would|will)\s+you\s+(?:please\s+)?|help me\s+(?:to\s+)?|"
    r"you\s+(?:could|should|can|might|may)\s+|"
    r"i\s+(?:would like|want|need|wish)\s+(?:you\s+)?(?:to\s+)?|i'd like\s+(?:you\s+)?(?:to\s+)?|"
    r"(?:i\s+need\s+)?(?:assistance|help)\s+(?:with\s+)?)+",
    re.IGNORECASE,
)
_DESCRIBE = r"summari[sz]e|list|identify|outline|describe|detail|explain|elaborate on|clarify|define|present"
_RESEARCH = (
    r"research(?:ing)?(?:\s+(?:on|into))?|investigat(?:e|ing)|analy[sz](?:e|ing)|examin(?:e|ing)|explor(?:e|ing)|"
    r"stud(?:y|ying)|trac(?:e|ing)|discuss(?:ing)?|review(?:ing)?|assess(?:ing)?|evaluat(?:e|ing)|look into|"
    r"report on|find (?:data|evidence|information)(?:\s+and\s+(?:data|evidence))?"
    r"(?:\s+to\s+\w+(?:\s+or\s+\w+)?)?"
)
_LINKED = (
    r"(?:of|on|about|into|for|regarding|exploring|analy[sz]ing|discussing|examining|covering|"
    r"to\s+(?:discuss|explore|analy[sz]e|examine|explain|describe)|that\s+\w+s)"
)
_PRODUCT = (
    r"(?:paper|report|analysis|review|overview|essay|article|study|notes|summary|explanation|comparison|"
    r"description|survey|assessment|evaluation|account|introduction|guide|information|details|research)"
)
# One request verb and what it asks for: "Summarize X", "Research for me X", "Write a paper on X".
_REQUEST = re.compile(
    rf"^(?:(?P<describe>{_DESCRIBE})|(?P<research>{_RESEARCH})"
    rf"|(?P<produce>(?:(?:write|writing|draft|prepare|produce|create|conduct|provide|give|compose|develop|do|make)"
    rf"\s+(?:me\s+)?|(?=an?\s))(?:an?\s+|the\s+|some\s+)?(?:[\w'-]+,?\s+){{0,4}}?{_PRODUCT}"
    rf"(?:\s+and\s+(?:prepare|write|draft)\s+(?:an?\s+)?(?:[\w'-]+\s+){{0,3}}?{_PRODUCT})?(?=\s+{_LINKED})))"
    rf"(?:\s+and\s+(?:analy[sz]e|discuss|evaluate|assess|summari[sz]e))?"
    rf"\s+(?:for me\s+)?(?:{_LINKED}\s+)?",
    re.IGNORECASE,
)
# A second request joined to the first: "Explain X, and detail Y".
_JOINED_REQUEST = re.compile(
    r"(?:,?\s+and|,)\s+(?=(?:summari[sz]e|list|identify|outline|describe|detail|explain|elaborate|analy[sz]e|"
    r"discuss|evaluate|assess|compare|investigate|examine|explore|suggest|propose)\s)"
)
_WH_START = re.compile(
    r"^(?:how|what|why|which|who|whom|whose|when|where|is|are|was|were|can|could|does|do|did|should|will|"
    r"would|has|have)\b",
    re.IGNORECASE,
)
_AUX = re.compile(r"\b(?:is|are|was|were|can|could|do|does|did|should|will|would|has|have|had|may|might)\b",
                  re.IGNORECASE)  # fmt: skip
# A directive that lists what to cover: "Cover aspects such as A, B and C", "Focus on A, B and C".
_LIST_CUE = re.compile(
    r"\b(?:such as|like|including|include|includes|covering|cover|focus(?:ing)? on|e\.g\.,?)\s+",
    re.IGNORECASE,
)
_DIRECTS = re.compile(
    r"^(?:cover|include|focus|address|consider|discuss|analy[sz]e|compare|examine|list|structure)\b"
    r"|\b(?:should|must|needs? to)\s+"
    r"(?:cover|include|address|consider|discuss|be structured around|focus on)\b",
    re.IGNORECASE,
)
_LIST_TAIL = re.compile(
    r",?\s*(?:and|or)?\s*(?:other|more|further|any other|similar)\s+(?:relevant\s+)?(?:[\w-]+\s*){0,2}$"
    r"|,?\s*etc\.?$",
    re.IGNORECASE,
)
_NUMBERED = re.compile(r"(?:^|[\s;:])(?:\d{1,2}[.)]|\(\d{1,2}\))\s+")
_PARENTHESES = re.compile(r"\s*\([^()]*\)")
_DETERMINERS = frozenset(
    "the a an each all any some his her our my your every both such several many most".split()
)
_BACK_REFERENCES = frozenset("their its this these those it they them such said".split())
_LINKS = frozenset(
    """of in on for to from by with about among within regarding across between under behind through
    into during that which who where when while as at""".split()
)
_VERBISH = frozenset(
    """is are was were be been being has have had do does did can could will would should may might must
    shall""".split()
)
_WH_WORDS = frozenset("what which who whom whose when where why how whether".split())
_PREPOSITION_START = frozenset("from in on at to by with for of about after before during since".split())
_WORD = re.compile(r"[^\W_]+(?:[-'.’/][^\W_]+)*")


def tidy(text: str) -> str:
    return " ".join(text.split()).strip(" ,;:.-—")


def _capitalised(text: str) -> str:
    return text[:1].upper() + text[1:] if text else text


def is_noun_phrase(text: str) -> bool:
    """A phrase a template can name ("the Greywater Point lighthouse"), not a clause or a question
    ("From 1945-1949 Dick Humbert played for an NFL team"), nor a back reference ("these plugins")."""
    words = _WORD.findall(text)
    if not words or len(words) > MAX_TOPIC_WORDS + 3 or "?" in text:
        return False
    lowered = [word.lower() for word in words]
    if lowered[0] in _PREPOSITION_START or lowered[0] in _BACK_REFERENCES or lowered[-1] in _LINKS:
        return False
    if any(w in _VERBISH or w in _WH_WORDS or w in _BACK_REFERENCES for w in lowered):
        return False
    # A past tense right after a name is a verb: "Dick Humbert played for ...".
    return not any(
        words[i - 1][:1].isupper() and lowered[i].endswith("ed") and len(lowered[i]) > 4
        for i in range(1, len(words))
    )


def _plural(phrase: str) -> bool:
    """Several things: a list ("investments, initiatives and outputs") or a plural noun ("the signs")."""
    words = [w.lower() for w in _WORD.findall(phrase)]
    head: list[str] = []
    for word in words:
        if word in _LINKS:
            break
        head.append(word)
    if "and" in head or "," in phrase.split(" of ")[0]:
        return True
    content = [w for w in head if w not in _DETERMINERS][:3]
    return any(w.endswith("s") and not w.endswith(("ss", "us", "is", "ics", "'s")) for w in content)


def _with_article(phrase: str) -> str:
    first = phrase.split()[0] if phrase.split() else ""
    if (
        not first
        or first.lower() in _DETERMINERS | _BACK_REFERENCES
        or first[:1].isupper()
        or first[:1] in "\"'‘“"
        or first[0].isdigit()
    ):
        return phrase
    return f"the {phrase}"


def _clean(sentence: str) -> str:
    text = tidy(sentence)
    for _ in range(3):
        before = text
        for pattern in (_PREAMBLE, _MARKERS, _REQUESTING):
            text = pattern.sub("", text, count=1)
        if text == before:
            break
    return text


def _shortened(clause: str) -> str:
    """A request's object without its examples and asides, short enough to read as one question."""
    clause = tidy(_PARENTHESES.sub("", clause)).rstrip("?")
    clause = re.sub(r"([.!?])(['’\"”])", r"\2", clause)
    clause = re.split(r"\s*[—;:]\s*|,\s+(?:particularly|especially|specifically|including|such as|e\.g\.)\b"
                      r"|\s+(?=(?:You|We|I|It|This|These|They)\s+[a-z])", clause)[0]  # fmt: skip
    words = clause.split()
    if len(words) <= MAX_ASK_WORDS - 5:
        return clause
    cut = [m.start() for m in re.finditer(r",\s+|\s+(?:to|in|for|with|by|through|and)\s+", clause)
           if len(clause[: m.start()].split()) <= MAX_ASK_WORDS - 5]  # fmt: skip
    return tidy(clause[: cut[-1]]) if cut else " ".join(words[: MAX_ASK_WORDS - 5])


def _asked(clause: str) -> str:
    """An embedded question or a noun phrase, asked: "how X are made" → "How are X made?"."""
    clause = _shortened(clause)
    words = clause.split()
    if not words:
        return ""
    lead = words[0].lower()
    if lead == "how" and len(words) > 2 and words[1].lower() == "to":
        return f"How to {' '.join(words[2:])}?"
    if lead in ("which", "what", "whose") and len(words) > 2 and not _AUX.match(words[1]):
        return _capitalised(clause.rstrip("?")) + "?"  # "which approaches are most likely to succeed"
    if lead in _WH_WORDS and lead != "whether":
        rest = clause[len(words[0]) :].strip()
        aux = _AUX.search(rest)
        if aux and aux.start() > 0 and len(rest[: aux.start()].split()) <= 8:
            subject, predicate = rest[: aux.start()].strip(), rest[aux.end() :].strip()
            return f"{_capitalised(lead)} {aux.group().lower()} {subject} {predicate}".strip() + "?"
    if lead in _WH_WORDS:
        return f"What is known about {clause}?"
    if words[0][:1] in "\"'‘“":
        return f"What is known about {clause}?"
    return f"What is known about {_with_article(clause)}?"


def _described(clause: str) -> str:
    clause = _shortened(clause)
    if not clause or clause.split()[0].lower() in _WH_WORDS or clause[:1] in "\"'‘“":
        return _asked(clause)
    return f"What {'are' if _plural(clause) else 'is'} {_with_article(clause)}?"


def _ask_of(clause: str) -> str:
    """The clause as a question a person would write, or "" when it asks nothing."""
    text = _clean(clause)
    if not text:
        return ""
    request = _REQUEST.match(text)
    rest = text[request.end() :] if request else ""
    if request and rest.strip():
        object_ = re.split(r"\s+(?:such as|like|including|e\.g\.)\s+", _PARENTHESES.sub("", rest))[0]
        asked = _described(object_) if request.group("describe") else _asked(object_)
        return asked if 3 <= len(asked.split()) <= MAX_ASK_WORDS else ""
    if clause.rstrip().endswith("?") or _WH_START.match(text):
        text = _PARENTHESES.sub("", text).rstrip("?. ")
        return _capitalised(text) + "?" if len(text.split()) <= MAX_ASK_WORDS else ""
    return ""


def _aspects_of(sentence: str) -> list[str]:
    """What a directive lists: "Cover aspects such as A, B, and C." → A, B, C; "1) A; 2) B" → A, B."""
    text = tidy(_PARENTHESES.sub("", sentence))
    numbered = [tidy(item) for item in _NUMBERED.split(text)[1:]]
    if len(numbered) >= 2:
        return [_clean(item) for item in numbered if 0 < len(item.split()) <= MAX_ASPECT_WORDS + 4]
    if not _DIRECTS.search(_clean(text)):
        return []  # "Examples include ..." is background, not a list of what to cover
    for cue in reversed(list(_LIST_CUE.finditer(text))):
        listed = _LIST_TAIL.sub(
            "", re.split(r"[.;:!?]\s|\s+(?:so that|in order to)\s+", text[cue.end() :])[0]
        )
        items = [
            tidy(item) for item in re.split(r",\s*(?:and\s+|or\s+)?|\s+(?:and|or|as well as)\s+", listed)
        ]
        items = [re.sub(r"^(?:those|ones|products|tools) (?:from|by|of)\s+", "", item) for item in items]
        items = [item for item in items if _names_an_aspect(item)]
        if len(items) >= 2:
            return items
    return []


def _names_an_aspect(item: str) -> bool:
    words = [word.lower() for word in _WORD.findall(item)]
    return (
        0 < len(words) <= MAX_ASPECT_WORDS
        and words[0] not in ("other", "others", "more", "etc", "and", "or")
        and not any(w in _VERBISH or w in _WH_WORDS for w in words)
    )


# Where a topic's noun phrase ends: a clause, a verb, an infinitive, a participle with its preposition.
_TOPIC_END = re.compile(
    r",\s+|\s+(?:that|which|who|so that|while|such as|like|can|could|should|will|would|is|are|was|were|"
    r"do|does|did|have|has)\s+|\s+to\s+(?!\w+ing\b)|\s+(?:\w+ed|taken|driven|made|held|built|known|given|"
    r"shown|written)\s+(?:on|by|in|at|to|for|with|from)\s+"
)


def _topic_of(ask: str) -> str:
    """The noun phrase an ask is about, up to its second link word: "What are the most effective
    approaches to scaling ion trap quantum computing from small-scale ...?" → "the most effective
    approaches to scaling ion trap quantum computing"; "How to improve the SNM of SRAM?" → "the SNM
    of SRAM"; a list before "related to" is dropped ("investments and outputs related to AI" → "AI")."""
    body = re.sub(
        r"^(?:what (?:is|are) known about|what (?:is|are|was|were)|how to \w+|which|what)\s+", "",
        ask.rstrip("?"), flags=re.IGNORECASE,
    )  # fmt: skip
    body = tidy(_PARENTHESES.sub("", body))
    link = re.search(r"\s+(?:related to|regarding|concerning)\s+", body)
    if link and ("," in body[: link.start()] or " and " in body[: link.start()]):
        body = body[link.end() :]
    body = _TOPIC_END.split(body)[0]
    body = re.sub(r"(?:(?<=\s)|^)['‘\"“]|['’\"”](?=\s|$)", "", body)
    words = body.split()
    links = [i for i, word in enumerate(words) if word.lower() in _LINKS and i > 0]
    if len(links) >= 2:
        words = words[: links[1]]
    if len(words) > MAX_TOPIC_WORDS:
        words = words[: max([i for i in links if i <= MAX_TOPIC_WORDS] or [MAX_TOPIC_WORDS])]
    body = tidy(" ".join(words))
    if body[:1].isupper() and body.split()[0].lower() in _COMMON_LEADS:
        body = body[0].lower() + body[1:]  # "Possible ways ..." starts a sentence, not a name
    content = [
        w.lower() for w in _WORD.findall(body) if w.lower() not in _DETERMINERS | _LINKS | {"and", "or"}
    ]
    if not content or set(content) <= _GENERIC_HEADS or (len(content) < 2 and not _has_name(body)):
        return ""
    return body if is_noun_phrase(body) else ""


# Heads that say nothing of a topic by themselves: "the most effective approaches", "possible ways".
_GENERIC_HEADS = frozenset(
    """possible potential main key major current recent new various different effective most best
    approaches approach ways way diverse methods method strategies strategy options option differences
    connections paths path issues issue trends trend manufacturers hypothesis question questions
    factors aspects things types kinds role impact""".split()
)
_COMMON_LEADS = frozenset("possible potential main key major current recent new various different".split())


def _has_name(text: str) -> bool:
    words = _WORD.findall(text)
    return (
        bool(words)
        and is_noun_phrase(text)
        and any(w[:1].isupper() or any(c.isupper() for c in w[1:]) for w in words)
    )


def read_english(text: str, fallback_topic: str = "") -> Request:
    sentences = [text[s:e] for s, e in split_sentences(text)] or [text]
    asks: list[str] = []
    aspects: list[str] = []
    topics: list[str] = []
    for sentence in sentences:
        sentence = _PARENTHESES.sub("", sentence)
        labelled = _LABELLED_TOPIC.search(tidy(sentence))
        named = tidy(labelled.group("topic") or labelled.group("title")) if labelled else ""
        if named and len(named.split()) <= MAX_TOPIC_WORDS:
            topics.append(named)
            if labelled and labelled.group("topic"):
                continue
        for clause in _JOINED_REQUEST.split(sentence):
            ask = _ask_of(clause)
            if ask and ask.lower() not in (a.lower() for a in asks):
                asks.append(ask)
        aspects += [a for a in _aspects_of(sentence) if a.lower() not in (b.lower() for b in aspects)]
    topics += [topic for topic in (_topic_of(ask) for ask in asks) if topic]
    topic = topics[0] if topics else (fallback_topic if is_noun_phrase(fallback_topic) else "")
    return Request(topic=topic, asks=tuple(asks), aspects=tuple(aspects))


def read_request(text: str, *, fallback_topic: str = "") -> Request:
    """Topic, asks and listed aspects of a research request (see the module docstring)."""
    if cjk_count(text) >= 2:
        return Request(*read_chinese(text.strip(), fallback_topic))
    return read_english(" ".join(text.split()), fallback_topic)
