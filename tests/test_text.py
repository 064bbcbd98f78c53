"""Tokens, BM25, sentence and paragraph spans, and figures in English and Chinese text."""

from __future__ import annotations

import pytest

from researchapp.pipeline.text.bm25 import BM25
from researchapp.pipeline.text.quantities import extract_quantities, read_figures
from researchapp.pipeline.text.sentences import split_paragraphs, split_sentences
from researchapp.pipeline.text.tokens import tokenize, tokenize_spans


def test_it_lowercases_words_and_drops_stopwords() -> None:
    # given / when
    tokens = tokenize("The Costs of Heat Pumps in 2024")
    # then plurals fold onto their singular, so "costs" meets "cost"
    assert tokens == ["cost", "heat", "pump", "2024"]


def test_it_turns_chinese_runs_into_words_and_the_words_within_them() -> None:
    # given a two-character word, a four-character word and a lone character between Latin words
    text = "电池 电动汽车 X车Y"
    # when
    tokens = tokenize(text)
    # then a long word comes with the dictionary words within it, never a fragment ("动汽")
    assert tokens == ["电池", "电动", "汽车", "电动汽车", "x", "车", "y"]


def test_it_gives_chinese_words_exact_spans_and_drops_function_words() -> None:
    # given a question mixing Chinese words, function words and an English name
    text = "默认编译设置下，SQLite 的一张表最多可以有多少列？"
    # when
    spans = tokenize_spans(text)
    # then every span cuts its word verbatim out of the text, and the question's words are
    # words ("默认", "列"), not two-character fragments ("表最", "多可")
    assert all(text[token.start : token.end] in (token.text, "SQLite") for token in spans)
    assert [token.text for token in spans] == ["默认", "编译", "设置", "sqlite", "一张", "表", "列"]
    assert [token.text for token in spans] == tokenize(text)


def test_it_folds_accents_so_names_still_match() -> None:
    assert tokenize("Alû") == tokenize("Alu") == ["alu"]


def test_it_ranks_the_document_with_rarer_matching_terms_higher() -> None:
    # given three documents, only one mentions both query terms
    documents = [
        tokenize("heat pumps save energy in cold climates"),
        tokenize("solar panels save energy"),
        tokenize("gas boilers burn fuel"),
    ]
    index = BM25(documents)
    # when
    scores = index.scores(tokenize("heat pump energy"))
    ranked = index.top(tokenize("heat pump energy"), 5)
    # then
    assert scores[0] > scores[1] > scores[2] == 0.0
    assert [position for position, _ in ranked] == [0, 1]


def test_it_scores_an_empty_index_as_nothing() -> None:
    assert BM25([]).scores(["anything"]) == []


def test_it_splits_english_sentences_without_breaking_abbreviations_or_decimals() -> None:
    # given
    text = "Dr. Smith met J. K. Rowling in the U.S. on Monday. Prices rose 3.5% this year! Why? Nobody knows."
    # when
    sentences = [text[start:end] for start, end in split_sentences(text)]
    # then
    assert sentences == [
        "Dr. Smith met J. K. Rowling in the U.S. on Monday.",
        "Prices rose 3.5% this year!",
        "Why?",
        "Nobody knows.",
    ]


def test_it_keeps_sentence_offsets_exact_on_chinese_text() -> None:
    # given Chinese text with full-width punctuation, a closing quote and surrounding spaces
    text = "  电动汽车销量增长了42%。“这是一个转折点！”专家说？ 后续还会增长。"
    # when
    spans = split_sentences(text)
    # then every span points at exactly its sentence
    assert [text[start:end] for start, end in spans] == [
        "电动汽车销量增长了42%。",
        "“这是一个转折点！”",
        "专家说？",
        "后续还会增长。",
    ]
    assert spans[0] == (2, 2 + len("电动汽车销量增长了42%。"))


def test_it_splits_sentences_of_a_window_with_offsets_into_the_whole_text() -> None:
    # given
    text = "Intro. One here. Two here."
    # when only the part after "Intro. " is split
    spans = split_sentences(text, 7, len(text))
    # then
    assert spans == [(7, 16), (17, 26)]
    assert text[17:26] == "Two here."


def test_it_splits_paragraphs_on_blank_and_hard_lines_but_not_on_soft_wraps() -> None:
    # given a heading, a paragraph soft-wrapped mid-sentence, and a list item
    text = "Heat pumps\n\nA heat pump moves heat from\nthe outside air indoors.\n- Costs vary by region.\n"
    # when
    paragraphs = [text[start:end] for start, end in split_paragraphs(text)]
    # then
    assert paragraphs == [
        "Heat pumps",
        "A heat pump moves heat from\nthe outside air indoors.",
        "- Costs vary by region.",
    ]


