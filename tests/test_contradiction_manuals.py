"""What two pages of one manual say about different things is no disagreement: the rules' precision
on manual-like text (fixtures of our own test code paths; the figures are bench.conflicts on
third-party cases and bench.docs_qa's manual questions)."""

from __future__ import annotations

from researchapp.pipeline.text.contradiction import CONTRADICT, Pair, Side, judge_pair
from researchapp.pipeline.text.contradiction.focus import ENTITY, focus_of


def verdict(first: str, second: str, question: str = "") -> str:
    pair = Pair(Side(1, 0, len(first), first, 1, 1, question=question), Side(2, 0, len(second), second, 2, 1))
    judged = judge_pair(pair)  # None: not even a candidate
    return judged.verdict if judged else ""


def test_a_thing_a_sentence_lacks_is_not_a_denial_of_another_page() -> None:
    # "no file", "without a datatype", "not the database": what a thing lacks or is not
    assert (
        verdict(
            "A Quill temporary database has no file on disk until the cache fills.",
            "The Quill database file on disk holds every table of the database.",
        )
        != CONTRADICT
    )
    assert (
        verdict(
            "A Quill column declared without a datatype takes any value the table stores.",
            "A Quill column datatype decides the values the table stores in that column.",
        )
        != CONTRADICT
    )


def test_a_keyword_written_in_capitals_is_a_name_not_a_denial() -> None:
    assert (
        verdict(
            "A Quill table created WITHOUT ROWID stores its rows in the primary key index.",
            "Every ordinary Quill table stores its rows by ROWID in the primary key index.",
        )
        != CONTRADICT
    )


def test_a_denied_statement_is_still_a_disagreement() -> None:
    assert (
        verdict(
            "The Marrowby council does not own the Tarnow lighthouse, the clerk said.",
            "The Marrowby council owns the Tarnow lighthouse and rents it out in summer.",
        )
        == CONTRADICT
    )


def test_a_question_asking_for_a_list_or_a_definition_asks_for_no_single_name() -> None:
    assert ENTITY not in focus_of("Which values can the Quill journal mode be set to?").kinds
    assert ENTITY not in focus_of("What is a fast-forward, as the Quill glossary defines it?").kinds
    assert ENTITY in focus_of("Which company owns the Tarnow lighthouse?").kinds
