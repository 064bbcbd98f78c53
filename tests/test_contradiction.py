"""The judges of disagreement by rule: each kind on small fixtures of our own (code paths, not
quality: quality is measured on third-party cases by ``bench/conflicts.py``)."""

from __future__ import annotations

from datetime import date

import pytest

from researchapp.pipeline.analyser.disputes import find_disputes, group_disputes
from researchapp.pipeline.text.contradiction import CONTRADICT, Judgement, Pair, RuleJudge, Side, judge_pair
from researchapp.pipeline.text.contradiction.pairs import candidate_pairs
from researchapp.pipeline.values import Evidence, UsageLog


def side(source_id: int, text: str, *, evidence_id: int | None = None, score: float = 1.0) -> Side:
    return Side(source_id, 0, len(text), text, evidence_id or source_id, 1, score)


def judged(first: str, second: str) -> Judgement | None:
    return judge_pair(Pair(side(1, first), side(2, second)))


def differing(judgement: Judgement) -> tuple[list[str], list[str]]:
    pair = judgement.pair
    return (
        [pair.first.text[s:e] for s, e in judgement.first_spans],
        [pair.second.text[s:e] for s, e in judgement.second_spans],
    )


# --- numbers -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("first", "second", "said"),
    [
        # scale words: "million", Indian "crore" and "lakh", written-out numbers
        (
            "The Marrowby lagoon project will cost 3 million euros to finish.",
            "Finishing the Marrowby lagoon project will cost 9 million euros.",
            (["3 million euros"], ["9 million euros"]),
        ),
        (
            "The state spent Rs 5,500 crore on the Tarnow canal scheme.",
            "Spending on the Tarnow canal scheme reached Rs 55 lakh.",
            (["Rs 5,500 crore"], ["Rs 55 lakh"]),
        ),
        (
            "Ninety percent of Quillby residents recycle their glass bottles.",
            "Only 41 percent of Quillby residents recycle their glass bottles.",
            (["Ninety percent"], ["41 percent"]),
        ),
        # a bound the other value breaks: "just fewer than 6,200"
        (
            "There were 12000 people at the Hallam rally on the pier.",
            "Just fewer than 6,200 people attended the Hallam rally on the pier.",
            (["12000"], ["6,200"]),
        ),
        # ranks and ratios
        (
            "Dunmore ranks fifth in the world for ferry safety.",
            "Dunmore ranks 15th in the world for ferry safety.",
            (["fifth"], ["15th"]),
        ),
        (
            "The Kelby turbine spins 81 times faster than the old rotor design.",
            "The Kelby turbine spins 12 times faster than the old rotor design.",
            (["81 times"], ["12 times"]),
        ),
    ],
)
def test_it_reads_figures_that_cannot_both_hold(first: str, second: str, said) -> None:
    # when
    judgement = judged(first, second)
    # then
    assert judgement is not None and judgement.verdict == CONTRADICT and judgement.kind == "number"
    assert differing(judgement) == (list(said[0]), list(said[1]))


@pytest.mark.parametrize(
    ("first", "second"),
    [
        # one value, two ways of writing it; an approximation that holds; a bound that holds
        (
            "The Marrowby lagoon holds 3,200 tonnes of water.",
            "The Marrowby lagoon holds 3.2 thousand tonnes.",
        ),
        (
            "About 2% of Quillby residents cycle to work daily.",
            "Of Quillby residents, 1.8% cycle to work daily.",
        ),
        (
            "Over fifty attacks on Quillby reporters were recorded.",
            "76 attacks on Quillby reporters were recorded.",
        ),
        # a time series: different years
        (
            "In 2018, 6,736 Quillby households were connected.",
            "Quillby households connected were 6,217 in 2019.",
        ),
        # two named things, each with its own figure
        ("The Alpha battery costs 4,200 euros.", "The Beta battery costs 5,100 euros."),
        # a source that states both values reports a change, not a disagreement
        (
            "Ferry fares in Dunmore rose from 35% to 42% of income.",
            "Ferry fares in Dunmore take 42% of income.",
        ),
    ],
)
def test_it_does_not_read_figures_that_agree_or_measure_other_things_as_disagreeing(first, second) -> None:
    assert judged(first, second) is None


