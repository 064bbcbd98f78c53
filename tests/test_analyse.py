"""Extractive analysis: supported statements, confidence from independent clusters, conflicts."""

from __future__ import annotations

from researchapp.core.enums import FindingStatus, Stance
from researchapp.pipeline.analyser.extractive import analyse_extractive
from researchapp.pipeline.values import Evidence, SubQuestion

ADOPTION = SubQuestion(
    7, "How widely do professional developers use Rust?", ("Rust adoption professional developers",)
)


def evidence(
    evidence_id: int, quote: str, *, cluster: str, score: float = 1.0, source_id: int | None = None
) -> Evidence:
    return Evidence(
        id=evidence_id,
        source_id=source_id if source_id is not None else evidence_id,
        subquestion_id=ADOPTION.id,
        start=0,
        end=len(quote),
        quote=quote,
        score=score,
        cluster=cluster,
    )


def test_it_reports_no_evidence_as_one_insufficient_finding() -> None:
    # when
    (finding,) = analyse_extractive(ADOPTION, [])
    # then
    assert finding.status is FindingStatus.INSUFFICIENT
    assert finding.statement == "[证据不足] How widely do professional developers use Rust?"
    assert finding.links == ()
    assert finding.key == "sq7:insufficient"


def test_it_states_a_verbatim_sentence_of_the_best_quote() -> None:
    # given
    best = evidence(
        1,
        "Rust turned ten this year. Most professional developers who use Rust say they would use it again.",
        cluster="a",
        score=3.0,
    )
    other = evidence(2, "The Rust compiler is written in Rust.", cluster="b", score=1.0)
    # when
    findings = analyse_extractive(ADOPTION, [other, best])
    # then
    first = findings[0]
    assert first.status is FindingStatus.SUPPORTED
    assert first.statement == "Most professional developers who use Rust say they would use it again."
    assert first.statement in best.quote
    assert first.links[0].evidence_id == 1
    assert first.key == "sq7:supported:1"


def test_it_gives_high_confidence_when_two_independent_clusters_agree() -> None:
    # given two sources in different clusters saying the same
    one = evidence(
        1, "A survey found that 42% of professional developers use Rust at work.", cluster="a", score=2.0
    )
    two = evidence(
        2, "42% of professional developers use Rust at work, a survey found.", cluster="b", score=1.5
    )
    # when
    (finding,) = analyse_extractive(ADOPTION, [one, two])
    # then
    assert finding.confidence == "high"
    assert [link.evidence_id for link in finding.links] == [1, 2]
    assert all(link.stance is Stance.SUPPORTS for link in finding.links)


def test_it_gives_medium_confidence_when_agreement_is_within_one_cluster() -> None:
    # given a syndicated copy: same cluster
    one = evidence(
        1, "A survey found that 42% of professional developers use Rust at work.", cluster="a", score=2.0
    )
    copy = evidence(2, "A survey found that 42% of professional developers use Rust at work.", cluster="a")
    # when
    (finding,) = analyse_extractive(ADOPTION, [one, copy])
    # then
    assert finding.confidence == "medium"


def test_it_falls_back_to_the_source_when_evidence_has_no_cluster() -> None:
    # given two sources with no cluster recorded
    one = evidence(1, "42% of professional developers use Rust at work.", cluster="", score=2.0)
    two = evidence(2, "42% of professional developers use Rust at work.", cluster="")
    # when
    (finding,) = analyse_extractive(ADOPTION, [one, two])
    # then
    assert finding.confidence == "high"


def test_it_flags_a_conflict_when_independent_sources_give_different_figures_for_one_subject() -> None:
    # given
    high = evidence(
        1,
        "According to the 2024 survey, 42% of professional developers use Rust at work.",
        cluster="a",
        score=2.0,
    )
    low = evidence(
        2, "The survey found that 35% of professional developers use Rust at work.", cluster="b", score=1.0
    )
    # when
    findings = analyse_extractive(ADOPTION, [high, low])
    # then
    (conflict,) = [f for f in findings if f.status is FindingStatus.CONFLICT]
    assert conflict.statement.startswith("Sources disagree on ")
    assert conflict.statement.endswith(": 42% vs 35%")
    assert {(link.evidence_id, link.stance) for link in conflict.links} == {
        (1, Stance.SUPPORTS),
        (2, Stance.CONTRADICTS),
    }
    # keyed by the passages' places, not by a sub-question: one disagreement, once per task
    assert conflict.key == "conflict:1@0-78|2@0-70"
    # and neither disputed figure is stated as a supported fact
    assert not any(
        "42%" in f.statement or "35%" in f.statement for f in findings if f.status is FindingStatus.SUPPORTED
    )


