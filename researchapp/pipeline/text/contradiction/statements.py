"""Statements as the contradiction rules read them: a sentence of a passage, its words and names.

Words are compared by a rough root ("issued", "issue" and "issues" meet; "declining" and
"declined" meet), because two sources that disagree seldom use the same inflection. Names are the
capitalised runs of ``text.entities``. Everything keeps its span in the passage, so a judgement can
say which words of each side differ.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from researchapp.pipeline.text.entities import DEMONYMS, name_phrases
from researchapp.pipeline.text.relevance import GENERIC_TERMS
from researchapp.pipeline.text.sentences import split_sentences
from researchapp.pipeline.text.tokens import Span, Token, tokenize_spans

_SUFFIXES = ("ingly", "ings", "ing", "edly", "ied", "ies", "ed", "es", "ly", "e", "s")
# Irregular forms meet their verb: "sold" and "sells", "fell" and "falling", "paid" and "pays".
_IRREGULAR = {
    form: verb
    for verb, forms in {
        "sell": "sold", "buy": "bought", "fall": "fell fallen", "rise": "rose risen", "grow": "grew grown",
        "pay": "paid", "win": "won", "lose": "lost", "build": "built", "give": "gave given",
        "write": "wrote written", "find": "found", "hold": "held", "lead": "led", "bring": "brought",
        "catch": "caught", "think": "thought", "become": "became", "know": "knew known",
        "see": "saw seen", "keep": "kept", "spend": "spent", "send": "sent", "shoot": "shot",
        "speak": "spoke spoken", "steal": "stole stolen", "begin": "began begun", "drive": "drove driven",
        "choose": "chose chosen", "forbid": "forbade forbidden", "leave": "left", "meet": "met",
        "save": "saving savings saved saves", "die": "died dies dying dead death deaths",
    }.items()
    for form in forms.split()
}  # fmt: skip


def root(term: str) -> str:
    """A rough root: inflections of one word meet; short words and numbers stay as they are."""
    if term in _IRREGULAR:
        return _IRREGULAR[term]
    if len(term) <= 4 or not term.isalpha() or not term.isascii():
        return term
    for suffix in _SUFFIXES:
        if term.endswith(suffix) and len(term) - len(suffix) >= 4:
            return term[: -len(suffix)]
    return term


# Words too common in claims and reports to say two statements are about one thing.
_WEAK_WORDS = GENERIC_TERMS | frozenset(
    """said says say told tell according report reported reports claim claimed claims stated state
    states also just now still even actually really new one two first last year years people time
    times day days week weeks month months many much well make made get got take took use used
    like place put came come went go gone taken today yesterday january february march april may june
    july august september october november december jan feb mar apr jun jul aug sep sept oct nov dec
    monday tuesday wednesday thursday friday saturday sunday""".split()
)


_WEAK = frozenset(root(word) for word in _WEAK_WORDS)


@dataclass(frozen=True)
class Word:
    root: str
    start: int
    end: int


@dataclass(frozen=True)
class Statement:
    """One sentence of a passage: ``text[start:end]`` is the sentence, ``text`` the whole passage."""

    text: str
    start: int
    end: int
    words: tuple[Word, ...]  # content words, in order
    names: tuple[tuple[str, int, int], ...]  # capitalised runs: (name, start, end)

    @property
    def sentence(self) -> str:
        return self.text[self.start : self.end]

    @property
    def roots(self) -> frozenset[str]:
        return frozenset(word.root for word in self.words)

    @property
    def topic(self) -> frozenset[str]:
        """Roots that can say what the statement is about (no numbers, no weak words)."""
        return frozenset(w.root for w in self.words if w.root not in _WEAK and not w.root.isdigit())

    def index_of(self, position: int) -> int:
        """The index of the first content word starting at or after ``position``."""
        for index, word in enumerate(self.words):
            if word.start >= position:
                return index
        return len(self.words)


# A short word's plural in "-es" ("taxes", "boxes"): the tokenizer folds only the "s" away.
_SIBILANT_PLURAL = re.compile(r"[a-z]{1,3}(?:x|z|ch|sh|ss)es", re.IGNORECASE)


def _word(token: Token, text: str) -> Word:
    written = text[token.start : token.end]
    if _SIBILANT_PLURAL.fullmatch(written) and token.text == written[:-1].lower():
        return Word(written[:-2].lower(), token.start, token.end)  # "taxes" and "tax": one word
    return Word(root(token.text), token.start, token.end)


# Stopwords of search that carry what a statement asserts: "Biden does not own an island", and
# acronyms written in capitals ("WHO is advertising jobs").
_KEPT = re.compile(r"\b(?:own|owns|owned|owning)\b", re.IGNORECASE)
_ACRONYM = re.compile(r"\b(?:WHO|US|IT|AI|UN|EU|UK)\b")
# One thing under several names: each is read as one word, whichever name a source uses.
_ALIASES = (
    (
        "usa",
        r"\bU\.\s?S\.(?:\s?A\.)?|\bUSA?\b|\bUnited\s+States(?:\s+of\s+America)?\b"
        r"|(?<!South\s)(?<!North\s)(?<!Latin\s)(?<!Central\s)\bAmerica\b",
    ),
    ("uk", r"\bU\.K\.|\bUK\b|\bUnited\s+Kingdom\b|\b(?:Great\s+)?Britain\b"),
    ("covid", r"\b(?:COVID|Covid|covid)(?:[-\s]?19)?\b|\b(?:novel\s+)?[Cc]oronavirus\b|\bSARS-CoV-2\b"),
    ("eu", r"\bEU\b|\bEuropean\s+Union\b"),
    ("un", r"\bUN\b|\bUnited\s+Nations\b"),
    ("who", r"\bWHO\b|\bWorld\s+Health\s+Organi[sz]ation\b"),
)
_ALIAS = re.compile("|".join(f"(?P<{name}>{pattern})" for name, pattern in _ALIASES))


def _words(text: str) -> list[Word]:
    aliases = [Word(m.lastgroup or "", m.start(), m.end()) for m in _ALIAS.finditer(text)]
    words = [_word(t, text) for t in tokenize_spans(text)]
    words += [Word("own", m.start(), m.end()) for m in _KEPT.finditer(text)]
    taken = {w.start for w in words}
    words += [
        Word(m.group().lower(), m.start(), m.end()) for m in _ACRONYM.finditer(text) if m.start() not in taken
    ]
    # the words of an alias are the alias: "United States" shares one word with "U.S.", not two
    words = [w for w in words if not any(a.start <= w.start < a.end for a in aliases)] + aliases
    return sorted(words, key=lambda word: word.start)


_DEMONYM = re.compile(r"\b[A-Z][a-z]+\b")


def _names(text: str) -> list[tuple[str, int, int]]:
    """Capitalised runs, and adjectives of peoples ("the French embassy" / "the German embassy")."""
    names = name_phrases(text)
    for match in _DEMONYM.finditer(text):
        inside = any(s <= match.start() < e for _, s, e in names)
        if not inside and match.group().lower() in DEMONYMS:
            names.append((match.group(), match.start(), match.end()))
    return sorted(names, key=lambda name: name[1])


_TERMINAL = re.compile(r"[.!?…。！？]['\"’”)]*\s*$")


def unwrapped(text: str, spans: list[Span]) -> list[Span]:
    """Sentences as written, not as hard-wrapped: a line break that cuts a sentence (the piece
    before it ends without a full stop and the next piece starts in lower case or with a figure)
    joins the two pieces again ("the total saving / to the taxpayer ... amounted to £3.0 / billion")."""
    joined: list[Span] = []
    for start, end in spans:
        head = text[start:end].lstrip()
        if joined and not _TERMINAL.search(text[joined[-1][0] : joined[-1][1]]) and head[:1].islower():
            joined[-1] = (joined[-1][0], end)
        elif joined and not _TERMINAL.search(text[joined[-1][0] : joined[-1][1]]) and head[:1].isdigit():
            joined[-1] = (joined[-1][0], end)
        else:
            joined.append((start, end))
    return joined


@lru_cache(maxsize=2048)
def statements_of(text: str) -> tuple[Statement, ...]:
    """The passage's sentences as statements (cached: a passage meets many others)."""
    every_word = _words(text)
    names = _names(text)
    found = []
    for start, end in unwrapped(text, split_sentences(text)) or [(0, len(text))]:
        words = tuple(w for w in every_word if start <= w.start and w.end <= end)
        inside = tuple(n for n in names if start <= n[1] and n[2] <= end)
        found.append(Statement(text, start, end, words, inside))
    return tuple(found)


