"""Passages: exact spans of small size, and the selection of those that bear on a sub-question."""

from __future__ import annotations

from researchapp.pipeline.analyser.extractive import analyse_extractive
from researchapp.pipeline.collector.passages import MAX_PER_SOURCE, select_passages
from researchapp.pipeline.collector.splitting import MAX_PASSAGE_CHARS, passages_with_headings, split_passages
from researchapp.pipeline.values import Source, SubQuestion

HEAT_PUMP_PAGE = """Heat pumps explained

A heat pump moves heat from the outside air into a home. In cold climates its efficiency drops,
but modern units still deliver about three units of heat per unit of electricity. Owners in
Norway and Canada, where winters are long, report that their bills fell after switching.

Installation costs

Installing an air-source heat pump costs between $10,000 and $18,000 in the United States,
depending on the size of the home and the ductwork needed. Grants and tax credits can cover a
large part of that price, and installers often quote the work within a week.
"""

COOKING_PAGE = """Boil a large pot of water and salt it generously. Add the pasta and cook it for nine
minutes, stirring now and then. Drain it, keep a cup of the cooking water, and toss the pasta
with the sauce. Serve at once with grated cheese."""


def source(source_id: int, text: str, *, title: str = "", density: float = 1.0, cluster: str = "") -> Source:
    return Source(
        id=source_id,
        url=f"https://s{source_id}.example/",
        title=title,
        text=text,
        density=density,
        cluster=cluster or f"s{source_id}",
    )


def test_it_splits_paragraphs_with_exact_stripped_offsets_and_starts_quotes_below_headings() -> None:
    # when
    spans = split_passages(HEAT_PUMP_PAGE)
    passages = [HEAT_PUMP_PAGE[start:end] for start, end in spans]
    # then each passage starts at its paragraph, not at the heading above it
    assert passages[0].startswith("A heat pump moves heat")
    assert passages[1].startswith("Installing an air-source heat pump")
    assert passages[1].endswith("within a week.")
    assert all(p == p.strip() for p in passages)


def test_it_keeps_markdown_headings_out_of_passages_but_finds_passages_by_their_heading() -> None:
    # given a Markdown page whose section heading alone names what its paragraph is about
    text = (
        "# Greywater heat pumps\n\nThe units were installed in 2021 across the district.\n\n"
        "## Noise complaints\n\nNeighbours reported a low hum at night from two of the units.\n"
    )
    # when
    spans = passages_with_headings(text)
    passages = select_passages(SubQuestion(1, "Noise complaints", ()), [source(1, text)])
    # then no passage starts with a heading, offsets stay exact, and the heading still ranks
    assert [text[start:end] for (start, end), _ in spans] == [
        "The units were installed in 2021 across the district.",
        "Neighbours reported a low hum at night from two of the units.",
    ]
    assert [text[s:e] for s, e in spans[1][1]] == ["## Noise complaints"]
    assert [p.quote for p in passages] == ["Neighbours reported a low hum at night from two of the units."]


def test_it_treats_a_title_line_above_a_paragraph_as_a_heading_of_extracted_text() -> None:
    # given extracted text: one line per paragraph, the title on its own line
    text = "How the light works today\nSince 1988 the light has been monitored remotely from the port town."
    # when
    (span,) = split_passages(text)
    # then
    assert text[span[0] : span[1]] == "Since 1988 the light has been monitored remotely from the port town."


def test_it_keeps_a_list_of_short_lines_as_content() -> None:
    # given five short lines with no full stop and no paragraph under them
    text = "\n".join(f"Model {name} battery" for name in ("Alpha", "Beta", "Gamma", "Delta", "Omega"))
    # when / then nothing is lost as a heading
    assert [text[s:e] for s, e in split_passages(text)] == [text]


def test_it_cuts_a_long_paragraph_into_windows_of_whole_sentences() -> None:
    # given one paragraph of 30 sentences, far longer than a passage
    sentences = [f"Sentence number {i} talks about heat pump efficiency in winter." for i in range(30)]
    text = " ".join(sentences)
    # when
    spans = split_passages(text)
    # then every window is small, starts and ends on a sentence, and nothing is lost
    assert len(spans) > 1
    assert all(end - start <= MAX_PASSAGE_CHARS for start, end in spans)
    assert all(text[start:end].startswith("Sentence number") for start, end in spans)
    assert all(text[start:end].endswith("winter.") for start, end in spans)
    assert " ".join(text[start:end] for start, end in spans) == text


