"""What two pages of one manual say about different things is no disagreement: the rules' precision
on manual-like text (fixtures of our own test code paths; the figures are bench.conflicts on
third-party cases and bench.docs_qa's manual questions)."""

from __future__ import annotations

from researchapp.pipeline.analyser.disputes import asks_about, find_disputes
from researchapp.pipeline.reader.extractive import read_extractive
from researchapp.pipeline.text.contradiction import CONTRADICT, Pair, RuleJudge, Side, judge_pair
from researchapp.pipeline.text.contradiction.focus import ENTITY, focus_of
from researchapp.pipeline.values import Evidence, SubQuestion, UsageLog


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


def item(evidence_id: int, quote: str, subquestion_id: int = 1) -> Evidence:
    return Evidence(
        evidence_id, evidence_id, subquestion_id, 0, len(quote), quote, 1.0, cluster=f"c{evidence_id}"
    )


def disputes_of(question: str, *quotes: str) -> list:
    items = [item(i + 1, quote) for i, quote in enumerate(quotes)]
    return find_disputes(items, RuleJudge(), questions={1: question}, usage=UsageLog())


def test_two_pages_modified_at_different_times_do_not_disagree() -> None:
    stamp = (
        "The RETURNING clause of Quill returns the modified rows.\n"
        "This page last modified on 2021-04-02 {} UTC"
    )
    found = disputes_of(
        "When was the Quill RETURNING clause added?", stamp.format("15:31:42"), stamp.format("19:17:21")
    )
    assert found == []


def test_a_number_dispute_answers_a_percentage_question_only_in_percentages() -> None:
    # given one pair of pages differing in percentages, and one differing in plain figures
    question = "What percentage of Quill users run strict tables?"
    percents = disputes_of(
        question,
        "About 12 percent of Quill users run strict tables, the survey found.",
        "About 30 percent of Quill users run strict tables, the census found.",
    )
    builds = disputes_of(
        question,
        "Quill users run strict tables in 3.37 builds, the survey found.",
        "Quill users run strict tables in 64 builds, the census found.",
    )
    subquestion = SubQuestion(1, question, ())
    # then both disagree, and only the disagreement in percentages is about what was asked
    assert percents and builds
    assert all(asks_about(d, subquestion) for d in percents)
    assert not any(asks_about(d, subquestion) for d in builds)


def test_a_count_dispute_answers_how_many_only_where_each_figure_counts_the_asked() -> None:
    question = "How many developers are paid to work on Quill?"
    subquestion = SubQuestion(1, question, ())
    counted = disputes_of(
        question,
        "Quill developers paid to work on it full-time number 12, the Quill foundation says.",
        "Quill developers paid to work on it full-time number 40, a Quill survey says.",
    )
    other = disputes_of(
        question,
        "Quill developers are paid to work on it. A Quill commit message has a limit of 50 characters.",
        "Quill developers are paid to work on it. A Quill commit message has a limit of 72 characters.",
    )
    assert counted and other and all(asks_about(d, subquestion) for d in counted)
    assert not any(asks_about(d, subquestion) for d in other)


def test_how_many_is_answered_by_a_figure_counting_the_asked_in_its_own_sentence() -> None:
    question = "How many developers are paid to work on Quill full-time?"
    passage = item(
        1, "Quill welcomes developers. The first line of a commit message has 50 characters at most."
    )
    assert read_extractive(SubQuestion(1, question, ()), [passage], question=question).spans == ()
    counted = item(2, "Twelve companies pay 14 developers to work on Quill full-time.")
    (span,) = read_extractive(SubQuestion(1, question, ()), [counted], question=question).spans
    assert span.answer == "14"


def test_two_figures_both_pages_state_are_two_facts_not_a_disagreement() -> None:
    # given two pages that each give the window (250) and the depth (50), passages cut differently
    window = (
        "The window size parameter used in the delta compression algorithm used by quill gc --aggressive. "
        "This defaults to 250, which is a much more aggressive window size than the default 10."
    )
    depth = (
        "The depth parameter used in the delta compression algorithm used by quill gc --aggressive. "
        "This defaults to 50, which is the default for the --depth option when --aggressive is not in use."
    )
    question = "What delta window size does quill gc --aggressive use by default?"
    items = [item(1, window), Evidence(2, 2, 1, 0, len(depth), depth, 1.0, cluster="c2")]
    snapshots = {1: f"{window}\n{depth}", 2: f"{window}\n{depth}"}
    # when they are judged with their pages known
    found = find_disputes(items, RuleJudge(), snapshots=snapshots, questions={1: question}, usage=UsageLog())
    # then no disagreement: each page states both figures
    assert found == []
    # and pages that each give one figure for the same parameter disagree
    other = {1: window, 2: window.replace("250", "50")}
    items = [item(1, window), Evidence(2, 2, 1, 0, len(other[2]), other[2], 1.0, cluster="c2")]
    assert find_disputes(items, RuleJudge(), snapshots=other, questions={1: question}, usage=UsageLog())