def test_it_flags_a_conflict_in_chinese_sources() -> None:
    # given
    subquestion = SubQuestion(8, "中国电动汽车的市场份额是多少？", ("中国 电动汽车 市场份额",))
    one = evidence(1, "2023年，中国电动汽车的市场份额达到35%。", cluster="a", score=2.0)
    two = evidence(2, "据统计，中国电动汽车的市场份额为31%，仍在上升。", cluster="b")
    # when
    findings = analyse_extractive(subquestion, [one, two])
    # then
    (conflict,) = [f for f in findings if f.status is FindingStatus.CONFLICT]
    assert conflict.statement == "来源在中国电动汽车的市场份额上存在分歧：35% 对 31%"


def test_it_does_not_flag_unrelated_numbers_as_a_conflict() -> None:
    # given two sources with different figures about different things
    one = evidence(
        1, "Rust was first released in 2015 and is used by 42% of embedded teams.", cluster="a", score=2.0
    )
    two = evidence(
        2, "The Rust Foundation has 35 member companies. Its budget grew to $3 million.", cluster="b"
    )
    # when
    findings = analyse_extractive(ADOPTION, [one, two])
    # then
    assert not any(f.status is FindingStatus.CONFLICT for f in findings)


def test_it_does_not_flag_figures_for_different_named_subjects() -> None:
    # given two countries' areas
    one = evidence(1, "Botswana occupies an area of 581,730 km2 in southern Africa.", cluster="a", score=2.0)
    two = evidence(2, "Lesotho occupies an area of 30,355 km2 in southern Africa.", cluster="b")
    # when
    findings = analyse_extractive(ADOPTION, [one, two])
    # then
    assert not any(f.status is FindingStatus.CONFLICT for f in findings)


def test_it_does_not_flag_a_time_series_as_a_conflict() -> None:
    # given figures for different years
    one = evidence(1, "In 2022, 35% of professional developers used Rust at work.", cluster="a", score=2.0)
    two = evidence(2, "In 2024, 42% of professional developers used Rust at work.", cluster="b")
    # when / then
    assert not any(f.status is FindingStatus.CONFLICT for f in analyse_extractive(ADOPTION, [one, two]))


def test_it_flags_disagreement_within_one_cluster_too() -> None:
    # given two pages of one host (one independence cluster) that disagree
    one = evidence(1, "42% of professional developers use Rust at work.", cluster="a", score=2.0)
    two = evidence(2, "35% of professional developers use Rust at work.", cluster="a")
    # when
    findings = analyse_extractive(ADOPTION, [one, two])
    # then the disagreement is for review (clusters only weigh agreement), at medium confidence
    (conflict,) = [f for f in findings if f.status is FindingStatus.CONFLICT]
    assert conflict.confidence == "medium"
    assert conflict.disagreement is not None and conflict.disagreement.kind == "number"


def test_it_does_not_flag_a_source_that_states_both_figures() -> None:
    # given a source reporting the change from one figure to the other
    one = evidence(
        1, "The share of professional developers using Rust at work rose from 35% to 42%.", cluster="a"
    )
    two = evidence(2, "42% of professional developers use Rust at work.", cluster="b")
    # when / then
    assert not any(f.status is FindingStatus.CONFLICT for f in analyse_extractive(ADOPTION, [one, two]))


def test_it_keeps_keys_stable_so_a_rerun_upserts() -> None:
    # given
    items = [
        evidence(
            1,
            "According to the 2024 survey, 42% of professional developers use Rust at work.",
            cluster="a",
            score=2.0,
        ),
        evidence(2, "The survey found that 35% of professional developers use Rust at work.", cluster="b"),
        evidence(
            3, "Professional developers increasingly adopt Rust for systems work.", cluster="c", score=1.5
        ),
    ]
    # when the same evidence arrives in another order
    first = analyse_extractive(ADOPTION, items)
    again = analyse_extractive(ADOPTION, list(reversed(items)))
    # then
    assert first == again
    assert len({f.key for f in first}) == len(first)


# --- comparisons: a disagreement needs one subject, one attribute and two values ---------------

PERFORMANCE = SubQuestion(
    9,
    "How do Alpha and Beta differ in performance?",
    ("Alpha vs Beta performance efficiency", "Alpha performance efficiency", "Beta performance efficiency"),
)
COST = SubQuestion(
    10,
    "How do Alpha and Beta differ in cost?",
    ("Alpha vs Beta cost price", "Alpha cost price", "Beta cost price"),
)
MAKER = "Alpha Energy states that the Alpha X1 has a round-trip efficiency of 92 percent."
LAB = "In our measurements the round-trip efficiency of the Alpha battery was 85 percent."


def conflicts_in(findings) -> list:
    return [f for f in findings if f.status is FindingStatus.CONFLICT]


