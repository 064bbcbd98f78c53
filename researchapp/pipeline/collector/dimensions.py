"""Which dimensions of a comparison do the sources discuss? Asked before a comparative plan is drawn.

"Compare the Kestrel and the Osprey home batteries" could be compared on cost, performance,
adoption, risks ... ; a plan that asks about a dimension no source speaks to ends in a gap that
says nothing ("How do VACUUM and VACUUM FULL differ in adoption and popularity?"). A cheap search
for the options (every query on a local corpus, whose searches cost nothing; the side-by-side
query alone on the web, judged on titles and snippets) shows what the pages say about them: a
dimension counts when a passage that names an option uses its vocabulary (``text.aspects``), and
the dimensions discussed for more options, by more passages, come first.
"""

from __future__ import annotations

from collections.abc import Sequence

from researchapp.pipeline.collector.probe import PROBE_RESULTS, source_from_hit
from researchapp.pipeline.collector.splitting import split_passages
from researchapp.pipeline.text.aspects import DIMENSIONS, speaks_to
from researchapp.pipeline.text.quantities import extract_quantities
from researchapp.pipeline.text.question import read_question
from researchapp.pipeline.text.salience import question_parts
from researchapp.pipeline.text.tokens import tokenize
from researchapp.pipeline.values import Source
from researchapp.providers.base import Fetcher, Hit, SearchProvider

# The dimensions a comparison may be planned on (the planner has a template for each).
COMPARED = ("cost", "performance", "adoption", "risks", "benefits", "recent", "outlook", "evaluation")
# A dimension is discussed when this many passages naming an option speak to it.
MIN_PASSAGES = 1


def discussed_dimensions(question: str, sources: Sequence[Source]) -> tuple[str, ...]:
    """1. Cut every source into passages; keep those that name an option of ``question``.
    2. For each dimension, count those passages that speak to it and the options they name.
    3. The dimensions with ``MIN_PASSAGES`` or more, most options first, then most passages, then
       the usual order (cost, performance, ...)."""
    _, _, options = question_parts(question)
    if not options:
        return ()
    by_name = {dimension.name: dimension for dimension in DIMENSIONS if dimension.name in COMPARED}
    passages: dict[str, int] = dict.fromkeys(by_name, 0)
    covered: dict[str, set[int]] = {name: set() for name in by_name}
    for source in sources:
        for start, end in split_passages(source.text):
            text = source.text[start:end]
            held = set(tokenize(text))
            named = {index for index, option in enumerate(options) if any(term in held for term in option)}
            if not named:
                continue
            money = any(q.kind == "money" for q in extract_quantities(text))
            for name, dimension in by_name.items():
                if speaks_to((dimension,), held, has_money=money):
                    passages[name] += 1
                    covered[name] |= named
    order = {name: index for index, name in enumerate(COMPARED)}
    found = [name for name in by_name if passages[name] >= MIN_PASSAGES]
    return tuple(sorted(found, key=lambda name: (-len(covered[name]), -passages[name], order[name])))


def probe_dimensions(
    question: str, *, search: SearchProvider, fetcher: Fetcher | None = None, max_queries: int = 3
) -> tuple[str, ...] | None:
    """The dimensions the sources found for ``question``'s options discuss; ``None`` when the
    question compares nothing or the search fails (the planner then uses its default dimensions)."""
    reading = read_question(question)
    if len(reading.options) < 2:
        return None
    joiner = " " if reading.chinese else " vs "
    queries = [joiner.join(reading.options), *reading.options][:max_queries]
    hits: dict[str, Hit] = {}
    try:
        for query in queries:
            for hit in search.search(query, max_results=PROBE_RESULTS):
                hits.setdefault(hit.url, hit)
    except Exception:  # noqa: BLE001 - the plan is drawn with the default dimensions instead
        return None
    sources = [source_from_hit(index + 1, hit, fetcher) for index, hit in enumerate(hits.values())]
    return discussed_dimensions(question, sources)
