"""New search queries for a follow-up round on a sub-question whose evidence was too thin."""

from __future__ import annotations

from researchapp.pipeline.collector.search import default_rewrite
from researchapp.pipeline.text.tokens import tokenize
from researchapp.pipeline.values import SubQuestion

# Words that steer a web search towards primary material rather than commentary.
ANGLES = ("data report", "study results", "official statistics")


def followup_queries(subquestion: SubQuestion, *, round_no: int, limit: int = 3) -> tuple[str, ...]:
    """Queries the sub-question has not tried yet: the sub-question's own words, then the earlier
    queries rewritten and given a new angle per round. Deterministic for the same input."""
    tried = {q.strip().lower() for q in subquestion.queries}

    def broader(query: str) -> str:
        return default_rewrite(query) or query

    own = broader(subquestion.text)
    if subquestion.queries and not set(tokenize(own)) & set(tokenize(subquestion.queries[0])):
        # a facet's words alone ("What conditions apply?") name nothing: search them with its subject
        own = " ".join(dict.fromkeys(f"{broader(subquestion.queries[0])} {own}".split()))
    candidates = [own]
    angle = ANGLES[(round_no - 2) % len(ANGLES)]
    candidates += [f"{broader(q)} {angle}" for q in subquestion.queries]
    fresh: list[str] = []
    for query in candidates:
        if query and query.lower() not in tried and query not in fresh and tokenize(query):
            fresh.append(query)
    return tuple(fresh[:limit]) or (f"{subquestion.text} {angle}",)