def test_it_reads_opposite_changes_of_one_thing() -> None:
    # when
    judgement = judged(
        "Tarnow port revenues increased by 27 % after the new tariff.",
        "Tarnow port revenues declined by 27.63 per cent after the new tariff.",
    )
    # then
    assert judgement is not None and judgement.kind == "negation"
    assert differing(judgement) == (["increased"], ["declined"])


def test_a_figure_one_side_gives_and_the_other_denies_disagrees() -> None:
    judgement = judged(
        "The Tarnow clinic sells each test kit for Rs4,500 to patients.",
        "No test kit has been sold at ₹4500 by the Tarnow clinic.",
    )
    assert judgement is not None and judgement.kind == "number"


# --- dates ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("first", "second", "said"),
    [
        # years are exact: neighbouring years disagree
        (
            "The Greywater lighthouse was built in 1933 by the harbour board.",
            "The harbour board built the Greywater lighthouse in 1934.",
            (["1933"], ["1934"]),
        ),
        (
            "The Hallam bridge opened in 1996 after a long delay.",
            "After a long delay the Hallam bridge opened in 2004.",
            (["1996"], ["2004"]),
        ),
        # day and month
        (
            "The Quillby ferry bill was introduced Jan. 24, 2019 in the council.",
            "The council introduced the Quillby ferry bill on March 19, 2020.",
            (["Jan. 24, 2019"], ["March 19, 2020"]),
        ),
        (
            "Masks became mandatory in Dunmore shops on 1 August 2020.",
            "Masks will be mandatory in Dunmore shops from Monday August 10.",
            (["1 August 2020"], ["August 10"]),
        ),
    ],
)
def test_it_reads_dates_of_one_event_that_differ(first: str, second: str, said) -> None:
    judgement = judged(first, second)
    assert judgement is not None and judgement.kind == "date"
    assert differing(judgement) == (list(said[0]), list(said[1]))


def test_it_reads_a_denied_date() -> None:
    judgement = judged(
        "The Dunmore treaty was signed in 2013 by both councils.",
        "July 14th 2015, so not 2013 as the post says.",
    )
    assert judgement is not None and judgement.kind == "date"
    assert differing(judgement) == (["2013"], ["2013"])


def test_it_does_not_read_a_date_that_dates_a_figure_as_an_event() -> None:
    assert (
        judged("In 2018, 67,367 ferry trips ran in Dunmore.", "Dunmore ferry trips were 62,172 in 2019.")
        is None
    )


# --- names in one slot ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("first", "second", "said"),
    [
        (
            "Maria Okafor was the Tarnow County district attorney when the ferry sank.",
            "Mr. PETER VOSS (District Attorney, Tarnow County)",
            (["Maria Okafor"], ["PETER VOSS"]),
        ),
        (
            "The Kelby river is in Africa.",
            "The Kelby river located in South America is very long.",
            (["Africa"], ["South America"]),
        ),
        (
            "Protesters gathered outside the French embassy in Quillby.",
            "Protesters gathered outside the German embassy in Quillby.",
            (["French"], ["German"]),
        ),
    ],
)
def test_it_reads_two_names_in_the_same_slot(first: str, second: str, said) -> None:
    judgement = judged(first, second)
    assert judgement is not None and judgement.kind == "entity"
    assert differing(judgement) == (list(said[0]), list(said[1]))


def test_it_does_not_read_two_subjects_of_one_predicate_as_a_disagreement() -> None:
    # "Maria Okafor praised the ferry" and "Peter Voss praised the ferry" can both be true
    assert (
        judged("Maria Okafor praised the Quillby ferry service.", "Peter Voss criticised the Dunmore bus.")
        is None
    )


# --- polarity ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("first", "second", "said"),
    [
        (
            "Joe Briggs owns an island near the Quillby coast.",
            "Joe Briggs does not own an island near Quillby.",
            None,
        ),
        (
            "Anna Petrov is quitting the Dunmore council next month.",
            "Anna Petrov is NOT quitting the Dunmore council.",
            None,
        ),
        (
            "Kenyans with old passports will still be issued with Tarnow visas.",
            "The embassy will no longer issue Tarnow visas to Kenyans with old passports.",
            None,
        ),
        (
            "The Quillby police fine anyone without a face mask in public.",
            "The Quillby police spokesman denied that police fine anyone without a face mask.",
            "denied",
        ),
        (
            "Drinking alcohol can reduce the risk of Kelby fever.",
            "Posts say drinking alcohol can reduce the risk of Kelby fever. THIS IS NOT TRUE.",
            None,
        ),
    ],
)
def test_it_reads_one_side_saying_it_is_not_so(first: str, second: str, said) -> None:
    judgement = judged(first, second)
    assert judgement is not None and judgement.kind == "negation"
    if said:
        assert differing(judgement)[1] == [said]


