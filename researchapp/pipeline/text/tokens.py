"""Tokens: English words (stopwords dropped, plurals folded) and Chinese words, with their spans.

Chinese is segmented into words by jieba's dictionary and algorithm (``rjieba``, the jieba-rs
binding) in search mode: a long word and the dictionary words within it ("电动汽车" gives 电动,
汽车, 电动汽车), so a query for 汽车 still finds 电动汽车 as the two-character fragments used to,
while a term is a word a lexicon can translate (``crosslang``), not a fragment ("表最", "多可").

Every span is a ``(start, end)`` pair into the string that was passed in, so ``text[start:end]``
is always the exact, verbatim piece: quotes are cut from such spans, and the whole product
promises that ``snapshot[start:end] == quote``.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache

import rjieba

Span = tuple[int, int]

STOPWORDS = frozenset(
    """
    a about above after again against all also am an and any are as at be because been before
    being below between both but by can could did do does doing done down during each either
    etc few for from further had has have having he her here hers him his how i if in into is it
    its itself just me more most my no nor not of off on once only or other our ours out over own
    per s same she should so some such t than that the their theirs them then there these they
    this those through to too under until up us very via vs versus was we were what when where
    which while who whom whose why will with would yes you your yours
    """.split()
)

# Function characters: a Chinese word made only of these carries no topic ("有何", "是否", "的").
CJK_STOP_CHARS = frozenset("的了吗呢吧啊是在有和与及或也都而之其这那哪什么如何为对于把被从向到个些一年月日")
# Function words with a content character in them: they ask or join, they name nothing.
CJK_STOPWORDS = frozenset(
    """
    可以 可能 能够 需要 应该 哪个 哪些 哪种 哪一种 哪里 多少 多久 怎样 怎么
    怎么样 如果 因为 所以 但是 然后 以及 还是 或者 就是 这个 那个 这些 那些
    这种 那种 我们 你们 他们 它们 我 你 他 她 它 您 会 要 能 时 时候 上 下
    中 里 内 多 少 即 则 就 并 还 又 再 很 更 最 已 已经 不 没 没有 吗
    呢 得 地 着 过 被 让 给 使 将 所 以 于 并且
    """.split()
)

CJK_RANGES = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
_CJK_RUN = re.compile(f"[{CJK_RANGES}]+")
# Unicode letters and digits other than CJK: "Alû" must not become "al".
_WORD_OR_CJK = re.compile(f"([{CJK_RANGES}]+)|([^\\W_{CJK_RANGES}]+)")
_ASCII_WORD = re.compile(r"[a-z0-9]+")


def is_cjk(char: str) -> bool:
    return bool(_CJK_RUN.fullmatch(char))


def cjk_count(text: str) -> int:
    return sum(len(run) for run in _CJK_RUN.findall(text))


@dataclass(frozen=True)
class Token:
    text: str
    start: int
    end: int


def _fold(word: str) -> str:
    """Lower-case and strip accents, so "Alû" and "Alu" meet."""
    decomposed = unicodedata.normalize("NFKD", word.casefold())
    return "".join(ch for ch in decomposed if not unicodedata.combining(ch))


def _stem(word: str) -> str:
    """Fold English plurals only: "costs"/"cost" must match, but stemming harder hurts names."""
    if len(word) <= 3 or word.isdigit() or word[-1] != "s" or word.endswith(("ss", "us", "is")):
        return word
    if word.endswith("ies") and len(word) > 4:
        return word[:-3] + "y"
    return word[:-1]


def is_cjk_stopword(word: str) -> bool:
    return word in CJK_STOPWORDS or (bool(word) and all(char in CJK_STOP_CHARS for char in word))


@lru_cache(maxsize=1 << 14)
def _cjk_words(run: str) -> tuple[tuple[str, int, int], ...]:
    """The content words of a run of CJK characters with their offsets in it; cached, as a run
    ("默认值", "数据库") comes back in every page of a corpus."""
    return tuple(
        (word, start, end)
        for word, start, end in rjieba.tokenize(run, mode="search")
        if not is_cjk_stopword(word)
    )


def _cjk_tokens(run: str, offset: int) -> Iterable[Token]:
    for word, start, end in _cjk_words(run):
        yield Token(word, offset + start, offset + end)


def tokenize_spans(text: str) -> list[Token]:
    """Content tokens with their spans: English words (stopwords dropped), Chinese words."""
    tokens: list[Token] = []
    for match in _WORD_OR_CJK.finditer(text):
        if match.group(1):
            tokens.extend(_cjk_tokens(match.group(1), match.start()))
            continue
        folded = _fold(match.group(2))
        if len(folded) != len(match.group(2)):
            # Accents folded away changed the length: spans then cover the whole word.
            for piece in _ASCII_WORD.findall(folded):
                if piece not in STOPWORDS:
                    tokens.append(Token(_stem(piece), match.start(), match.end()))
            continue
        for piece in _ASCII_WORD.finditer(folded):
            word = piece.group()
            if word not in STOPWORDS:
                tokens.append(Token(_stem(word), match.start() + piece.start(), match.start() + piece.end()))
    return tokens


@lru_cache(maxsize=1 << 16)
def _word_terms(word: str) -> tuple[str, ...]:
    """The terms of one non-CJK word; cached, as a corpus repeats the same words endlessly."""
    folded = word.lower() if word.isascii() else _fold(word)
    pieces = (folded,) if folded.isascii() else tuple(_ASCII_WORD.findall(folded))
    return tuple(_stem(piece) for piece in pieces if piece not in STOPWORDS)


def tokenize(text: str) -> list[str]:
    """The same terms as ``tokenize_spans``, without spans: the fast path for indexing."""
    return list(_tokenized(text))


@lru_cache(maxsize=1 << 15)
def _tokenized(text: str) -> tuple[str, ...]:
    """A task tokenizes the same sentences and passages again and again (search, selection,
    analysis, writing): each text once. Python caches a string's hash, so a long key costs once."""
    terms: list[str] = []
    for cjk, word in _WORD_OR_CJK.findall(text):
        if cjk:
            terms.extend(word for word, _, _ in _cjk_words(cjk))
        else:
            terms.extend(_word_terms(word))
    return tuple(terms)


def unique_terms(text: str) -> list[str]:
    """Distinct tokens in order of first appearance (deterministic, unlike a set)."""
    return list(dict.fromkeys(tokenize(text)))
