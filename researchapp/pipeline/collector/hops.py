"""Multi-hop evidence: follow the names the first passages mention to the passages about them.

A question that leads through an entity it does not name ("the association which published
the journal" → its president) is answered by a passage that shares little with the question.
One-shot BM25 misses it; the first round's passages name it. ``bridge_names`` reads those
names, ``bridge_queries`` turns them into searches (the collect stage runs them when it can
search), and ``select_with_hops`` adds each name's best passages to the first round's.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import replace

from researchapp.pipeline.collector.answering import with_answer_passages
from researchapp.pipeline.collector.passages import PassagePool
from researchapp.pipeline.text.entities import name_phrases
from researchapp.pipeline.text.salience import Asked, asked_of, judge
from researchapp.pipeline.text.sentences import split_sentences
from researchapp.pipeline.text.tokens import tokenize
from researchapp.pipeline.values import Passage, Source, SubQuestion

MAX_BRIDGES = 5  # bridge names searched for (``bridge_queries``)
# Bridge names followed within the task's pages: a look-up, not a search, so more of them. Tuned on
# the first half of MuSiQue dev (``bench.multihop_recall --half first``) with the ones below.
POOL_BRIDGES = 14
MAX_HOP_PASSAGES = 10
PLAIN_HOP_PASSAGES = 6  # a plain question's hop passages, on its MAX_BRIDGES names (docs QA's tuning half)
PER_NAME = 2  # a bridge name's passages, at most
FIRST_PASSAGES_READ = 4
# Hop passages rank just under the fourth passage of the round that named them: past the first few
# passages of a multi-hop question's first round, its distractors are likelier than its bridges.
RANKED_UNDER = 4
# A hop passage ranks just under the passage that named its bridge.
HOP_DISCOUNT = 0.99
# A sentence answers when it holds this weighted share of what the question asks beyond its subject.
MIN_ANSWER_SHARE = 0.2
# The rarity-weighted share of a long name's words that a passage must hold to name it.
NAME_SHARE = 0.5


def bridge_names(
    passages: Sequence[Passage],
    asked: Asked,
    *,
    limit: int = MAX_BRIDGES,
    weight: Callable[[str], float] | None = None,
) -> list[str]:
    """Names the best passages mention that the question does not: where a second hop may lead.

    A name is worth following as much as the sentence it stands in answers the question: "He
    played for the Philadelphia Eagles (1945–1949)" holds what "played for an NFL team from
    1945-1949" asks beyond its subject, so its name goes first; a name in a sentence that holds
    none of it ("born in Queensland") goes after, in the passages' order. Only a passage about the
    subject leads on from the subject: a passage that merely shares the question's other words
    ("river", "tributary") names other rivers, so its names come last.
    1. Split each of the first clearing passages into sentences; score each sentence by the
       rarity-weighted share of the question's terms beyond the subject (``weight``) it holds.
    2. Take the names of the answering sentences of passages holding the subject in that order
       (the better passage first on a tie); then, round-robin, each such passage's first other
       name, then each one's second; then the names of the passages that miss the subject.
    """
    known = set(asked.terms) | set(asked.subject) | set(asked.focus)
    wanted = [term for term in dict.fromkeys((*asked.focus, *asked.terms)) if term not in asked.subject]
    weigh = weight or (lambda term: 1.0)
    total = sum(weigh(term) for term in wanted) or 1.0
    answering: list[tuple[float, int, int, str]] = []  # (-share, passage rank, position, name)
    idle: list[list[str]] = []  # per passage about the subject, its names in idle sentences
    others: list[list[str]] = []  # per passage that does not hold the subject, all its names
    for rank, passage in enumerate(p for p in passages[:FIRST_PASSAGES_READ] if p.clears_bar):
        about = not asked.subject or any(term in passage.matched_terms for term in asked.subject)
        pile: list[str] = []
        (idle if about else others).append(pile)
        for start, end in split_sentences(passage.quote):
            sentence = passage.quote[start:end]
            held = set(tokenize(sentence))
            share = sum(weigh(term) for term in wanted if term in held) / total
            for position, (name, _, _) in enumerate(name_phrases(sentence)):
                if set(tokenize(name)) <= known or not any(ch.isalpha() for ch in name):
                    continue
                if share >= MIN_ANSWER_SHARE and about:
                    answering.append((-share, rank, start + position, name))
                else:
                    pile.append(name)
    names: dict[str, str] = {}
    for _, _, _, name in sorted(answering):
        names.setdefault(name.lower(), name)
    # Each passage's first idle name, then each one's second: the best passage must not take every slot.
    for group in (idle, others):
        for depth in range(max((len(found) for found in group), default=0)):
            for found in group:
                if depth < len(found):
                    names.setdefault(found[depth].lower(), found[depth])
    return list(names.values())[:limit]


def bridge_queries(
    subquestion: SubQuestion, passages: Sequence[Passage], *, question: str = ""
) -> tuple[str, ...]:
    """Search queries for the second hop: each bridge name with what the question asks of it."""
    asked = asked_of(subquestion, question)
    focus = " ".join(asked.focus[:4])
    return tuple(" ".join(f"{name} {focus}".split()) for name in bridge_names(passages, asked))


def select_with_hops(
    subquestion: SubQuestion,
    sources: Sequence[Source],
    *,
    question: str = "",
    max_passages: int = 8,
    closest: int = 0,
    common: frozenset[str] = frozenset(),
) -> list[Passage]:
    """The first round's passages, then, for each bridge name, its best passages that name it.

    1. Select as ``select_passages`` does, and add the passages a reader finds to state an answer
       of the asked type (``answering.with_answer_passages``). 2. Read the bridge names of the best passages.
    3. For each name, select over the same pool with the name as the subject; keep passages that
       name it (``names_bridge``), then follow the names of those hop passages once more (a
       question of three or four hops). 4. Each hop passage ranks just under the passages that
       named it; the result is the first round's (at most ``max_passages``) then the hops'.
    5. A first round that does not answer leads nowhere, unless the question reaches its subject
       through other entities (``nests_its_subject``): then the passages about the subject lead
       on, and they and the hops are evidence when some hop passage names a bridge and clears.
    """
    pool = PassagePool.of(tuple(sources))
    asked = asked_of(subquestion, question)
    first = pool.select(subquestion, asked=asked, max_passages=max_passages, closest=closest)
    first = with_answer_passages(pool, subquestion, first, asked=asked, question=question, common=common)
    nested = nests_its_subject(question or subquestion.text)
    if first and first[0].clears_bar:
        return first + _hops(pool, subquestion, asked, first, under=RANKED_UNDER, wide=nested)
    if not nested:
        return first
    # "the county where the most populous city in the state where WDXQ is": the subject's passage
    # holds one hop's words, the answer stands hops on.
    about = [
        passage
        for passage in pool.select(subquestion, asked=asked, max_passages=max_passages, verify=False)
        if passage.clears_bar and any(term in passage.matched_terms for term in asked.subject)
    ]
    hops = _hops(pool, subquestion, asked, about, under=RANKED_UNDER, wide=True) if about else []
    return about + hops if hops else first


def _hops(
    pool: PassagePool,
    subquestion: SubQuestion,
    asked: Asked,
    first: Sequence[Passage],
    *,
    under: int,
    wide: bool,
) -> list[Passage]:
    """The hop passages of ``first``'s bridges, each ranked under the ``under``-th passage of the
    round that named it; for a question that reaches its subject through others (``wide``), more
    bridges, then those the hop passages name. A plain question hops once, on few names: a manual's
    pages name many things, and following them all crowds out the page that answers."""
    hops = _hop_passages(pool, subquestion, asked, first, under=under, wide=wide)
    if not hops or not wide:
        return hops
    # A hop passage is about its bridge, not the question's subject: every one of them leads on.
    seen = frozenset((p.source_id, p.start) for p in first)
    second = _hop_passages(
        pool, subquestion, replace(asked, subject=()), hops, skip=seen, under=under, wide=True
    )
    return hops + second


# "the state where WDXQ can be found", "the actress that played ...": a noun phrase and a relative
# clause about it ("the data that is stored" describes, it does not lead on: not after is/are).
_NESTED = re.compile(
    r"\b(?:the|a|an)\s+(?:[\w'’-]+\s+){0,3}?(?:that|which|who|whom|where|whose)\s+(?!is\b|are\b)",
    re.IGNORECASE,
)
# "the birth city of the composer of Scanderbeg": one thing of another of a third.
_OF_CHAIN = re.compile(
    r"\bthe\s+(?:[\w'’-]+\s+){1,3}?of\s+(?:the\s+)?(?:[\w'’-]+\s+){1,3}?of\s", re.IGNORECASE
)


def nests_its_subject(question: str) -> bool:
    """The question reaches its subject through another entity: "the state where WDXQ can be
    found", "the birth city of the composer of Scanderbeg"."""
    return bool(_NESTED.search(question) or _OF_CHAIN.search(question))


