"""A question's terms in its sources' language: Chinese questions over English pages, and the reverse.

"默认编译设置下，SQLite 的一张表最多可以有多少列？" over the SQLite manual is searched and judged as
"default compile SQLite table column": Chinese is cut into words (jieba), function words and
numerals go (by jieba's part of speech), each content word takes its English sense from CC-CEDICT
(``lexicon``), and names written in Latin letters stay as written ("SQLite", "gc.reflogExpire").

A word has several senses (表: table, form, meter, watch); the sources decide. With a
``Vocabulary`` (the terms of the pages searched, and how many pages hold each), a sense counts
only if the pages use its words, a sense marked technical ("(computing) to compile") comes first,
then the one the pages use most, earlier senses winning a near tie. A word none of whose senses
the pages use is left out: it cannot find or judge anything there. Without a vocabulary (a web
search), the technical sense, else the first.

``translate`` gives a text's words with their translations and a search query; ``TermBridge``
maps tokens (``tokens.tokenize``'s terms) one by one, which is how the relevance judgement reads a
sub-question over sources in the other language (``bridge_asked``). Both are the seam a reader
uses: ``translate(question, language, vocabulary).terms`` are the question's terms in the sources'.
"""

from __future__ import annotations

import bisect
import math
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace

import rjieba

from researchapp.pipeline.text import lexicon
from researchapp.pipeline.text.salience import Asked
from researchapp.pipeline.text.tokens import CJK_RANGES, STOPWORDS, cjk_count, is_cjk_stopword, tokenize

ENGLISH, CHINESE = "en", "zh"
# How much of each source the language is read from, and of how many sources.
SAMPLE_CHARS, SAMPLED_SOURCES = 2000, 40
# Words of a search query (``planner.checks`` asks for keywords, at most 12): each word's best
# sense first, then second senses of one word ("release" for 版本, not "translate and edit" for
# 编译); the relevance judgement takes the best sense only.
QUERY_WORDS = 12
# Each place further down the dictionary's senses costs a sense as much as being used e^ORDER_WEIGHT
# times less often by the sources: 表 is "table" in a manual on tables, not its third sense, "show".
ORDER_WEIGHT = 0.3
# Function words by jieba's part of speech: numerals, measure words, pronouns, prepositions,
# conjunctions, particles, locatives, adverbs, modal particles, interjections, punctuation.
_FUNCTION_TAGS = re.compile(r"^(?:m|mq|q|r|rr|rz|p|c|u\w*|f|d|y|e|o|x|w)$")
_NEGATIONS = frozenset(("未", "不", "非", "无", "没", "没有"))
_SEGMENTS = re.compile(f"([{CJK_RANGES}]+)|([^{CJK_RANGES}]+)")
_NAME = re.compile(r"[A-Za-z0-9][\w.+/-]*[A-Za-z0-9]|[A-Za-z0-9]")
_SUFFIXES = ("ing", "ion", "ed", "es", "e", "s")
_MIN_STEM = 4
_MAX_FORM_EXTRA = 4


def language_of(texts: Iterable[str]) -> str:
    """ "zh" when the texts are mostly Chinese (a Chinese word is about two characters), else "en"."""
    chinese_words = latin_words = 0
    for count, text in enumerate(texts):
        if count >= SAMPLED_SOURCES:
            break
        sample = text[:SAMPLE_CHARS]
        chinese_words += cjk_count(sample) // 2
        latin_words += len(re.findall(r"[A-Za-z]{2,}", sample))
    return CHINESE if chinese_words > latin_words else ENGLISH


def text_language(text: str) -> str:
    """A question's language, by the pipeline's one rule: two CJK characters make it Chinese."""
    return CHINESE if cjk_count(text) >= 2 else ENGLISH


