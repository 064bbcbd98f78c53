"""The general mechanisms of the judges by rule, each on small fixtures of our own (code paths,
not quality: quality is measured on third-party cases by ``bench/conflict_judges.py``)."""

from __future__ import annotations

from researchapp.pipeline.text.contradiction import Pair, Side, judge_pair
from researchapp.pipeline.text.contradiction.align import aligned_sentences, different_subjects
from researchapp.pipeline.text.contradiction.dates import dates_of, none_since, relation
from researchapp.pipeline.text.contradiction.focus import DATE, ENTITY, NUMBER, POLAR, focus_of
from researchapp.pipeline.text.contradiction.statements import root, statements_of


def judged(first: str, second: str, question: str = ""):
    return judge_pair(
        Pair(Side(1, 0, len(first), first, 1, 1, question=question), Side(2, 0, len(second), second, 2, 1))
    )


def test_the_question_says_which_kind_of_fact_is_asked() -> None:
    assert focus_of("How many ferries leave Quillby each day?").kinds == {NUMBER}
    assert focus_of("When was the Dunmore bridge opened?").kinds == {DATE}
    assert focus_of("Who owns the Tarnow mill?").kinds == {ENTITY}
    assert focus_of("Did the Kelby council close the library?").kinds == {POLAR}
    assert focus_of("What were the volunteers thanked for").kinds == frozenset()
    assert "ferry" in focus_of("How many ferries leave Quillby each day?").roots


def test_aliases_and_irregular_forms_meet() -> None:
    (us,) = statements_of("The United States sold the Marrowby lighthouse.")
    (usa,) = statements_of("The U.S. sells the Marrowby lighthouse.")
    assert "usa" in us.roots and "usa" in usa.roots
    assert root("sold") == root("sell") and root("fell") == root("fall")
    assert {"usa", "sell", "lighthous"} <= aligned_sentences(us, usa, focus_of(""))


def test_a_hard_wrapped_sentence_is_read_whole() -> None:
    text = "the total cost\nto the Quillby council\namounted to £3.0\nbillion in 2017."
    assert len(statements_of(text)) == 1


def test_the_questions_terms_align_sentences_that_share_only_one_word() -> None:
    (x,) = statements_of("Quillby harbour revenue rose after the ferry tax was cut.")
    (y,) = statements_of("Total revenue has fallen since the change, the port office said.")
    focus = focus_of("How did Quillby harbour revenue change after the ferry tax cut?")
    assert len(aligned_sentences(x, y, focus_of(""))) < 3
    assert any(r.startswith("asked:") for r in aligned_sentences(x, y, focus))


def test_a_negation_denies_the_word_it_negates_not_every_word_after_it() -> None:
    denied = judged("Anna Petrov owns the Dunmore island.", "Anna Petrov does not own the Dunmore island.")
    assert denied is not None and denied.rule == "negated-word"
    # "never listened to Kelby Weekly" negates the listening, not the podcast
    assert (
        judged("Kelby Weekly is a podcast about Quillby football.", "I never listened to Kelby Weekly.")
        is None
    )


def test_a_negation_bounded_by_a_condition_denies_nothing_flatly() -> None:
    # "cannot be read until ..." says when, not that it never is: the log that read it agrees
    locked = "A table that another connection is writing cannot be read until that connection commits."
    logged = "Every client request is logged with the time it arrived and the table it read."
    assert judged(locked, logged) is None
    # without the condition the same words deny it
    assert judged("A table that another connection is writing cannot be read.", logged) is not None


def test_a_negated_predicate_answers_a_yes_or_no_question() -> None:
    claim = "Marrowby tea cures Kelby fever."
    answer = "No, Marrowby tea does not protect against Kelby fever, the ministry said."
    found = judged(claim, answer, question="Does Marrowby tea cure Kelby fever?")
    assert found is not None and found.kind == "negation"


def test_names_that_meet_nowhere_are_two_subjects() -> None:
    (x,) = statements_of("Councillor Anna Petrov will not support the harbour bill.")
    (y,) = statements_of("In 2019 Boris Marek supported the harbour bill.")
    assert different_subjects(x, y, 0, 0)
    assert judged(x.sentence, y.sentence) is None


def test_a_start_date_is_not_a_point_and_none_since_is_read() -> None:
    (since,) = statements_of("Tarnow has had no power cuts since August 2015.")
    (later,) = statements_of("Tarnow power cuts were reported on 14 September 2015.")
    (date_since,) = dates_of(since)
    assert relation(since, date_since) == "start"
    found = none_since(since, later)
    assert found is not None and found[1].day == 14


def test_dates_of_two_events_of_one_subject_do_not_disagree() -> None:
    married = "Anna Petrov married in Quillby in December 2012."
    split = "Anna Petrov, who split from her first husband in 2001, lives in Quillby."
    assert judged(married, split) is None
    opened = judged("The Dunmore bridge was opened in 1974.", "The Dunmore bridge was opened in 1981.")
    assert opened is not None and opened.rule == "dates"


def test_different_answers_to_an_asked_who() -> None:
    question = "Who bought the Tarnow mill?"
    found = judged(
        "The Tarnow mill was sold to Anna Petrov.", "Boris Marek bought the Tarnow mill in 2019.", question
    )
    assert found is not None and found.kind == "entity" and found.rule == "answers"
    # a passage that also names the other's answer does not disagree with it
    both = "Boris Marek bought the Tarnow mill from Anna Petrov in 2019."
    assert judged("The Tarnow mill was sold to Anna Petrov.", both, question) is None
