"""Is a passage about what was asked? The question's salient terms, and a passage judged against them.

A question names a *subject* (the entities or options it is about: "PostgreSQL", "MySQL") and a
*focus* (what it asks of them: "revenue", "replication", "default port"). A passage is evidence
only when it holds the subject, and, when the focus is a measured attribute ("revenue",
"price"), that attribute too; beyond that, it must cover enough of the salient terms, each
weighted by its rarity in the passages at hand (a term every passage holds says little).

``asked_of`` reads what a sub-question and its research question ask; ``judge`` scores one
passage's terms against it. Both are pure functions of strings, so the collect stage, the
answerability probe and the benchmarks judge alike.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection, Iterable, Sequence
from dataclasses import dataclass, replace

from researchapp.pipeline.text.aspects import ATTRIBUTES
from researchapp.pipeline.text.entities import is_demonym
from researchapp.pipeline.text.quantities import extract_quantities
from researchapp.pipeline.text.question import QUERY_NOISE, read_question
from researchapp.pipeline.text.relevance import GENERIC_TERMS
from researchapp.pipeline.text.sentences import split_sentences
from researchapp.pipeline.text.tokens import STOPWORDS, cjk_count, tokenize
from researchapp.pipeline.values import SubQuestion

# Tuned on the first halves of HotpotQA, the relevance set and WiCE (bench/evidence_recall.py,
# bench/relevance.py, bench/insufficient.py); the second halves are reported.
# A passage is evidence from this weighted share of the sub-question's salient terms (recall first:
# a multi-hop answer's second paragraph holds little of the question) ...
RELEVANCE_BAR = 0.05
# A passage that misses the subject may still be a later hop's, from this share ...
HOP_BAR = 0.3
# ... and a sub-question is answered only when its best passage holds this share.
ANSWER_BAR = 0.3

# Words that ask rather than name: never part of a subject or a focus.
_ASKING = frozenset(
    """what which who whom whose when where why how many much does did do is are was were has have
    had can could should would will tell explain describe list name give find show compare
    please know like""".split()
)
_WORD = re.compile(r"[^\W_]+(?:[-'.][^\W_]+)*")
_INNER_CAPITAL = re.compile(r".[A-Z]")


@dataclass(frozen=True)
class Asked:
    """What one sub-question asks, as terms a passage can hold."""

    terms: tuple[str, ...]  # the sub-question's salient terms (text and queries), generic words out
    subject: tuple[str, ...]  # terms naming what the question is about: a passage must hold one
    focus: tuple[str, ...]  # what the question asks of its subject
    attributes: tuple[str, ...]  # the focus terms that name a measured attribute: one must be held
    options: tuple[tuple[str, ...], ...] = ()  # a comparison's options: a passage may speak of one only
    figure: str = ""  # "money" or "number" when the answer is a figure ("how many", "the price of")
    exact: tuple[
        str, ...
    ] = ()  # the question's terms with digits ("777x", "13", "2019"): a figure's must hold them
    qualifiers: tuple[str, ...] = ()  # places or events that qualify the subject ("in the United States")

    @property
    def comparative(self) -> bool:
        return bool(self.options)

    def options_named(self, held: Collection[str]) -> int:
        """How many of the compared options ``held`` names."""
        return sum(1 for option in self.options if any(term in held for term in option))

    @property
    def question_terms(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys((*self.subject, *self.focus)))


# A name after "in", "at", "on" ... that follows the question's first name qualifies it (a place, an
# event, a club): "Kepa Arrizabalaga at Chelsea", "Xilingol in Inner Mongolia".
_QUALIFIER = re.compile(
    r"(?<=[A-Za-z0-9’'\s])\b(?:in|at|on|during|from|across|within)\s+(?:the\s+)?"
    r"((?:[A-Z][\w'’.-]*)(?:\s+(?:of\s+)?[A-Z][\w'’.-]*)*)"
)
_QUOTED = re.compile(r"[\"“]([^\"“”]{2,80})[\"”]")


def _names(question: str) -> list[str]:
    """Words written as names: capitalised past the first word, or with a capital inside ("MySQL"),
    and every word of a quoted title ("Wonderland by Night"); a demonym ("an English singer") is not one."""
    matches = list(_WORD.finditer(question))
    words = [match.group() for match in matches]
    names = [word for title in _QUOTED.findall(question) for word in _WORD.findall(title)]
    for position, word in enumerate(words):
        if word.lower() in _ASKING or word.lower() in STOPWORDS:
            continue
        after = words[position + 1] if position + 1 < len(words) else ""
        joined = position and not question[matches[position - 1].end() : matches[position].start()].strip()
        before = words[position - 1] if joined else ""
        # The first word is capitalised anyway: it is a name when the next one is too ("Grace Krilanovich").
        first_of_a_name = position == 0 and len(words) > 1 and words[1][:1].isupper()
        if (
            _INNER_CAPITAL.search(word)
            or word.isupper()
            or (
                word[:1].isupper()
                and (position or first_of_a_name)
                and not is_demonym(word, before=before, after=after)
            )
        ):
            names.append(word)
    return names


def _content(terms: Iterable[str]) -> list[str]:
    return [
        term
        for term in dict.fromkeys(terms)
        if term not in GENERIC_TERMS and term not in _ASKING and term not in QUERY_NOISE
    ]


def question_parts(question: str) -> tuple[tuple[str, ...], tuple[str, ...], tuple[tuple[str, ...], ...]]:
    """(subject terms, focus terms, each compared option's own terms) of a research question."""
    text = " ".join(question.split())
    if not text:
        return (), (), ()
    reading = read_question(text)
    everything = _content(tokenize(text))
    options: tuple[tuple[str, ...], ...] = ()
    if reading.options:
        # What tells the options apart ("Kestrel", "Osprey"), not what they share ("home battery").
        # An option is a name, whatever its words ("Pick Me Up"): only stopwords leave it.
        per_option = [list(dict.fromkeys(tokenize(option))) for option in reading.options]
        shared = set.intersection(*(set(terms) for terms in per_option))
        options = tuple(tuple(t for t in terms if t not in shared) or tuple(terms) for terms in per_option)
        subject = list(dict.fromkeys(t for terms in options for t in terms))
    elif cjk_count(text) >= 2:
        subject = _content(tokenize(reading.subject))
    else:
        names = _content(tokenize(" ".join(_names(text))))
        # "the price of the Audi e-tron Sportback in the United States": the car is the subject, the
        # place qualifies it; a page on US trade talks is not about it.
        qualifiers = set(tokenize(" ".join(_QUALIFIER.findall(text))))
        subject = (
            [term for term in names if term not in qualifiers]
            or names
            or _content(tokenize(reading.key_terms))
        )
    # A comparison's named criterion ("including their fire safety") is its own sub-question's
    # matter (``asked_of``), not what every passage about the options must hold.
    criterion = set(tokenize(f"including {reading.criterion}")) if reading.criterion else set()
    focus = [term for term in everything if term not in subject and term not in criterion]
    return tuple(subject), tuple(focus), options


def asked_of(subquestion: SubQuestion, question: str = "") -> Asked:
    """What ``subquestion`` asks within ``question`` (the sub-question itself when there is none)."""
    subject, focus, options = question_parts(question or subquestion.text)
    text = " ".join((subquestion.text, *subquestion.queries))
    terms = tuple(_content(tokenize(text))) or subject
    head = asked_for(question or subquestion.text)
    # What the question asks for binds every sub-question: evidence for "what does X cost" names a price.
    asking_text = question or subquestion.text
    asked_attributes = [*head, *(t for t in focus if t in ATTRIBUTES and not _as_verb(t, asking_text))]
    # A comparison's own criterion ("including their fire safety") binds the sub-question that asks it:
    # pages that name both batteries but never their fire safety do not answer it.
    criterion = _content(tokenize(read_question(question).criterion)) if question else []
    if criterion and set(criterion) <= set(tokenize(subquestion.text)) and subquestion.text != question:
        asked_attributes += criterion
    attributes = tuple(dict.fromkeys(asked_attributes))
    asking = question or subquestion.text
    figure = _figure_asked(asking, head)
    exact = tuple(term for term in dict.fromkeys(tokenize(asking)) if any(ch.isdigit() for ch in term))
    qualifiers = tuple(_QUALIFIER.findall(" ".join(asking.split()))) if figure else ()
    return Asked(terms, subject, focus, attributes, options, figure, exact, qualifiers)


# "shares a border", "shares the same nationality": the word acts on an object, it names no attribute.
_OBJECT_AFTER = r"\s+(?:a|an|the|its|their|his|her|this|these|those|same)\b"


def _as_verb(term: str, question: str) -> bool:
    """``term`` stands in ``question`` only as a verb with its object ("county shares a border")."""
    forms = [m for m in re.finditer(rf"\b{re.escape(term)}\w*", question, re.IGNORECASE)]
    return bool(forms) and all(
        re.match(_OBJECT_AFTER, question[m.end() :], re.IGNORECASE)
        and not re.search(r"\b(?:the|a|an|its|their|market)\s*$", question[: m.start()], re.IGNORECASE)
        for m in forms
    )


_HOW_MANY = re.compile(r"^\s*how\s+(?:many|much)\b", re.IGNORECASE)
_MONEY_WORDS = frozenset(
    tokenize("salary wage wages pay earnings fee fees price cost costs revenue income profit")
)
_MONEY_FAMILIES = frozenset(("price", "revenue", "profit"))
# Attributes whose value is a figure: "the population of", "the weight of".
_MEASURED_FAMILIES = frozenset(
    """population weight temperature height length depth area capacity speed power range lifetime
    efficiency share sales users employees age cycles""".split()
)


def _figure_asked(question: str, attributes: Sequence[str]) -> str:
    """What kind of figure answers the question, read from what it asks for (its head, not every
    word: "chief of staff to which senator" asks for a name): "money" ("what is the price of X",
    "how much does X cost"), "number" ("how many", "the population of"), or "" (a name, a reason)."""
    families = {ATTRIBUTES.get(term, "") for term in attributes}
    if families & _MONEY_FAMILIES or set(attributes) & _MONEY_WORDS:
        return "money"
    if _HOW_MANY.match(question):
        return "money" if set(tokenize(question)) & _MONEY_WORDS else "number"
    return "number" if families & _MEASURED_FAMILIES else ""


# A sentence that names the attribute to say it is not known: "US pricing has not been confirmed".
_UNSTATED = re.compile(
    r"\b(?:not\s+(?:yet\s+)?(?:been\s+)?(?:confirmed|announced|disclosed|revealed|released|known|available|"
    r"published|set)|undisclosed|unknown|unconfirmed|to be (?:announced|confirmed|revealed)|yet to be|"
    r"declined to (?:say|disclose|comment)|did not (?:say|disclose|reveal))\b",
    re.IGNORECASE,
)


# What a qualifying place is also called: "in the United States" is "US pricing".
_ALSO_CALLED = {
    "united states": r"U\.?S\.?A?|America|American",
    "united kingdom": r"U\.?K\.?|Britain|British",
    "european union": r"EU|Europe|European",
}


def _names_qualifier(qualifier: str, sentence: str) -> bool:
    words = qualifier.split()
    alias = _ALSO_CALLED.get(qualifier.lower())
    pattern = r"\s+".join(map(re.escape, words)) + (f"|{alias}" if alias else "")
    return bool(re.search(rf"\b(?:{pattern})\b", sentence, re.IGNORECASE))


def states_attribute(asked: Asked, text: str, *, title: str = "", later_hop: bool = False) -> bool:
    """``text`` states what is asked. Without a figure asked, it names every asked-for attribute
    (``holds_attribute``). With one, one of its sentences names the attribute (or its page's title
    does), holds a figure of the asked kind (an amount of money for a price), names the place or
    event that qualifies the subject ("in the United States"), does not say the value is unknown
    ("US pricing has not been confirmed"), and, with the sentence before it, holds every
    digit-bearing term of the question (the "777x" of "the Boeing 777x", the "2019" of "revenue
    in 2019"). A later hop's passage (about the bridge, not the subject) answers for the bridge:
    the question's own years and places were the first hop's."""
    if not asked.figure:
        held = set(tokenize(f"{title} {text}"))
        return holds_attribute(
            asked, held, has_money=any(q.kind == "money" for q in extract_quantities(text))
        )
    title_terms = set(tokenize(title))
    exact = set() if later_hop else set(asked.exact)
    qualifiers = () if later_hop else asked.qualifiers
    # Each asked-for attribute in a sentence of its own: "the capacity ... and how much power".
    unstated = set(asked.attributes)
    before: set[str] = set()
    for start, end in split_sentences(text):
        sentence = text[start:end]
        terms = set(tokenize(sentence))
        figures = [q for q in extract_quantities(sentence) if q.kind != "year"]
        money = any(q.kind == "money" for q in figures)
        if (
            (money if asked.figure == "money" else bool(figures))
            and exact <= terms | before | title_terms
            and not _UNSTATED.search(sentence)
            and all(_names_qualifier(qualifier, sentence) for qualifier in qualifiers)
        ):
            unstated -= {
                term
                for term in unstated
                if holds_attribute(replace(asked, attributes=(term,)), terms | title_terms, has_money=money)
            }
            if not unstated:
                return True
        before = terms
    return False


@dataclass(frozen=True)
class Judgement:
    relevance: float  # weighted share of the sub-question's salient terms the passage holds, 0..1
    question_relevance: float  # the same for the research question's subject and focus
    matched: tuple[str, ...]  # the salient terms it holds
    clears: bool  # it counts as evidence
    missing: tuple[str, ...] = ()  # what it lacks of what is required (subject or attribute)


def _share(terms: Sequence[str], held: Collection[str], weight: Callable[[str], float]) -> float:
    total = sum(weight(term) for term in terms)
    return sum(weight(term) for term in terms if term in held) / total if total else 1.0


def judge(
    asked: Asked,
    held: Collection[str],
    weight: Callable[[str], float],
    *,
    bar: float = RELEVANCE_BAR,
) -> Judgement:
    """1. the subject must be held (one option of a comparison is enough: the other options' names
    then leave the weighing); 2. the weighted share of the sub-question's salient terms must reach
    ``bar``. Whether an asked-for attribute is held is judged over a set of passages
    (``holds_attribute``): in a multi-hop answer, the attribute is in the last hop's passage."""
    terms, question_terms = asked.terms, asked.question_terms
    if asked.comparative and any(term in held for term in asked.subject):
        others = {term for term in asked.subject if term not in held}
        terms = tuple(term for term in terms if term not in others) or terms
        question_terms = tuple(term for term in question_terms if term not in others) or question_terms
    relevance = _share(terms, held, weight)
    question_relevance = _share(question_terms, held, weight)
    matched = tuple(term for term in dict.fromkeys((*asked.terms, *asked.question_terms)) if term in held)
    missing = () if not asked.subject or any(term in held for term in asked.subject) else asked.subject
    # Without the subject, a passage that holds much of the rest may be a later hop's ("based in
    # Columbus, Ohio" for "the house that published her novel"); a set of passages still needs
    # one that holds the subject (``PassagePool.answers``).
    clears = relevance >= (bar if not missing else HOP_BAR)
    return Judgement(round(relevance, 4), round(question_relevance, 4), matched, clears, missing)


def holds_attribute(asked: Asked, held: Collection[str], *, has_money: bool = False) -> bool:
    """The passages' terms (``held``) name every asked-for attribute: the word itself or a form of
    it ("valued" for "value"), or a word of its family ("turnover" names revenue); an amount of
    money names a price."""
    families = {ATTRIBUTES[term] for term in held if term in ATTRIBUTES}
    return all(
        _named(term, held)
        or ATTRIBUTES.get(term, "") in families
        or (has_money and ATTRIBUTES.get(term) == "price")
        for term in asked.attributes
    )


_STEM_CHARS = 5


def _named(term: str, held: Collection[str]) -> bool:
    """The word or a longer form of it ("valued", "temperatures"), never a mere look-alike."""
    return term in held or (len(term) >= _STEM_CHARS and any(word.startswith(term) for word in held))


# "What is the weekly salary of ...", "What fee did ...", "How many employees does ...": the thing
# asked for, which an answer must name. Who/where/when questions ask for no word in particular.
_ASKED_FOR = (
    re.compile(r"^\s*(?:what|which)\s+(?:is|was|are|were)\s+(?:the\s+|a\s+|an\s+)?(?P<x>[^?]+?)\s+"
               r"(?:of|for|in|at|on|from|does|did|do|has|had|have)\b", re.IGNORECASE),
    re.compile(r"^\s*(?:what|which)\s+(?:is|was|are|were)\s+(?P<x>[\w'’ -]+?)'s?\s+(?P<y>[\w -]+)\??$",
               re.IGNORECASE),
    re.compile(r"^\s*how\s+many\s+(?P<x>[\w -]+?)\s+(?:does|did|do|is|are|was|were|has|have|had|will)\b",
               re.IGNORECASE),
)  # fmt: skip


# "How many times was she premier?" is answered by "twice": the counted word is not named.
_COUNTS_ONLY = frozenset(("time",))


def asked_for(question: str) -> tuple[str, ...]:
    """The head word of what a question asks for ("salary" in "What is the weekly salary of X?")."""
    text = " ".join(question.split())
    for pattern in _ASKED_FOR:
        match = pattern.match(text)
        if match:
            phrase = match.groupdict().get("y") or match.group("x")
            terms = [t for t in tokenize(phrase) if t not in GENERIC_TERMS and t not in _ASKING]
            return tuple(t for t in terms[-1:] if t not in _COUNTS_ONLY)
    return ()