def test_it_keeps_offsets_exact_on_chinese_passages() -> None:
    # given Chinese paragraphs separated by blank lines with surrounding whitespace
    text = (
        "  电动汽车的电池成本在过去十年下降了约89%，这是销量增长的主要原因之一。  \n\n\n"
        "  充电设施的建设速度也在加快，但农村地区仍然不足。  "
    )
    # when
    spans = split_passages(text)
    # then
    (only,) = spans  # the short paragraphs merge into one passage
    assert text[only[0] : only[1]].startswith("电动汽车的电池成本")
    assert text[only[0] : only[1]].endswith("农村地区仍然不足。")


def test_it_returns_passages_whose_quote_is_exactly_the_source_span() -> None:
    # given
    sources = [source(1, HEAT_PUMP_PAGE, title="Heat pumps"), source(2, COOKING_PAGE, title="Pasta")]
    subquestion = SubQuestion(
        1, "How much does installing a heat pump cost?", ("heat pump installation cost",)
    )
    # when
    passages = select_passages(subquestion, sources)
    # then
    assert passages, "the heat pump page answers the question"
    assert passages[0].source_id == 1
    assert "$10,000 and $18,000" in passages[0].quote
    for passage in passages:
        text = sources[passage.source_id - 1].text
        assert text[passage.start : passage.end] == passage.quote


def test_it_gives_an_unanswerable_subquestion_no_passages() -> None:
    # given sources about heat pumps and pasta
    sources = [source(1, HEAT_PUMP_PAGE), source(2, COOKING_PAGE)]
    subquestion = SubQuestion(1, "How do Rust and Go differ in memory safety?", ("Rust vs Go memory safety",))
    # when / then
    assert select_passages(subquestion, sources) == []


def test_it_does_not_take_a_passage_sharing_one_common_word_as_evidence() -> None:
    # given a cooking page that mentions "water", once the only overlap with the question
    sources = [source(1, COOKING_PAGE)]
    subquestion = SubQuestion(1, "How much water do heat pump installations use?", ())
    # when / then
    assert select_passages(subquestion, sources) == []


def test_it_weighs_thin_pages_down_without_dropping_them() -> None:
    # given the same text on a dense page and on a thin page
    sources = [source(1, HEAT_PUMP_PAGE, density=0.1), source(2, HEAT_PUMP_PAGE, density=1.0)]
    subquestion = SubQuestion(1, "How much does installing a heat pump cost?", ())
    # when
    passages = select_passages(subquestion, sources)
    # then the dense page leads, and the thin page is still there
    by_source = {}
    for passage in passages:
        by_source.setdefault(passage.source_id, passage.score)
    assert passages[0].source_id == 2
    assert 1 in by_source
    assert by_source[1] < by_source[2]


def test_it_takes_at_most_three_passages_from_one_source_and_respects_the_limit() -> None:
    # given one long page where every paragraph matches
    paragraph = "Heat pump efficiency in cold climates is lower, heat pump owners report. " * 3
    text = "\n\n".join(f"{i}. {paragraph}" for i in range(10))
    sources = [source(1, text), source(2, HEAT_PUMP_PAGE), source(3, HEAT_PUMP_PAGE.replace("Heat", "Warm"))]
    subquestion = SubQuestion(1, "How efficient are heat pumps in cold climates?", ())
    # when
    passages = select_passages(subquestion, sources, max_passages=4)
    # then
    assert len(passages) == 4
    assert sum(1 for p in passages if p.source_id == 1) <= MAX_PER_SOURCE
    assert {p.source_id for p in passages} == {1, 2, 3}, "every source's best passage comes first"
    assert [p.score for p in passages] == sorted((p.score for p in passages), reverse=True)


def test_it_breaks_ties_deterministically() -> None:
    # given three identical sources
    sources = [source(i, HEAT_PUMP_PAGE) for i in (3, 1, 2)]
    subquestion = SubQuestion(1, "heat pump installation cost", ())
    # when
    first = select_passages(subquestion, sources)
    again = select_passages(subquestion, list(sources))
    # then ties go to the source given first
    assert first == again
    assert [p.source_id for p in first[:3]] == [3, 1, 2]


