"""The passages that state an answer, added to what BM25 and relevance chose.

"The default value of this macro is 1 billion" shares one word with "How many bytes long can a
string be?"; its page is found, its passage is not chosen. The reader (``pipeline.reader``) reads
the pool's best-matching passages for pieces that state an answer of the asked type, and the best
few join the evidence: what is read is what could answer.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from researchapp.pipeline.reader.extractive import answering_pieces
from researchapp.pipeline.text.relevance import subquestion_terms
from researchapp.pipeline.text.salience import Asked, judge
from researchapp.pipeline.values import Evidence, Passage, SubQuestion

ANSWER_PASSAGES = 3
PASSAGES_READ = 60  # the pool's best-matching passages a reader looks at for an answer


def with_answer_passages(
    pool,
    subquestion: SubQuestion,
    passages: Sequence[Passage],
    *,
    asked: Asked,
    question: str = "",
    common: frozenset[str] = frozenset(),
) -> list[Passage]:
    """``passages`` and, after them, up to ``ANSWER_PASSAGES`` passages of the pool that state an
    answer of the asked type (``reader.extractive.answering_pieces``), as evidence."""
    query = subquestion_terms(subquestion)
    scores = pool.index.scores(query)
    best = max(scores, default=0.0) or 1.0
    taken = {(p.source_id, p.start) for p in passages if p.clears_bar}
    order = sorted(range(len(scores)), key=lambda i: -scores[i])[:PASSAGES_READ]
    read = [
        Evidence(
            id=index,
            source_id=pool.candidates[index].source.id,
            subquestion_id=subquestion.id,
            start=pool.candidates[index].start,
            end=pool.candidates[index].end,
            quote=pool.candidates[index].quote,
            score=round(scores[index] / best, 6),
            source_title=pool.candidates[index].source.title,
            heading=pool.candidates[index].heading_text,
        )
        for index in order
        if scores[index] > 0 and (pool.candidates[index].source.id, pool.candidates[index].start) not in taken
    ]
    added = []
    for index in answering_pieces(subquestion, read, question=question, common=common, limit=ANSWER_PASSAGES):
        candidate = pool.candidates[index]
        judgement = judge(asked, candidate.terms, lambda term: pool.weight(term, asked))
        passage = Passage(
            candidate.source.id,
            candidate.start,
            candidate.end,
            candidate.quote,
            round(
                scores[index] / best * min(p.score for p in passages) if passages else scores[index] / best, 6
            ),
            relevance=judgement.relevance,
            question_relevance=judgement.question_relevance,
            matched_terms=judgement.matched,
        )
        added.append(passage)
    kept = [p for p in passages if p.clears_bar] or ([] if added else list(passages))
    return kept + [replace(p, clears_bar=True) for p in added]
