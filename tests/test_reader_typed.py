"""The reader's typed answers: the passage that states a value of the asked type is chosen and
read, whatever words it shares with the question. Fixtures written here test code paths; the
quality figures are bench.docs_qa's on the third-party manual questions."""

from __future__ import annotations

from researchapp.pipeline.collector.passages import select_passages
from researchapp.pipeline.planner.checks import reads_as_code
from researchapp.pipeline.reader.bearing import states_type
from researchapp.pipeline.reader.extractive import read_extractive
from researchapp.pipeline.text.answer_type import analyse_question
from researchapp.pipeline.values import Evidence, Source, SubQuestion
from researchapp.providers.fetch.extract import extract_html

RELEASE_QUESTION = (
    "Starting with which Quill release can INSERT and UPDATE statements hand back the modified rows "
    "through a RETURNING clause?"
)


FILLER = (
    "Each of them is described on this page with an example of its use, the columns it may name and "
    "the order in which the rows come back to the application that asked for them."
)


def evidence(quote: str) -> Evidence:
    return Evidence(1, 1, 1, 0, len(quote), quote, 1.0, source_title="The RETURNING Clause", cluster="c1")


def test_the_passage_stating_the_asked_release_is_chosen_over_ones_repeating_the_question() -> None:
    # given one page whose paragraphs repeat the question's words, and one that states the release
    repeats = [
        f"{sentence} {FILLER}"
        for sentence in (
            "The RETURNING clause of an INSERT or UPDATE statement hands back the modified rows in Quill.",
            "The rows an UPDATE statement modified are handed back by the RETURNING clause, one per row.",
            "An INSERT statement with a RETURNING clause hands back each modified row it inserted.",
            "Modified rows of an UPDATE hand back their new values through the RETURNING clause in Quill.",
        )
    ]
    stated = f"Quill has supported the RETURNING syntax since version 3.5.0 (2021-03-12). {FILLER}"
    page = Source(
        1, "https://docs.example/returning", "The RETURNING clause", "\n\n".join([*repeats, stated])
    )
    other = Source(2, "https://docs.example/other", "Triggers", "Triggers run when rows change in Quill.")
    # when the passages of the release question are chosen
    passages = select_passages(SubQuestion(1, RELEASE_QUESTION, ()), [page, other], question=RELEASE_QUESTION)
    # then the stated release is among them, though four paragraphs share more of the question's words
    assert any(p.quote.startswith("Quill has supported the RETURNING syntax since") for p in passages)


def test_a_release_question_is_answered_by_the_version_number_not_the_date() -> None:
    passage = evidence("Quill has supported the RETURNING syntax since version 3.5.0 (2021-03-12).")
    answers = read_extractive(SubQuestion(1, RELEASE_QUESTION, ()), [passage], question=RELEASE_QUESTION)
    assert [span.answer for span in answers.spans] == ["3.5.0"]


def test_terms_most_documents_hold_need_not_be_repeated_by_the_answer() -> None:
    # given a sentence stating the release in its own words, sharing little with the question
    passage = evidence("The RETURNING syntax arrived with Quill 3.5.0 (2021-03-12).")
    subquestion = SubQuestion(1, RELEASE_QUESTION, ())
    # then, read alone, it holds too few of the question's words to answer
    assert read_extractive(subquestion, [passage], question=RELEASE_QUESTION).spans == ()
    # and, in a corpus most of whose documents speak of statements, rows and clauses, it answers
    common = frozenset({"statement", "row", "clause", "modified", "back", "insert", "update"})
    answers = read_extractive(subquestion, [passage], question=RELEASE_QUESTION, common=common)
    assert [span.answer for span in answers.spans] == ["3.5.0"]


def test_a_page_stamp_states_no_date_or_version() -> None:
    analysis = analyse_question("When was the Quill RETURNING clause added?")
    assert not states_type("This page last modified on 2021-04-02 15:31:42 UTC", analysis)
    assert states_type("The RETURNING clause was added on 2021-03-12.", analysis)


def test_sql_keywords_named_in_a_query_are_words_and_a_statement_is_code() -> None:
    assert not reads_as_code("Quill release INSERT UPDATE DELETE statements RETURNING clause")
    assert reads_as_code("SELECT name FROM quill_master")
    assert reads_as_code("INSERT INTO t VALUES (1)")


def test_a_list_nested_in_a_manual_section_is_kept_with_its_lead_in() -> None:
    # given a manual page whose sections are the items of a list, one holding a list of its own
    sections = "".join(
        f"<li><p><b>Limit {n}</b></p><p>Quill limit number {n} applies in several places and is "
        f"described here at some length so that the section reads as prose.</p></li>"
        for n in range(1, 4)
    )
    nested = (
        "<li><p><b>Maximum Number Of Columns</b></p><p>The QUILL_MAX_COLUMN parameter sets an upper bound on:"
        "</p><ul><li>The number of columns in a table</li><li>The number of columns in an index</li>"
        "<li>The number of columns in a view</li></ul><p>The default setting for QUILL_MAX_COLUMN is 2000."
        "</p></li>"
    )
    html = (
        "<html><head><title>Limits in Quill</title></head><body><div class=menu><ul><li><a href=/>Home</a>"
        f"</li></ul></div><h1>Limits in Quill</h1><ol>{sections}{nested}</ol></body></html>"
    )
    # when it is extracted
    _, text, _ = extract_html(html)
    # then the lead-in keeps its items, in order
    lead_in = text.find("upper bound on:")
    items = [text.find(f"The number of columns in {what}") for what in ("a table", "an index", "a view")]
    assert 0 <= lead_in < items[0] < items[1] < items[2] < text.find("The default setting")


def test_an_answer_two_passages_state_outweighs_a_slightly_better_one_stated_once() -> None:
    question = "In which Quill version was the UPSERT syntax added?"
    quotes = [
        "The UPSERT syntax of Quill was generalized to permit many ON CONFLICT clauses in version 3.35.0.",
        "UPSERT syntax was added to Quill with version 3.24.0 (2018-06-04).",
        "The ON CONFLICT phrase is part of UPSERT, an extension to INSERT added in Quill version 3.24.0.",
    ]
    items = [
        Evidence(i + 1, i + 1, 1, 0, len(q), q, score, cluster=f"c{i}")
        for i, (q, score) in enumerate(zip(quotes, (1.0, 0.9, 0.9), strict=True))
    ]
    answers = read_extractive(SubQuestion(1, question, ()), items, question=question)
    assert answers.spans[0].answer == "3.24.0" and set(answers.spans[0].agreeing) == {3}