def test_it_prefers_passages_about_the_aspect_asked() -> None:
    # given one page on a comparison's cost and one on its adoption, both naming the options
    cost = source(
        1, "Rust and Go both cost nothing to license; hosting costs depend on memory use of Rust and Go."
    )
    adoption = source(
        2, "Rust and Go adoption keeps growing; Rust and Go are used by many cloud teams, Rust and Go."
    )
    subquestion = SubQuestion(
        1, "How do Rust and Go differ in cost?", ("Rust vs Go cost pricing", "Rust vs Go")
    )
    # when
    passages = select_passages(subquestion, [adoption, cost])
    # then
    assert passages[0].source_id == 1


def test_it_selects_passages_for_a_chinese_subquestion() -> None:
    # given
    text = "电动汽车的电池成本在过去十年下降了约89%。\n\n意大利面需要煮九分钟，然后沥干水分。"
    sources = [source(1, text)]
    subquestion = SubQuestion(1, "电动汽车的电池成本下降了多少？", ("电动汽车 电池成本",))
    # when
    passages = select_passages(subquestion, sources)
    # then
    assert [p.quote for p in passages] == [text]  # short paragraphs merge into one passage
    assert text[passages[0].start : passages[0].end] == passages[0].quote


# --- dimension sub-questions take only passages that speak to the dimension ----------------------

BATTERY_PAGES = [
    "The Alpha home battery uses sodium-ion cells and suits houses with rooftop solar panels.",
    "The Alpha home battery costs 4,200 euros before installation.",
    "The Beta home battery held 18 percent of the home storage market in 2025.",
    "In our test the round-trip efficiency of the Beta home battery was 94 percent.",
]


def comparison(dimension: str, extra: str) -> SubQuestion:
    return SubQuestion(
        1,
        f"How do Alpha home battery and Beta home battery differ in {dimension}?",
        (
            f"Alpha home battery vs Beta home battery {extra}",
            f"Alpha home battery {extra}",
            f"Beta home battery {extra}",
        ),
    )


def selected(subquestion: SubQuestion) -> list[str]:
    sources = [source(i + 1, text) for i, text in enumerate(BATTERY_PAGES)]
    return [p.quote for p in select_passages(subquestion, sources)]


def test_it_gives_each_dimension_the_passages_that_speak_to_it() -> None:
    assert selected(comparison("cost", "cost pricing price")) == [BATTERY_PAGES[1]]
    assert selected(comparison("performance", "performance benchmark")) == [BATTERY_PAGES[3]]
    assert selected(comparison("adoption and popularity", "adoption market share")) == [BATTERY_PAGES[2]]


def test_it_gives_a_dimension_no_passage_when_pages_only_name_the_subject() -> None:
    # given pages that name both batteries but say nothing of risks or limitations
    subquestion = comparison("risks and limitations", "risks limitations drawbacks")
    # when
    passages = select_passages(subquestion, [source(i + 1, text) for i, text in enumerate(BATTERY_PAGES)])
    # then there is nothing to analyse: the analysis reports [证据不足]
    assert passages == []
    (finding,) = analyse_extractive(subquestion, [])
    assert finding.statement.startswith("[证据不足] How do Alpha home battery")


def test_it_counts_an_amount_of_money_as_speaking_to_cost() -> None:
    # given a price written only as an amount
    page = "The Alpha home battery: €4,200 for the 10 kWh model, the Beta home battery: €5,100."
    # when / then
    assert selected_from(page, comparison("cost", "cost")) == [page]


def test_it_reads_the_dimension_of_a_chinese_subquestion() -> None:
    # given one passage on price and one on market share, both naming both options
    price = "电动汽车和燃油车的价格差距正在缩小。"
    share = "电动汽车和燃油车的市场份额此消彼长，电动汽车和燃油车都有大量用户。"
    subquestion = SubQuestion(1, "电动汽车和燃油车在成本方面有何不同？", ("电动汽车 燃油车 成本 价格",))
    # when
    passages = select_passages(subquestion, [source(1, share), source(2, price)])
    # then
    assert [p.quote for p in passages] == [price]


def selected_from(text: str, subquestion: SubQuestion) -> list[str]:
    return [p.quote for p in select_passages(subquestion, [source(1, text)])]