def test_it_flags_the_one_real_disagreement_with_every_source_on_each_side() -> None:
    # given the maker's claim, its syndicated reprint (same cluster) and an independent lab
    maker = evidence(1, MAKER, cluster="alpha", score=2.0)
    reprint = evidence(2, MAKER, cluster="alpha", score=1.9)
    lab = evidence(3, LAB + " The Beta battery reached a round-trip efficiency of 94 percent.", cluster="lab")
    # when
    (conflict,) = conflicts_in(analyse_extractive(PERFORMANCE, [maker, reprint, lab]))
    # then
    assert (
        conflict.statement
        == "Sources disagree on the round-trip efficiency of Alpha X1: 92 percent vs 85 percent"
    )
    assert {(link.evidence_id, link.stance) for link in conflict.links} == {
        (1, Stance.SUPPORTS),
        (2, Stance.SUPPORTS),
        (3, Stance.CONTRADICTS),
    }


def test_it_does_not_flag_two_products_prices_or_a_price_difference() -> None:
    # given one source with both prices and a difference, and another with the Alpha's price
    watch = evidence(
        1,
        "The Alpha costs 4,200 euros. The Beta costs 5,100 euros, 900 euros more than the Alpha.",
        cluster="watch",
        score=2.0,
    )
    maker = evidence(2, "The Alpha battery costs 4,200 euros before installation.", cluster="alpha")
    review = evidence(
        3, "The Beta battery costs 5,100 euros in its standard configuration.", cluster="review"
    )
    # when / then
    assert conflicts_in(analyse_extractive(COST, [watch, maker, review])) == []


def test_it_does_not_flag_a_market_share_against_an_efficiency() -> None:
    # given two percentages about the Beta that measure different things
    market = evidence(
        1, "The Beta battery held 18 percent of the home storage market.", cluster="a", score=2.0
    )
    lab = evidence(2, "The Beta battery reached a round-trip efficiency of 94 percent.", cluster="b")
    generic = SubQuestion(11, "What do we know about the Beta battery?", ("Beta battery",))
    # when / then
    assert conflicts_in(analyse_extractive(generic, [market, lab])) == []


def test_it_reports_a_disagreement_only_under_the_dimension_it_belongs_to() -> None:
    # given the efficiency disagreement in passages that also give prices
    maker = evidence(1, MAKER + " The Alpha X1 costs 4,200 euros.", cluster="alpha", score=2.0)
    lab = evidence(2, LAB + " We paid 4,200 euros for it.", cluster="lab")
    # when
    under_cost = analyse_extractive(COST, [maker, lab])
    under_performance = analyse_extractive(PERFORMANCE, [maker, lab])
    # then
    assert conflicts_in(under_cost) == []
    assert len(conflicts_in(under_performance)) == 1


def test_it_never_states_a_heading_and_picks_the_sentence_that_answers_the_dimension() -> None:
    # given a quote that opens with a Markdown heading and an unrelated first sentence
    quote = (
        "# Beta home battery review\n\n"
        "The Beta uses lithium iron phosphate cells. The Beta costs 5,100 euros."
    )
    review = evidence(1, quote, cluster="review")
    # when
    (finding,) = analyse_extractive(COST, [review])
    # then
    assert finding.statement == "The Beta costs 5,100 euros."


def test_it_does_not_repeat_a_statement_within_a_subquestion() -> None:
    # given the same sentence in two independent sources, and in a longer quote of one of them
    one = evidence(1, "The Alpha costs 4,200 euros.", cluster="a", score=2.0)
    two = evidence(2, "The Alpha costs 4,200 euros.", cluster="b", score=1.5)
    three = evidence(3, "Prices vary. The Alpha costs 4,200 euros.", cluster="a", score=1.0, source_id=1)
    # when
    findings = analyse_extractive(COST, [one, two, three])
    # then
    statements = [f.statement for f in findings]
    assert statements.count("The Alpha costs 4,200 euros.") == 1
    assert findings[0].confidence == "high"


def test_it_states_each_part_of_a_two_part_question() -> None:
    # given one quote that answers both parts, in two sentences
    question = SubQuestion(
        12,
        "When was the Greywater lighthouse built and how tall is it?",
        ("Greywater lighthouse built tall",),
    )
    history = evidence(
        1,
        "The Greywater lighthouse was built in 1871 on the northern tip of the peninsula. "
        "Its granite tower is 31 metres tall.",
        cluster="a",
    )
    # when
    findings = analyse_extractive(question, [history])
    # then
    assert [f.statement for f in findings] == [
        "The Greywater lighthouse was built in 1871 on the northern tip of the peninsula.",
        "Its granite tower is 31 metres tall.",
    ]
    assert len({f.key for f in findings}) == 2