def names_bridge(terms: Sequence[str], held: set[str], weight: Callable[[str], float]) -> bool:
    """A passage names a bridge when it holds the name's distinctive words: "Henry III was
    crowned" names "King Henry III of England", "Bank of America" names "Charlotte-based Bank of
    America". Every word of a name of one or two; otherwise two words or more, holding
    ``NAME_SHARE`` of the name's rarity-weighted words."""
    if len(terms) <= 2:
        return set(terms) <= held
    found = [term for term in terms if term in held]
    total = sum(weight(term) for term in terms) or 1.0
    return len(found) >= 2 and sum(weight(term) for term in found) / total >= NAME_SHARE


def _hop_passages(
    pool: PassagePool,
    subquestion: SubQuestion,
    asked: Asked,
    first: Sequence[Passage],
    *,
    skip: frozenset[tuple[int, int]] = frozenset(),
    under: int = RANKED_UNDER,
    wide: bool = True,
) -> list[Passage]:
    """For each bridge name of ``first``, its best passages that name it (``names_bridge``), not
    in ``first`` or ``skip``, each ranked just under the ``under``-th passage of ``first``."""
    taken = {(p.source_id, p.start) for p in first} | set(skip)
    limit = POOL_BRIDGES if wide else MAX_BRIDGES
    names = bridge_names(first, asked, limit=limit, weight=lambda term: pool.weight(term, asked))
    if not names:
        return []
    floor = min(p.score for p in first[:under])
    asked = pool.in_sources_language(subquestion, asked)
    found = [_naming(pool, name, asked, skip=frozenset(taken)) for name in names]
    hops: list[Passage] = []
    # Each name's best passage, then each one's second: the first name must not take every slot.
    for depth in range(PER_NAME):
        for passages in found:
            if depth < len(passages) and (passages[depth].source_id, passages[depth].start) not in taken:
                taken.add((passages[depth].source_id, passages[depth].start))
                hops.append(_ranked_under(passages[depth], floor))
    return hops[: MAX_HOP_PASSAGES if wide else PLAIN_HOP_PASSAGES]