def test_it_extracts_percentages_money_years_and_counted_numbers() -> None:
    # given
    text = "In 2023, revenue was $1.2 billion and 42% of buyers paid 300 euros for 12 hours of use."
    # when
    found = [(q.kind, q.value, q.unit, text[q.start : q.end]) for q in extract_quantities(text)]
    # then
    assert found == [
        ("year", 2023.0, "", "2023"),
        ("money", 1.2e9, "USD", "$1.2 billion"),
        ("percent", 42.0, "%", "42%"),
        ("money", 300.0, "EUR", "300 euros"),
        ("number", 12.0, "hour", "12"),
    ]


def test_it_extracts_chinese_figures_with_exact_offsets() -> None:
    # given
    text = "2023年，比亚迪销量达到302万辆，市场份额为35.5％。"
    # when
    found = [(q.kind, q.value, text[q.start : q.end]) for q in extract_quantities(text)]
    # then
    assert found == [("year", 2023.0, "2023年"), ("number", 3020000.0, "302万"), ("percent", 35.5, "35.5％")]


def test_it_gives_each_figure_the_content_words_around_it_within_its_sentence() -> None:
    # given
    text = "Rust adoption is rising. About 42% of professional developers use Rust at work."
    # when
    (percent,) = extract_quantities(text)
    # then the previous sentence's words are not part of the context
    assert percent.context == frozenset({"professional", "developer", "use", "rust", "work"})


@pytest.mark.parametrize(
    "text",
    ["COVID-19 spread", "the iPhone15 launch", "see [E12] above"],
)
def test_it_does_not_read_identifiers_as_figures(text: str) -> None:
    assert extract_quantities(text) == []


def test_it_reads_a_four_digit_count_of_things_as_a_number_not_a_year() -> None:
    # given
    (count,) = extract_quantities("The plant employs 2000 workers.")
    (year,) = extract_quantities("The plant opened in 2000.")
    # then
    assert (count.kind, count.unit) == ("number", "worker")
    assert year.kind == "year"


def test_it_ends_a_markdown_heading_line_at_its_newline() -> None:
    # given a heading written directly above its paragraph, long enough to pass for a wrapped line
    text = "# A long heading about the Greywater Point lighthouse\nThe lighthouse was built in 1871."
    # when
    sentences = [text[start:end] for start, end in split_sentences(text)]
    # then
    assert sentences == [
        "# A long heading about the Greywater Point lighthouse",
        "The lighthouse was built in 1871.",
    ]


def test_it_reads_the_subject_and_the_attribute_of_each_figure() -> None:
    # given
    text = (
        "In our test the round-trip efficiency of the Alpha battery was 85 percent. "
        "The Beta battery held 18 percent of the home storage market in 2025."
    )
    # when
    figures = {text[f.quantity.start : f.quantity.end]: f for f in read_figures(text)}
    # then
    alpha, beta = figures["85 percent"], figures["18 percent"]
    assert (alpha.subject_text, alpha.attribute, alpha.attribute_text) == (
        "Alpha",
        "efficiency",
        "round-trip efficiency",
    )
    assert (beta.subject_text, beta.attribute, beta.years) == ("Beta", "share", frozenset({2025.0}))


def test_it_takes_the_name_nearest_before_a_figure_as_its_subject() -> None:
    # given one sentence naming two products, each with its own price
    text = "The Alpha costs 4,200 euros, while the Beta costs 5,100 euros."
    # when
    subjects = [(f.subject_text, f.attribute) for f in read_figures(text)]
    # then
    assert subjects == [("Alpha", "price"), ("Beta", "price")]


def test_it_does_not_take_a_place_or_a_sentence_opener_as_a_subject() -> None:
    # given
    text = "Installers say the Alpha costs 4,200 euros in Germany and 4,500 euros in France."
    # when / then
    assert [f.subject_text for f in read_figures(text)] == ["Alpha", "Alpha"]


def test_it_falls_back_to_an_earlier_name_then_to_the_title_for_a_figure_without_one() -> None:
    # given sentences that only say "the company" or nothing at all
    earlier = "Alpha Energy launched the Alpha X1. The company rates it for 6,000 full cycles."
    nothing = "The battery stores 10 kWh."
    # when
    (from_text,) = read_figures(earlier)
    (from_title,) = read_figures(nothing, "Beta home battery review")
    # then
    assert from_text.subject_text == "Alpha X1"
    assert from_title.subject == frozenset({"beta"})


@pytest.mark.parametrize(
    "text",
    [
        "The Beta costs 900 euros more than the Alpha.",
        "Installation adds between 800 and 1,500 euros.",
        "Prices rose by 5% last year.",
        "The maker promises up to 20% savings.",
        "The lab saw an increase of 3 percent.",
        "The Beta is 12% cheaper than the Alpha.",
    ],
)
def test_it_does_not_read_a_difference_a_bound_or_a_change_as_a_value(text: str) -> None:
    assert [text[f.quantity.start : f.quantity.end] for f in read_figures(text)] == []