def test_it_does_not_read_a_negation_about_something_else_as_a_disagreement() -> None:
    assert (
        judged(
            "The Quillby library program helps 44 readers each week.",
            "People who haven't installed the program cannot borrow ebooks.",
        )
        is None
    )


# --- candidate pairs and disputes ----------------------------------------------------------------


def test_pairs_join_passages_of_different_documents_about_one_thing_whatever_their_clusters() -> None:
    # given three passages: two about one thing (one of them twice, under two sub-questions), one not
    one = side(1, "The Greywater lighthouse was built in 1933 by the harbour board.", evidence_id=11)
    again = Side(1, 0, len(one.text), one.text, 12, 2, 0.5)
    other = side(2, "The harbour board built the Greywater lighthouse in 1934.", evidence_id=21)
    unrelated = side(3, "Boil the pasta for nine minutes in salted water.", evidence_id=31)
    # when
    pairs = candidate_pairs([one, again, other, unrelated])
    # then one pair, made once, of the best-scored row of the passage stored twice
    assert [(p.first.evidence_id, p.second.evidence_id) for p in pairs] == [(11, 21)]
    assert {"greywater", "harbour", "board", "name:greywater"} <= set(pairs[0].shared)


def test_pairs_join_evidence_with_a_passage_of_an_opened_source_that_is_not_evidence() -> None:
    evidence = side(1, "The Greywater lighthouse was built in 1933 by the harbour board.", evidence_id=11)
    pool = Side(2, 0, 57, "The harbour board built the Greywater lighthouse in 1934.")
    (pair,) = candidate_pairs([evidence], [pool])
    assert pair.second.evidence_id is None and pair.second.source_id == 2


def item(evidence_id: int, source_id: int, quote: str, *, cluster: str, score: float = 1.0) -> Evidence:
    return Evidence(evidence_id, source_id, 1, 0, len(quote), quote, score, cluster=cluster)


def test_a_disagreement_is_one_dispute_with_every_passage_on_its_side() -> None:
    # given a maker's figure, its reprint (one cluster with the maker) and a lab's figure
    maker = item(1, 1, "The Alpha X1 has a round-trip efficiency of 92 percent.", cluster="alpha", score=2)
    reprint = item(2, 2, "The Alpha X1 has a round-trip efficiency of 92 percent.", cluster="alpha")
    lab = item(3, 3, "We measured the round-trip efficiency of the Alpha X1 at 85 percent.", cluster="lab")
    # when
    (dispute,) = find_disputes([maker, reprint, lab], RuleJudge(), usage=UsageLog())
    # then
    assert [s.evidence_id for s in dispute.first] == [1, 2]
    assert [s.evidence_id for s in dispute.second] == [3]
    assert dispute.kind == "number" and dispute.judges == ("rules",)


def test_a_judgement_that_is_not_a_contradiction_makes_no_dispute() -> None:
    pair = Pair(side(1, "A"), side(2, "B"))
    assert group_disputes([Judgement(pair, "agree"), Judgement(pair, "unrelated")]) == []


def test_a_date_counted_back_from_a_pages_date_disagrees_only_beyond_its_slack() -> None:
    # given a post dated 2020 that says "20 years ago"
    post = Side(
        1,
        0,
        60,
        "The Hallam bridge collapsed 20 years ago, the old locals say.",
        1,
        published=date(2020, 5, 1),
    )
    text_far = "The Hallam bridge collapsed in 1994 after a winter storm."
    text_near = "The Hallam bridge collapsed in 2001 after a winter storm."
    # when / then: 2000 against 1994 disagrees; against 2001 it is within a year either way
    far = judge_pair(Pair(post, side(2, text_far)))
    assert far is not None and far.kind == "date"
    assert differing(far) == (["20 years ago"], ["1994"])
    assert judge_pair(Pair(post, side(2, text_near))) is None
    # and without the page's date there is nothing to count back from
    undated = Side(1, 0, 60, post.text, 1)
    assert judge_pair(Pair(undated, side(2, text_far))) is None
