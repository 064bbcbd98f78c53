"""The answerability probe: before a plan is approved, does anything seem to cover each sub-question?

One cheap search per sub-question (every query on a local corpus, whose searches cost nothing;
the first query on the web, judged on the results' titles and snippets without opening a page),
then the evidence stage's own relevance judgement over what came back. The analyst sees, per
sub-question, "covered" or why not: "no source mentions 'revenue' together with 'PostgreSQL
Global Development Group'".
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from researchapp.core.messages import Message, english, gettext_noop, message, plural_message
from researchapp.pipeline.collector.clusters import density
from researchapp.pipeline.collector.passages import select_passages
from researchapp.pipeline.collector.search import search_warning
from researchapp.pipeline.text.salience import asked_of
from researchapp.pipeline.text.tokens import tokenize
from researchapp.pipeline.values import Source, StageWarning, SubQuestion
from researchapp.providers.base import Fetcher, Hit, ProviderError, SearchProvider

PROBE_RESULTS = 5
_WORD = re.compile(r"[^\W_]+(?:[-'.][^\W_]+)*")


@dataclass(frozen=True)
class Coverage:
    status: str  # "covered", "uncovered", or "unknown" (the probe itself failed)
    said: Message  # what it found, for the plan gate in the reader's language (``core.messages``)
    hits: int = 0
    best_relevance: float = 0.0
    warnings: tuple[StageWarning, ...] = ()  # a refused probe search, recorded on the task

    @property
    def covered(self) -> bool:
        return self.status == "covered"

    @property
    def message(self) -> str:
        return english(self.said)

    def as_json(self) -> dict:
        return {
            "status": self.status,
            "message": self.message,
            "said": self.said,
            "hits": self.hits,
            "best_relevance": self.best_relevance,
        }


def words_for(terms: Sequence[str], text: str) -> list[str]:
    """The words of ``text`` that ``terms`` came from, as written ("PostgreSQL", not "postgresql")."""
    wanted = set(terms)
    words = [word for word in _WORD.findall(text) if wanted & set(tokenize(word))]
    return list(dict.fromkeys(words)) or list(terms)


def _quoted(words: Sequence[str]) -> str:
    return " ".join(f"'{word}'" for word in words)


def probe(
    subquestion: SubQuestion,
    *,
    question: str,
    search: SearchProvider,
    fetcher: Fetcher | None = None,
    max_queries: int = 3,
) -> Coverage:
    """1. Search the sub-question's queries (up to ``max_queries``). 2. Open each hit with
    ``fetcher`` (a local corpus opens at no cost) or, without one, judge its title and snippet.
    3. Covered when a passage clears the relevance bar; otherwise say what is missing."""
    queries = list(dict.fromkeys(q for q in subquestion.queries if q.strip()))[:max_queries] or [
        subquestion.text
    ]
    hits: dict[str, Hit] = {}
    for query in queries:
        try:
            found = search.search(query, max_results=PROBE_RESULTS)
        except Exception as error:  # a provider's failure is a warning, as in collection
            warning = search_warning(error, query)
            failed = message(
                gettext_noop("The probe search failed: %(reason)s"), reason=warning.said or warning.message
            )
            return Coverage("unknown", failed, warnings=(warning,))
        for hit in found:
            hits.setdefault(hit.url, hit)
    if not hits:
        return Coverage(
            "uncovered",
            message(gettext_noop("No source was found for %(queries)s."), queries=_quoted(queries)),
        )
    sources = [source_from_hit(index + 1, hit, fetcher) for index, hit in enumerate(hits.values())]
    passages = select_passages(subquestion, sources, question=question, closest=1)
    best = max((p.relevance for p in passages), default=0.0)
    if passages and passages[0].clears_bar:
        held = words_for(passages[0].matched_terms, f"{question} {subquestion.text}")
        found = plural_message(
            gettext_noop("%(count)s source found; the best passage holds %(words)s."),
            gettext_noop("%(count)s sources found; the best passage holds %(words)s."),
            len(hits),
            words=_quoted(held),
        )
        return Coverage("covered", found, len(hits), best)
    return Coverage("uncovered", _what_is_missing(subquestion, question, passages), len(hits), best)


def source_from_hit(source_id: int, hit: Hit, fetcher: Fetcher | None) -> Source:
    """The page a hit points to, opened with ``fetcher`` if there is one, else its title and snippet."""
    text = f"{hit.title}\n{hit.snippet}"
    if fetcher is not None:
        try:
            text = fetcher.fetch(hit.url).text
        except ProviderError:
            pass  # the snippet still says something
    return Source(source_id, hit.url, hit.title, text, density=density(text), cluster=f"p{source_id}")


def _what_is_missing(subquestion: SubQuestion, question: str, passages: Sequence) -> Message:
    asked = asked_of(subquestion, question)
    text = f"{question} {subquestion.text}"
    held = {term for passage in passages for term in passage.matched_terms}
    if asked.subject and not held & set(asked.subject):
        return message(
            gettext_noop("No source found mentions %(subject)s."),
            subject=_quoted(words_for(asked.subject, text)),
        )
    lacking = [term for term in (*asked.attributes, *asked.focus) if term not in held][:3]
    if lacking and asked.subject:
        return message(
            gettext_noop("No source mentions %(lacking)s together with %(subject)s."),
            lacking=_quoted(words_for(lacking, text)),
            subject=_quoted(words_for(asked.subject, text)),
        )
    return message(
        gettext_noop("The sources found touch on it only in passing: no passage clears the relevance bar.")
    )
