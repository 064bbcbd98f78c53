"""Typed answers: two passages that answer the asked question with a figure or a date of its type
that cannot both hold (``text.contradiction.typed``), on fixtures of our own; quality is measured on
third-party cases by ``bench/conflict_judges.py``."""

from __future__ import annotations

from researchapp.pipeline.text.contradiction import Pair, Side, judge_pair
from researchapp.pipeline.text.contradiction.focus import DATE, NUMBER, POLAR, focus_of

SAVED = "How much did the Quillby ferry levy save the harbour board in 2019?"


def judged(first: str, second: str, question: str, *, context: str = ""):
    return judge_pair(
        Pair(
            Side(1, 0, len(first), first, 1, 1, question=question),
            Side(2, 0, len(second), second, 2, 1, context=context, question=question),
        )
    )


def test_two_answers_to_the_asked_figure_that_cannot_both_hold_disagree() -> None:
    # given two sentences that share few words with each other but answer the asked figure
    claim = "Harbour News: The Quillby ferry levy saves the board £40 million."
    page = "the total saving to the harbour board from the levy amounted to £6.5 million in 2019."
    # when judged with the question they were found for
    found = judged(claim, page, SAVED)
    # then it is a disagreement of figures, with the two figures as its spans
    assert found is not None and (found.kind, found.rule) == ("number", "typed-values")
    assert claim[slice(*found.first_spans[0])] == "£40 million"
    assert page[slice(*found.second_spans[0])] == "£6.5 million"


def test_figures_that_meet_by_rounding_or_count_other_things_do_not() -> None:
    rounded = "the total saving to the harbour board from the levy was £40.3 million."
    assert judged("The Quillby ferry levy saves the board £40 million.", rounded, SAVED) is None
    ships = "The Quillby ferry levy saved the harbour board 12 ships in 2019."
    assert judged("The Quillby ferry levy saved the harbour board 40 berths.", ships, SAVED) is None
    # nor does a passage that also gives the other's figure as its own
    both = "The levy saved the harbour board £6.5 million, or £40 million over the decade."
    assert judged("The Quillby ferry levy saves the board £40 million.", both, SAVED) is None


def test_two_answers_to_the_asked_date_disagree_when_the_document_names_the_subject() -> None:
    question = "When was the Dunmore Bridge Act introduced in parliament?"
    claim = "Archive: The Dunmore Bridge Act was introduced on March 3, 2011."
    passage = "Councillor Ada Brennan introduced the bill on Tuesday (June 14, 2016) to fund repairs."
    document = passage + " The bill, dubbed the Dunmore Bridge Act, pays for the crossing."
    found = judged(claim, passage, question, context=document)
    assert found is not None and (found.kind, found.rule) == ("date", "typed-dates")
    # a passage whose clause names another subject, that neither document nor question names, does not
    other = "Councillor Ada Brennan filed the Harbour Rates Bill on Tuesday (June 14, 2016)."
    assert judged(claim, other, question) is None


def test_a_yes_or_no_question_that_states_a_figure_or_a_date_asks_it() -> None:
    assert focus_of("Were the Kelby pickets held for 20 days?").kinds == {POLAR, NUMBER}
    assert focus_of("Did the Kelby strike start on September 25th 2019?").kinds >= {POLAR, DATE}
    assert focus_of("Did the Kelby council close the library?").kinds == {POLAR}


def test_a_word_meets_the_question_term_it_shares_its_first_letters_with() -> None:
    # "Canadian" answers a question about "Canada": with "admit", two of its terms
    question = "How many people will Canada admit in 2030?"
    claim = "Northern Daily: the Canadian government will admit four million people in 2030."
    page = "Canada plans to admit 500,000 people in 2030, its immigration plan says."
    found = judged(claim, page, question)
    assert found is not None and found.kind == "number"
    # a sentence with one of the terms alone does not answer
    assert judged(claim.replace("Canadian", "provincial"), page, question) is None


def test_when_each_passage_gives_one_date_one_term_of_the_question_says_it_answers() -> None:
    question = "When did the Kelby mill close?"
    claim = "Kelby Post: The Kelby mill closed in 2019."
    found = judged(claim, "The mill shut down in March 2009, the council said.", question)
    assert found is not None and (found.kind, found.rule) == ("date", "typed-dates")
    # a passage with two dates must hold two of the question's terms
    two = "The mill shut down in March 2009, the council said; its shop opened in 2012."
    assert judged(claim, two, question) is None


def test_a_date_said_relative_to_the_page_meets_the_pages_year() -> None:
    from datetime import date

    question = "When was the Kelby video filmed?"
    claim = "Kelby Post: This video of the Kelby riot was filmed last week."
    first = Side(1, 0, len(claim), claim, 1, 1, published=date(2020, 5, 1), question=question)

    def against(text: str):
        return judge_pair(Pair(first, Side(2, 0, len(text), text, 2, 1, question=question)))

    assert against("The video dates back to 2014 and shows a protest in Lagos.") is not None
    assert against("The video was filmed in April 2020 in Kelby.") is None
