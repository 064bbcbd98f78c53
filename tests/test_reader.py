"""The reader: what a question asks, the pieces of a passage, and the answer spans they state.

Small fixtures written here test code paths, not quality (the quality figures are bench.docs_qa,
bench.squad2 and bench.multihop_recall on third-party sets).
"""

from __future__ import annotations

import pytest

from researchapp.pipeline.reader.extractive import read_extractive
from researchapp.pipeline.reader.spans import answer_span
from researchapp.pipeline.reader.units import ENTRY, LIST, SENTENCE, units_of
from researchapp.pipeline.text.answer_type import AnswerType, analyse_question, answer_type_of, asks_of
from researchapp.pipeline.values import Evidence, SubQuestion


def evidence(
    evidence_id: int, quote: str, *, title: str = "", score: float = 1.0, source_id: int = 0
) -> Evidence:
    return Evidence(
        id=evidence_id,
        source_id=source_id or evidence_id,
        subquestion_id=1,
        start=0,
        end=len(quote),
        quote=quote,
        score=score,
        source_title=title,
        cluster=f"c{source_id or evidence_id}",
    )


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        ("What percentage of the market does the Harbor tram hold?", AnswerType.QUANTITY),
        ("By default, how many workers does the Quill server start?", AnswerType.LIMIT),
        ("Since which release has the Quill server used TLS by default?", AnswerType.VERSION),
        ("Which modes does the quill reset command accept?", AnswerType.LIST),
        ("What does Quill mean by a 'soft lock'?", AnswerType.DEFINITION),
        ("What happens when the Quill queue is full?", AnswerType.EXPLANATION),
        ("How do the Quill and Ink servers differ in memory use?", AnswerType.COMPARISON),
        ("Is the Northgate ferry safe in storms?", AnswerType.YES_NO),
        ("Who founded the Quill project?", AnswerType.NAME),
        ("灰水角灯塔有多高？", AnswerType.QUANTITY),  # how tall: a measure, as in English
        ("Quill 服务器默认启动多少个进程？", AnswerType.LIMIT),
    ],
)
def test_it_reads_the_answer_type_a_question_expects(question: str, expected: AnswerType) -> None:
    assert answer_type_of(question) is expected


def test_it_weighs_the_subject_by_the_corpus_and_splits_two_asks() -> None:
    # a name every document holds identifies nothing
    assert analyse_question("What is the default port of Quill?", common={"quill"}).subject == ()
    assert "quill" in analyse_question("What is the default port of Quill?").subject
    # "When was it built, and how tall is it?" asks two things
    assert asks_of("When was the Greywater lighthouse built and how tall is it?") == [
        "When was the Greywater lighthouse built?",
        "how tall is it?",
    ]


def test_it_keeps_a_lead_in_with_its_list_and_a_term_with_its_description() -> None:
    quote = (
        "The mode must be one of the following:\n"
        "  - --soft\n"
        "  - \n"
        "        Does not touch the index file (but\n"
        "        resets the head).\n"
        "  - --mixed\n"
        "  - Resets the index but not the working tree.\n"
        "There are three choices: ROLLBACK, ABORT and FAIL."
    )
    units = units_of(quote)
    entries = [u for u in units if u.kind == ENTRY]
    assert [u.term for u in entries] == ["--soft", "--mixed"]
    assert quote[entries[0].start : entries[0].end].endswith("resets the head).")
    (listed,) = [u for u in units if u.kind == LIST]
    assert quote[listed.start : listed.end].startswith("The mode must be one of the following:")
    assert "Resets the index but not the working tree." in quote[listed.start : listed.end]
    # the sentence after the list is its own piece, not the last entry's description
    assert any(u.kind == SENTENCE and quote[u.start : u.end].startswith("There are three") for u in units)


def test_a_sentence_without_the_asked_type_never_answers() -> None:
    percent = analyse_question("What percentage of the market does the Harbor tram hold?")
    assert answer_span("The Harbor tram holds a large part of the market.", percent) is None
    text = "The Harbor tram holds 18 percent of the market."
    span = answer_span(text, percent)
    assert span and text[span[0] : span[1]] == "18 percent"
    # a figure inside code is not a stated value
    limit = analyse_question("What is the largest value the quill depth option accepts?")
    assert answer_span("Use VARCHAR(255) for names.", limit) is None
    # a version the question itself names is not its answer
    version = analyse_question("In Quill builds newer than 3.2.0, since which version is TLS on?")
    text = "Since Quill 3.2.0 was released, and since version 3.4.1, TLS is on."
    span = answer_span(text, version)
    assert span and text[span[0] : span[1]] == "3.4.1"


def test_it_answers_with_the_sentence_that_states_the_value_next_to_the_one_naming_it() -> None:
    # given a passage whose first sentence repeats the question's words and whose second states the value
    question = "By default, how many bytes long can a Quill message be?"
    passage = evidence(
        1,
        "The maximum number of bytes in a Quill message is set by the QUILL_MAX_MESSAGE macro. "
        "The default value of this macro is 65,536. You can raise it at compile time.",
    )
    # when
    answers = read_extractive(SubQuestion(1, question, ()), [passage], question=question)
    # then the value's sentence answers, and the span is the value
    (span,) = answers.spans
    assert span.answer == "65,536"
    assert passage.quote[span.start : span.end] == "The default value of this macro is 65,536."


def test_it_says_nothing_answers_when_no_sentence_states_the_asked_type() -> None:
    question = "What percentage of ferry crossings are late?"
    passage = evidence(1, "Many ferry crossings are late in winter. Crossings are planned weekly.")
    answers = read_extractive(SubQuestion(1, question, ()), [passage], question=question)
    assert answers.spans == () and "quantity" in answers.reason


def test_an_answer_must_stand_near_what_the_question_names_it() -> None:
    # "Which Android release": a version sentence that never names Android names no Android release
    question = "Which Android release first shipped Quill 3.5.0?"
    passage = evidence(1, "Quill has supported the feature since version 3.5.0 (2021-03-12).")
    assert read_extractive(SubQuestion(1, question, ()), [passage], question=question).spans == ()


def test_a_comparison_is_answered_for_each_option() -> None:
    question = "How do the Kestrel battery and the Osprey battery differ in cost?"
    kestrel = evidence(1, "The Kestrel battery costs 4,200 euros before installation.", score=2.0)
    osprey = evidence(2, "The Osprey battery costs 5,100 euros, and its app is well designed.", score=1.0)
    answers = read_extractive(SubQuestion(1, question, ()), [kestrel, osprey], question=question)
    assert {span.evidence_id for span in answers.spans} == {1, 2}


def test_the_same_answer_in_two_passages_is_one_answer_citing_both() -> None:
    question = "What is the default port of the Quill server?"
    one = evidence(1, "The Quill server listens on port 7311 by default.", score=2.0)
    two = evidence(2, "By default the Quill server listens on port 7311.", score=1.0)
    (span,) = read_extractive(SubQuestion(1, question, ()), [one, two], question=question).spans
    assert span.answer == "7311" and span.agreeing == (2,)