def _naming(pool: PassagePool, name: str, asked: Asked, *, skip: frozenset[tuple[int, int]]) -> list[Passage]:
    """The pool's best passages that name ``name`` (``names_bridge``), ranked by BM25 on the name
    and what the question asks of it; a passage naming it is about it (the bridge is its subject)."""
    terms = tuple(dict.fromkeys(tokenize(name)))
    hop_asked = Asked(tuple(dict.fromkeys((*terms, *asked.focus))), terms, asked.focus, ())
    query = list(hop_asked.terms)
    scores = pool.index.scores(query)
    ceiling = sum(pool.index.idf(term) for term in query) * (pool.index.k1 + 1.0) or 1.0

    def weight(term: str) -> float:
        return pool.weight(term, hop_asked)

    passages: list[Passage] = []
    for index in sorted((i for i, score in enumerate(scores) if score > 0), key=lambda i: -scores[i]):
        candidate = pool.candidates[index]
        if (candidate.source.id, candidate.start) in skip:
            continue
        judgement = judge(hop_asked, candidate.terms, weight)
        if not names_bridge(terms, set(candidate.terms), weight) or not judgement.clears:
            continue
        passages.append(
            Passage(
                candidate.source.id,
                candidate.start,
                candidate.end,
                candidate.quote,
                round(scores[index] / ceiling, 6),
                relevance=judgement.relevance,
                question_relevance=judgement.question_relevance,
                matched_terms=judgement.matched,
            )
        )
        if len(passages) >= PER_NAME:
            break
    return passages


def _ranked_under(passage: Passage, score: float) -> Passage:
    return replace(passage, score=round(min(passage.score, score) * HOP_DISCOUNT, 6))
