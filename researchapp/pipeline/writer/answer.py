"""The direct answer that opens a report: the passage sentences that best answer the question itself.

Claims of the section ``ANSWER_SECTION`` are the answer to the question (the report renders
them first). The extractive writer picks them from the quotes the body findings stand on: whole
sentences that hold the question's subject and, if one is asked for, its attribute, ranked by the
rarity-weighted share of the question's terms they hold. Nothing that clears no bar is picked: a
question the sources do not answer gets no answer claim, and the report says so.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from researchapp.pipeline.report import report_bucket
from researchapp.pipeline.report.structure import structure_in
from researchapp.pipeline.text.relevance import says_the_same
from researchapp.pipeline.text.salience import asked_of, holds_attribute
from researchapp.pipeline.text.sentences import CLOSING, FULL_STOPS, is_heading_line, split_sentences
from researchapp.pipeline.text.support import figures_missing
from researchapp.pipeline.text.tokens import tokenize
from researchapp.pipeline.values import Claim, Evidence, ReviewedFinding, SubQuestion
from researchapp.pipeline.writer.render import ANSWER_SECTION

MAX_ANSWER_SENTENCES = 2
MIN_ANSWER_SHARE = 0.3  # weighted share of the question's terms an answer sentence must hold
MIN_SENTENCE_WORDS = 5


def display_text(sentence: str) -> str:
    """One line, whitespace from the page's layout collapsed: for display only, the quote stays exact."""
    return " ".join(sentence.split())


def is_clean_sentence(sentence: str) -> bool:
    """A whole sentence: not a heading, not a fragment, ending on a full stop, and holding no mark of
    the report's own structure ("[证据不足]", "[E3]", "To verify:"), which from a source is text."""
    return (
        not is_heading_line(sentence)
        and len(sentence.split()) >= MIN_SENTENCE_WORDS
        and sentence.rstrip(CLOSING).endswith(FULL_STOPS)
        and not structure_in(sentence)
    )


def answer_claims(question: str, findings: Sequence[ReviewedFinding]) -> list[Claim]:
    """1. Gather the quotes the body's findings stand on. 2. Score each whole sentence by the
    rarity-weighted share of the question's terms it holds; it must hold the subject and share
    at least ``MIN_ANSWER_SHARE``. 3. The best ``MAX_ANSWER_SENTENCES``, each citing its quote
    (and the set must name an asked-for attribute)."""
    evidence: dict[int, Evidence] = {}
    for finding in findings:
        if report_bucket(finding) != "body":
            continue
        supporting = {link.evidence_id for link in finding.links}
        for item in finding.evidence:
            if item.id in supporting and item.clears_bar:
                evidence.setdefault(item.id, item)
    if not evidence:
        return []
    asked = asked_of(SubQuestion(0, question, ()), question)
    terms = asked.question_terms
    sentences = [
        (item, item.quote[start:end])
        for item in evidence.values()
        for start, end in split_sentences(item.quote)
    ]
    sentence_terms = [set(tokenize(text)) for _, text in sentences]
    weight = {
        term: math.log(1.0 + len(sentences) / (1 + sum(term in held for held in sentence_terms)))
        for term in terms
    }
    total = sum(weight.values()) or 1.0
    ranked: list[tuple[float, int, str]] = []
    for (item, text), held in zip(sentences, sentence_terms, strict=True):
        if not is_clean_sentence(text) or (asked.subject and not held & set(asked.subject)):
            continue
        if asked.comparative and asked.options_named(held) < 2:
            continue  # a comparison is answered by a sentence that sets the options side by side
        share = sum(weight[term] for term in terms if term in held) / total
        if share >= MIN_ANSWER_SHARE:
            ranked.append((share, item.id, text))
    ranked.sort(key=lambda entry: (-entry[0], entry[1]))
    claims: list[Claim] = []
    for _share, evidence_id, text in ranked:
        shown = display_text(text)
        repeats = any(says_the_same(shown, c.text) or says_the_same(c.text, shown) for c in claims)
        if repeats or figures_missing(shown, [evidence[evidence_id].quote]):
            continue
        claims.append(Claim(shown, (evidence_id,), ANSWER_SECTION))
        if len(claims) >= MAX_ANSWER_SENTENCES:
            break
    held = {term for claim in claims for term in tokenize(claim.text)}
    return claims if holds_attribute(asked, held) else []
