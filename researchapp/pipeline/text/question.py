"""Reading a research question: its language, intent, subject, and the options it compares.

``read_question`` is what the planner's templates are filled from. The subject has two forms:
the words search queries carry ("Greywater Point lighthouse built tall") and the noun phrase the
templates name ("the Greywater Point lighthouse").
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from researchapp.core.enums import Intent
from researchapp.pipeline.text.entities import name_phrases
from researchapp.pipeline.text.options import (
    ARTICLES,
    END_PUNCT,
    LEAD_WORDS,
    QUESTION_LEADS,
    ZH_LEADS,
    ZH_TAILS,
    chinese_options,
    english_options,
)
from researchapp.pipeline.text.request import is_noun_phrase, read_request
from researchapp.pipeline.text.sentences import split_sentences
from researchapp.pipeline.text.tokens import STOPWORDS, cjk_count

_RECOMMENDATION_EN = re.compile(
    r"\b(?:should (?:i|we|you|one|they|my|our)\b|^should\b|best(?![- ](?:selling|known))|"
    r"recommend(?:ed|ation|ations)?|worth (?:it|using|buying)|"
    r"which\b.*\b(?:choose|pick|use|select|buy|adopt))\b",
    re.IGNORECASE,
)
_RECOMMENDATION_ZH = re.compile(r"推荐|应该|哪个好|值得|怎么选|选哪个|最好")


@dataclass(frozen=True)
class Reading:
    """What the planner understood: language, intent, subject and, if comparative, options."""

    chinese: bool
    intent: Intent
    subject: str
    options: tuple[str, ...]
    context: str  # what a comparison is about beyond its options: "for analytics"
    key_terms: str  # the words that carry the question, for search queries
    topic: str = ""  # the noun phrase templates may name; "" when the question has none that reads cleanly
    asks: tuple[str, ...] = ()  # a long request's own asks, each as a question (``request.read_request``)
    aspects: tuple[str, ...] = ()  # aspects a request lists ("client case studies", "融资情况")
    criterion: str = (
        ""  # what a comparison names to compare on: "fire safety" in "..., including their fire safety"
    )
    names: tuple[str, ...] = ()  # the names a short question mentions ("Dick Humbert", "NFL")


def english_key_terms(text: str) -> str:
    words = re.findall(r"[^\W_]+(?:[-'.][^\W_]+)*", text)
    kept = [w for w in words if w.lower() not in STOPWORDS and w.lower() not in QUERY_NOISE]
    return " ".join(dict.fromkeys(kept))


QUERY_NOISE = frozenset(
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
    """What the question is about, with its question words off: the words search queries carry."""
    body = END_PUNCT.sub("", question.strip())
    if chinese:
        return ZH_TAILS.sub("", ZH_LEADS.sub("", body)).strip(" ，,") or body
    decide = _ASKS_TO_DECIDE.match(body)
    if decide:
        verb, _, rest = body[decide.end() :].partition(" ")
        stripped = f"{_gerund(verb)} {rest}".strip()
    else:
        stripped = QUESTION_LEADS.sub("", body, count=1)
    stripped = _MODAL_CLAUSE.sub("", stripped)
    stripped = ARTICLES.sub("", _SUPERLATIVE.sub("", stripped)).strip()
    return stripped or body


# "... and how tall is it?": a second question that is not part of what the first is about.
_SECOND_QUESTION = re.compile(
    r",?\s+(?:and|or)\s+(?:how|what|when|where|who|whom|whose|why|which|is|are|was|were|does|do|did|"
    r"can|could|should|will|would)\b.*$",
    re.IGNORECASE,
)
_HOW_ADJECTIVE = re.compile(r"^how\s+[a-z]+\s+(?:is|are|was|were)\s+(?=\S)", re.IGNORECASE)
_AUXILIARY_LEAD = re.compile(
    r"^(?:(?:what|when|where|why|how|who|which)\s+)?(?P<aux>did|does|do|was|were|is|are)\s+(?=\S)",
    re.IGNORECASE,
)
_IRREGULAR_PARTICIPLES = frozenset(
    """built born made written known held sold won begun run shot drawn taken given found led set
    put brought bought thought taught caught sung laid paid said shown grown thrown flown worn torn
    chosen frozen stolen spoken broken driven ridden hidden eaten fallen beaten bitten sent spent
    lost left meant kept""".split()
)


_TRAILING_PREPOSITIONS = frozenset("for to of in on at with from about by like into".split())


def _is_participle(word: str) -> bool:
    lower = word.lower()
    return (lower.endswith("ed") and len(lower) > 4) or lower in _IRREGULAR_PARTICIPLES


def _topic(question: str, fallback: str) -> str:
    """The noun phrase a question is about, for sub-question templates; ``fallback`` if unsure.

    "When was the Greywater Point lighthouse built and how tall is it?" is about "the Greywater
    Point lighthouse": a second question, a "how tall is" lead, and the verb that ends a
    "when was ... built" or "why do ... purr" question are cut off. "the" stays before a name.
    """
    full = END_PUNCT.sub("", question.strip())
    body = _SECOND_QUESTION.sub("", full)
    changed = body != full
    how = _HOW_ADJECTIVE.match(body)
    auxiliary = None if how else _AUXILIARY_LEAD.match(body)
    if how:
        body, changed = body[how.end() :], True
    elif auxiliary:
        rest = body[auxiliary.end() :].split()
        while len(rest) > 2 and rest[-1].lower() in _TRAILING_PREPOSITIONS:
            rest.pop()
        passive = auxiliary.group("aux").lower() in ("was", "were", "is", "are")
        if len(rest) >= 2 and rest[-1][:1].islower() and (not passive or _is_participle(rest[-1])):
            body, changed = " ".join(rest[:-1]), True
        else:
            body = " ".join(rest)
    else:
        body = QUESTION_LEADS.sub("", body, count=1)
        first, _, rest_of_body = body.partition(" ")
        if rest_of_body and _is_participle(first) and first[:1].islower():
            body, changed = rest_of_body, True  # "Who founded Microsoft" → "Microsoft"
    if not changed:
        # "the mating season of the Patagonian toothfish": a phrase naming something keeps "the".
        if _names_something(fallback) and re.search(rf"\bthe\s+{re.escape(fallback)}", full, re.IGNORECASE):
            return f"the {fallback}"
        return fallback
    phrase = _SUPERLATIVE.sub("", body).strip()
    article = ARTICLES.match(phrase)
    if article and not _names_something(phrase[article.end() :]):
        phrase = phrase[article.end() :]
    return phrase.strip() or fallback


def _names_something(phrase: str) -> bool:
    """A phrase with a name in it is definite: "the installed capacity of the Marrowby lagoon"."""
    return any(word[:1].isupper() for word in phrase.split())


# "Compare A and B, including their fire safety": what the comparison is to be made on.
_CRITERION = re.compile(
    r",?\s+(?:including|especially|particularly|in terms of|with (?:respect|regard) to|notably)\s+"
    r"(?:their|its|the|both)?\s*(?P<criterion>[^,?.;]+?)\s*[?.]?$",
    re.IGNORECASE,
)
# A request of several sentences, or one long one, is read for its asks and its topic.
LONG_REQUEST_WORDS = 30
LONG_REQUEST_CHARS = 60
MAX_OPTION_CHARS_ZH = 12


def is_long_request(text: str, chinese: bool) -> bool:
    if chinese:
        return (
            len(text) > LONG_REQUEST_CHARS
            or len(re.findall(r"[。？！?!；;]", text.rstrip("。？！?!；; "))) > 0
        )
    # "The director Armando Iannucci has an OBE. Does the director Puneet Sira also have one?" is
    # one question in two sentences: a short text that ends asking is read as a question.
    sentences = len(split_sentences(text))
    if text.endswith("?") and sentences <= 2 and len(text.split()) <= LONG_REQUEST_WORDS:
        return False
    return len(text.split()) > LONG_REQUEST_WORDS or sentences > 1


def read_question(question: str) -> Reading:
    """Language, intent, subject, options; for a long request its asks, aspects and topic
    (``request.read_request``); for a comparison the criterion it names; for a short question its names."""
    text = " ".join(question.split())
    if not text:
        raise ValueError("The research question is empty: type a question to plan.")
    chinese = cjk_count(text) >= 2
    long_request = is_long_request(text, chinese)
    criterion = ""
    if chinese:
        # A long request compares only when its first clause does ("数学与量子计算交叉领域" joins).
        options, context = chinese_options(re.split(r"[，,。；;]", text)[0] if long_request else text)
        if any(len(option) > MAX_OPTION_CHARS_ZH or "，" in option for option in options):
            options, context = (), ""  # a long request's "和" joins clauses, not options
        criterion = context
        recommends = bool(_RECOMMENDATION_ZH.search(text))
    else:
        found = _CRITERION.search(text) if not long_request else None
        if found:
            criterion = found.group("criterion").strip()
        options, context = english_options(text[: found.start()] + "?" if found else text)
        if not options:
            criterion = ""
        recommends = bool(_RECOMMENDATION_EN.search(text))
    if options:
        intent = Intent.COMPARATIVE
    elif recommends:
        intent = Intent.RECOMMENDATION
    else:
        intent = Intent.DESCRIPTIVE
    subject = _subject(text, chinese)
    key_terms = subject if chinese else (english_key_terms(subject) or english_key_terms(text) or text)
    if not chinese and not _ASKS_TO_DECIDE.match(text):
        subject = _topic(text, subject)
    plain = text.endswith(("?", "？")) and not text.startswith("(") and not long_request and "，" not in text
    if not plain:
        # A request, not a plain question: read for its own asks, the aspects it lists, its topic.
        request = read_request(question, fallback_topic=subject)
        topic, asks, aspects = request.topic, request.asks, request.aspects
        key_terms = _short_keywords(topic or (asks[0] if asks else subject), chinese)
    else:
        topic, asks, aspects = (subject if chinese or is_noun_phrase(subject) else ""), (), ()
    names = () if chinese or len(text.split()) > MAX_NAMED_WORDS else _names_in(text)
    return Reading(
        chinese, intent, subject, options, context, key_terms, topic, asks, aspects, criterion, names
    )


def _names_in(text: str) -> tuple[str, ...]:
    """The names a question mentions, without the words that ask ("Compare the Kestrel" → "Kestrel")."""
    names = []
    for name, _, _ in name_phrases(text):
        words = re.sub(r"['’]s$", "", name).split()
        while words and (words[0].lower() in _NAME_LEAD_NOISE or not re.search(r"[^\W\d_]", words[0])):
            words.pop(0)
        found = " ".join(words)
        if len(found) > 2 and found not in names:
            names.append(found)
    return tuple(names)


_NAME_LEAD_NOISE = (
    STOPWORDS | LEAD_WORDS | QUERY_NOISE | frozenset(("from", "in", "since", "during", "after"))
)
MAX_NAMED_WORDS = 60  # past this, a request's names are examples, not what it turns on
MAX_KEYWORDS = 8
MAX_KEYWORD_CHARS_ZH = 24


def _short_keywords(text: str, chinese: bool) -> str:
    """Search words for a long request: its topic's content words, a few."""
    if chinese:
        return ZH_TAILS.sub("", ZH_LEADS.sub("", END_PUNCT.sub("", text)))[:MAX_KEYWORD_CHARS_ZH]
    text = re.sub(r"^(?:what (?:is|are) known about|how to)\s+", "", text, flags=re.IGNORECASE)
    return " ".join(english_key_terms(text).split()[:MAX_KEYWORDS])


_COMPARISON_WORDS = frozenset(
    """compare compared comparing comparison difference differences differ between versus vs better
    worse best use using choose choosing pick prefer preferred which what should would""".split()
)


def asks_its_own_criterion(question: str, reading: Reading) -> bool:
    """An English comparison that names what decides it ("formed first", "faster"), beyond
    its options, its context and the words that ask for a comparison."""
    if reading.chinese:
        return False
    known = {w.lower() for part in (*reading.options, reading.context) for w in re.findall(r"[^\W_]+", part)}
    words = {w.lower() for w in re.findall(r"[^\W_]+", english_key_terms(question))}
    return bool(words - known - _COMPARISON_WORDS - QUERY_NOISE - LEAD_WORDS)
