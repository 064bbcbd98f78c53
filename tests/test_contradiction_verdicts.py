"""Answers to an asked yes-or-no question, passages paired by the question they answer, a denied
value's two sides, and the search for an answer's other side (``text.contradiction.verdicts``,
``pairs``, ``analyser.disputes``, ``collector.other_side``), on fixtures of our own: code paths, not quality
(quality is measured on third-party cases by ``bench/conflict_judges.py``)."""

from __future__ import annotations

from dataclasses import replace

from researchapp.pipeline.analyser.disputes import find_disputes
from researchapp.pipeline.collector.other_side import other_side_queries
from researchapp.pipeline.text.contradiction import Pair, RuleJudge, Side, judge_pair
from researchapp.pipeline.text.contradiction.pairs import candidate_pairs
from researchapp.pipeline.text.contradiction.statements import statements_of
from researchapp.pipeline.values import Evidence, Passage, SubQuestion, UsageLog

LABELS = "Does the colour of a Brackwell seed label show the farm of origin?"


def side(source: int, text: str, question: str = "", evidence: int | None = None) -> Side:
    return Side(
        source, 0, len(text), text, evidence if evidence is not None else source, 1, question=question
    )


def judged(first: str, second: str, question: str):
    return judge_pair(Pair(side(1, first, question), side(2, second, question)))


def test_a_verdict_against_a_plain_statement_of_the_asked_thing_disagrees() -> None:
    # given a page that answers the yes-or-no question with "No," and a post that says it is so,
    # in other words (they share almost nothing but the question's terms)
    post = "Grower Weekly: you can tell the farm of any Brackwell seed from its tag."
    page = "No, the colour does not reveal its origin; it marks the batch year."
    # when judged with the question both were found for
    found = judged(post, page, LABELS)
    # then it is a denial, its spans the verdict and the question's words the post states
    assert found is not None and (found.kind, found.rule) == ("negation", "polar-answer")
    assert page[slice(*found.second_spans[0])] == "No,"
    assert {post[s:e].lower() for s, e in found.first_spans} <= {
        "farm",
        "brackwell",
        "seed",
        "colour",
        "label",
    }


def test_no_verdict_without_a_yes_or_no_question_or_when_both_deny() -> None:
    post = "Grower Weekly: you can tell the farm of any Brackwell seed from its tag."
    page = "No, the colour does not reveal its origin; it marks the batch year."
    # a question that asks for a name, not yes or no
    assert judged(post, page, "Which farm grew the Brackwell seed with the red label?") is None
    # both sides deny: they agree
    also_no = "Brackwell seed tags never tell the farm; they give the batch year."
    assert judged(also_no, page, LABELS) is None
    # a side that only asks does not say yes
    asking = "Can you tell the farm of a Brackwell seed from its tag?"
    assert judged(asking, page, LABELS) is None
    # a negation without a verdict opening it is not an answer of "no" to the question
    hedged = "The colour alone does not reveal its origin, growers say."
    assert judged(post, hedged, LABELS) is None


def test_a_side_holding_too_few_of_the_questions_terms_answers_something_else() -> None:
    page = "No, the colour does not reveal its origin; it marks the batch year."
    assert judged("Grower Weekly: the harvest was late this year.", page, LABELS) is None


def test_short_plurals_in_es_meet_their_singular() -> None:
    (taxes,) = statements_of("The council lowered taxes on Brackwell farms.")
    (tax,) = statements_of("The Brackwell farm tax was cut.")
    assert "tax" in taxes.roots and "tax" in tax.roots
    (boxes,) = statements_of("Seed boxes were sold out.")
    assert "box" in boxes.roots


REVENUE = "What was the total toll revenue of the Quillby bridge after the toll cut?"


def test_passages_that_answer_one_question_are_paired_though_they_share_one_word() -> None:
    # given two passages that share one word, a term of the question, and hold two terms each
    claim = side(1, "Mayor Dunn: bridge revenue rose after we cut the toll.", REVENUE)
    page = side(2, "Total revenue of the crossing has fallen by 3 percent in real terms.", REVENUE)
    # when paired
    (pair,) = candidate_pairs([claim, page])
    # then they are a pair made by the question, and the opposite changes of the revenue disagree
    assert pair.bridged
    found = judge_pair(pair)
    assert found is not None and (found.kind, found.rule) == ("negation", "opposite-change")
    # without the question they share too little to be paired at all
    assert candidate_pairs([side(1, claim.text), side(2, page.text)]) == []


def test_figures_of_passages_paired_only_by_the_question_are_not_compared() -> None:
    # two passages about one asked measure's word ("hours") that count two different things
    question = "How many hours are required to complete a Quillby pilot course?"
    pilots = side(1, "Most boards require 1,500 hours of training for pilots.", question)
    medics = side(2, "Medic courses are normally between 150 and 180 hours to complete.", question)
    pairs = candidate_pairs([pilots, medics])
    assert all(p.bridged for p in pairs)
    assert [judge_pair(p) for p in pairs if judge_pair(p) is not None] == []


def test_a_value_one_side_gives_and_the_other_denies_is_a_dispute_with_two_sides() -> None:
    # given a post that dates the opening and a page that denies that year (same words, "1998")
    said, denied = "Quillby News: the Dunmore bridge was opened in 1998.", "It opened in 2001, not 1998."
    post = Evidence(1, 1, 1, 0, len(said), said, 1.0, cluster="a")
    page = Evidence(2, 2, 1, 0, len(denied), denied, 1.0, cluster="b")
    question = {1: "When was the Dunmore bridge opened?"}
    # when the task's passages are judged
    (dispute,) = find_disputes([post, page], RuleJudge(), questions=question, usage=UsageLog())
    # then each passage is on its own side (not both on one, which leaves no dispute at all)
    assert [s.evidence_id for s in dispute.first] == [1]
    assert [s.evidence_id for s in dispute.second] == [2]
    assert dispute.kind == "date"


def test_the_figures_and_years_of_the_first_answers_are_searched_for_their_other_side() -> None:
    subquestion = SubQuestion(
        1, "How much was the Quillby ferry ticket sold for?", ("quillby ferry ticket price",)
    )
    sold = "Harbour News: the Quillby ferry ticket was sold for Rs4,500 in 2019."
    passage = Passage(1, 0, len(sold), sold, 1.0)
    queries = other_side_queries(subquestion, [passage], question=subquestion.text)
    # the figure as digits ("Rs4,500" is "4500"), and the year, each with the question's terms
    assert [q.split()[0] for q in queries] == ["4500", "2019"]
    assert all("ferry" in q for q in queries)
    # a passage below the bar, or one holding none of the question's terms, gives none
    assert (
        other_side_queries(subquestion, [replace(passage, clears_bar=False)], question=subquestion.text) == ()
    )
    unrelated = Passage(2, 0, 36, "Pasta cooks in 4500 seconds at most.", 1.0)
    assert other_side_queries(subquestion, [unrelated], question=subquestion.text) == ()