class Vocabulary:
    """The terms of the sources searched, with their postings in a BM25 index ((document, count)
    pairs): which sense of a word the sources use, and in which form ("pruned")."""

    def __init__(self, postings: Mapping[str, Sequence[tuple[int, int]]] | None = None):
        self.postings = postings or {}
        self._sorted: list[str] | None = None
        self.cache: dict[tuple[str, str], tuple[str, ...]] = {}

    @property
    def known(self) -> bool:
        return bool(self.postings)

    def frequency(self, term: str) -> int:
        """How often the sources use ``term``: occurrences, not documents, as in a small corpus
        the commonest words are in every document ("table" and "show" in a manual on tables)."""
        return sum(count for _, count in self.postings.get(term, ()))

    def holds(self, term: str) -> bool:
        return term in self.postings

    def form(self, term: str) -> str:
        """``term`` if the sources use it, else their commonest form of it ("prune" → "pruned"),
        else "" (always ``term`` when nothing is known of the sources)."""
        if not self.known or self.holds(term):
            return term
        stem = next(
            (
                term[: -len(end)]
                for end in _SUFFIXES
                if term.endswith(end) and len(term) - len(end) >= _MIN_STEM
            ),
            term,
        )
        if len(stem) < _MIN_STEM:
            return ""
        forms = [
            word
            for word in self.starting_with(stem)
            if len(word) <= len(stem) + _MAX_FORM_EXTRA and word.isalpha()
        ]
        return max(forms, key=lambda word: (self.frequency(word), word), default="")

    def starting_with(self, stem: str) -> list[str]:
        """The sources' terms that begin with ``stem``, in order."""
        if self._sorted is None:
            self._sorted = sorted(self.postings)
        words = []
        for word in self._sorted[bisect.bisect_left(self._sorted, stem) :]:
            if not word.startswith(stem):
                break
            words.append(word)
        return words


@dataclass(frozen=True)
class Translation:
    """A text's words in another language: each word as written with its translations, best first;
    a name written in Latin letters translates to itself."""

    language: str
    words: tuple[tuple[str, tuple[str, ...]], ...]

    @property
    def query(self) -> str:
        """Search words, at most ``QUERY_WORDS``: each word's best sense, names as written, then
        as room allows the second senses of one word ("release" for 版本)."""
        best = [word for _, senses in self.words for word in senses[0].split()]
        more = [
            sense
            for _, senses in self.words
            if len(senses) > 1 and " " not in senses[1]
            for sense in senses[1:2]
        ]
        words = list(dict.fromkeys(best))[:QUERY_WORDS]
        words += [word for word in dict.fromkeys(more) if word not in words][: QUERY_WORDS - len(words)]
        return " ".join(words)

    @property
    def terms(self) -> tuple[str, ...]:
        """The tokens of each word's best sense: what a passage in ``language`` is judged on."""
        return tuple(
            dict.fromkeys(term for _, senses in self.words if senses for term in tokenize(senses[0]))
        )


def _sense_key(sense: lexicon.Sense, vocabulary: Vocabulary) -> tuple:
    if not vocabulary.known:
        return (not sense.domain, sense.order)
    forms = [vocabulary.form(term) for term in tokenize(sense.english)]
    frequency = min((vocabulary.frequency(form) for form in forms if form), default=0)
    used = bool(forms) and all(forms)
    return (not used, not sense.domain, ORDER_WEIGHT * sense.order - math.log1p(frequency))


def _in_sources(english: str, vocabulary: Vocabulary) -> str:
    """A sense in the form the sources write it ("prune" where they say "pruned")."""
    words = [
        vocabulary.form(word) or word if word.lower() not in STOPWORDS else word for word in english.split()
    ]
    return " ".join(words)


def english_senses(word: str, vocabulary: Vocabulary, *, negated: bool = False) -> tuple[str, ...]:
    """A Chinese word's English senses the sources use, best first; a word no dictionary entry
    holds ("默认值") is read as the words it is made of (默认 + 值: "default value")."""
    found = lexicon.senses(word)
    if not found:
        parts = _parts(word)
        if len(parts) < 2:
            return ()
        english = [english_senses(part, vocabulary)[:1] for part in parts if not is_cjk_stopword(part)]
        return (" ".join(senses[0] for senses in english if senses),) if any(english) else ()
    content = [sense for sense in found if tokenize(sense.english)]
    ranked = sorted(content, key=lambda sense: _sense_key(sense, vocabulary))
    if vocabulary.known:
        ranked = [sense for sense in ranked if not _sense_key(sense, vocabulary)[0]]
    senses = [_in_sources(sense.english, vocabulary) for sense in ranked]
    if negated and vocabulary.known:
        # "未跟踪的文件": the sources' word is "untracked", a form the dictionary does not list.
        undone = next(
            (form for sense in senses for term in tokenize(sense) if (form := vocabulary.form(f"un{term}"))),
            "",
        )
        senses = [undone, *senses] if undone else senses
    return tuple(dict.fromkeys(senses))


def _parts(word: str) -> list[str]:
    """A word cut into dictionary words, longest first from the left ("默认值" → 默认, 值)."""
    parts, start = [], 0
    while start < len(word):
        end = next(
            (end for end in range(len(word), start, -1) if lexicon.is_headword(word[start:end])), start + 1
        )
        parts.append(word[start:end])
        start = end
    return parts