def passage_topic(text: str) -> frozenset[str]:
    """The passage's topic roots, and its names' roots again as ``name:<root>`` (see ``shared_topic``)."""
    statements = statements_of(text)
    topic = frozenset().union(*(s.topic for s in statements))
    return topic | frozenset(f"name:{r}" for s in statements for r in name_roots(s)) | _figures(text)


_FIGURE = re.compile(r"(?<![\d.,])\d{1,3}(?:,\d{3})+(?![\d,])|(?<![\d.,])\d{3,}(?![\d,])")


def _figures(text: str) -> frozenset[str]:
    """Figures of three digits or more ("2013", "4500" and "4,500" alike) as ``value:<digits>``:
    two passages giving one specific figure are likely about one thing, whatever else they say."""
    return frozenset(f"value:{m.group().replace(',', '')}" for m in _FIGURE.finditer(text))


_CLAUSE = re.compile(r"[;:]|\s[–—]\s|,\s+(?:but|while|whereas|although|though)\s|\bbut\b")


def clause_of(statement: Statement, position: int) -> Span:
    """The clause of the statement's sentence around ``position`` (a colon or "but" ends one)."""
    start, end = statement.start, statement.end
    for match in _CLAUSE.finditer(statement.text, statement.start, statement.end):
        if match.end() <= position:
            start = match.end()
        elif match.start() > position:
            end = match.start()
            break
    return start, end


_YEAR = re.compile(
    r"(?<![\d,.$£€₹-])(?:1[5-9]\d\d|20\d\d)(?!\d|,\d|%|\s?(?:percent|per cent|million|billion))"
)


def years_in(text: str, span: Span) -> frozenset[int]:
    """The years written in ``text[span]`` ("2017 was the costliest year", "in 2018")."""
    return frozenset(int(m.group()) for m in _YEAR.finditer(text, span[0], span[1]))


def is_year(text: str) -> bool:
    return bool(_YEAR.fullmatch(text.strip()))


def shared_topic(a: Statement, b: Statement) -> frozenset[str]:
    """Roots both statements hold; a name both hold counts twice (as ``name:<root>`` too): two
    statements about "FEMA" or "Voltaire" are about one thing even when they share little else."""
    shared = a.topic & b.topic
    named = name_roots(a) & name_roots(b)
    return shared | frozenset(f"name:{r}" for r in named)


def name_roots(statement: Statement) -> frozenset[str]:
    return (
        frozenset(
            w.root for w in statement.words for _, s, e in statement.names if s <= w.start and w.end <= e
        )
        & statement.topic
    )