def chinese_senses(word: str, vocabulary: Vocabulary) -> tuple[str, ...]:
    """The Chinese words for an English word, the ones the sources use first, technical senses next."""
    found = lexicon.chinese_words(word)
    if vocabulary.known:
        found = tuple(entry for entry in found if vocabulary.frequency(entry[0]))
    ranked = sorted(
        found,
        key=lambda entry: (
            not entry[2],
            entry[1] - math.log1p(vocabulary.frequency(entry[0])) / ORDER_WEIGHT,
            not 2 <= len(entry[0]) <= 4,
        ),
    )
    return tuple(dict.fromkeys(entry[0] for entry in ranked))


def _chinese_content(run: str) -> list[tuple[str, str]]:
    """The content words of a run of Chinese, each with the negation just before it ("未", or "")."""
    words, negation = [], ""
    for word, tag in rjieba.tag(run):
        if word in _NEGATIONS:
            negation = word
            continue
        if not is_cjk_stopword(word) and not _FUNCTION_TAGS.match(tag):
            words.append((word, negation))
        negation = ""
    return words


def keywords(text: str) -> str:
    """A text's content words as a keyword query, as written and each once: Chinese words without
    the function words around them, names in Latin letters ("SQLite 的一张表有多少列" → "SQLite 表 列")."""
    words: list[str] = []
    for chinese, other in _SEGMENTS.findall(text):
        if chinese:
            # A negation stays with its word: 未跟踪 ("untracked") is not 跟踪 ("tracking").
            words += [negation + word for word, negation in _chinese_content(chinese)]
        else:
            words += [word for word in _NAME.findall(other) if word.lower() not in STOPWORDS]
    return " ".join(dict.fromkeys(words))


def translate(text: str, language: str, vocabulary: Vocabulary | None = None) -> Translation:
    """``text``'s words in ``language`` ("en" or "zh"); a text already in it keeps its words."""
    vocabulary = vocabulary or Vocabulary()
    words: list[tuple[str, tuple[str, ...]]] = []
    for chinese, other in _SEGMENTS.findall(text):
        if chinese and language == ENGLISH:
            words += [
                (word, english_senses(word, vocabulary, negated=bool(negation)))
                for word, negation in _chinese_content(chinese)
            ]
        elif chinese:
            words += [(word, (word,)) for word, _ in _chinese_content(chinese)]
        else:
            words += [_other_word(name, language, vocabulary) for name in _NAME.findall(other)]
    return Translation(language, tuple((word, senses) for word, senses in words if senses))


def _other_word(word: str, language: str, vocabulary: Vocabulary) -> tuple[str, tuple[str, ...]]:
    """A word in Latin letters: a name stays as written; into Chinese, a plain English word
    ("default", "port") takes its Chinese words, and keeps itself last for pages that use it."""
    terms = tokenize(word)
    if language == ENGLISH or word.lower() in STOPWORDS or not terms or _is_name(word):
        return word, (word,) if terms or word.lower() in STOPWORDS else ()
    return word, (*chinese_senses(terms[0], vocabulary), word)


def _is_name(word: str) -> bool:
    return not word.isalpha() or not word.islower() and not word.istitle() or word.isupper()


class TermBridge:
    """Tokens mapped into the sources' language one by one (cached per vocabulary)."""

    def __init__(self, language: str, vocabulary: Vocabulary):
        self.language = language
        self.vocabulary = vocabulary

    def term(self, term: str) -> tuple[str, ...]:
        """One token's tokens in the sources' language: itself when it is in that language already."""
        if (cjk_count(term) > 0) == (self.language == CHINESE):
            return (term,)
        key = (term, self.language)
        if key not in self.vocabulary.cache:
            translation = translate(term, self.language, self.vocabulary)
            self.vocabulary.cache[key] = translation.terms
        return self.vocabulary.cache[key]

    def terms(self, terms: Sequence[str]) -> list[str]:
        return list(dict.fromkeys(mapped for term in terms for mapped in self.term(term)))

    def asked(self, asked: Asked) -> Asked:
        """What a sub-question asks, in the sources' terms (figures and places are written alike)."""
        return replace(
            asked,
            terms=tuple(self.terms(asked.terms)),
            subject=tuple(self.terms(asked.subject)),
            focus=tuple(self.terms(asked.focus)),
            attributes=tuple(self.terms(asked.attributes)),
            options=tuple(tuple(self.terms(option)) for option in asked.options),
        )
