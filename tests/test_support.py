"""The support checks: a statement to verify against its sources, and a model's statements against
their cited passages (mechanical overlap, then a judgement asked of the model)."""

from __future__ import annotations

from researchapp.pipeline.collector.passages import select_passages
from researchapp.pipeline.text.support import is_statement, statement_miss
from researchapp.pipeline.values import Source, SubQuestion

ARTICLE = (
    "The guitarist Brian Pendleton has died of lung cancer aged 57.\n"
    "He was a member of the 1960s rock group, the Pretty Things.\n"
    "Born in Durham, he attended Dartford grammar school with Dick Taylor.\n"
    "He answered a Melody Maker small ad and auditioned as rhythm guitarist.\n"
    "After the band he worked in insurance for thirty years.\n"
)


def test_it_tells_a_statement_from_a_question_or_a_request() -> None:
    assert is_statement("Brian Pendleton was a founder member of the Pretty Things.")
    assert not is_statement("Was Brian Pendleton a founder member of the Pretty Things?")
    assert not is_statement("What is the default port of PostgreSQL")
    assert is_statement("布莱恩·彭德尔顿是漂亮东西乐队的创始成员。")
    assert not is_statement("布莱恩·彭德尔顿是哪个乐队的成员？")


def test_a_statement_its_sources_hold_is_borne_out_and_one_they_do_not_hold_is_not() -> None:
    # when a statement the article states is checked, and one with names and words it never uses
    held = statement_miss("Brian Pendleton was a rhythm guitarist of the Pretty Things.", [ARTICLE])
    alien = statement_miss(
        "Brian Pendleton toured Japan with the Rolling Stones in 1972 as their bassist.", [ARTICLE]
    )
    # then only the first is borne out, and the second says what no source mentions, names first
    assert held.borne_out and held.miss < alien.miss
    assert not alien.borne_out
    assert alien.missing[0] in ("Japan", "Rolling Stones")


def test_a_statement_its_sources_do_not_hold_gets_no_evidence_only_the_closest_passages() -> None:
    # given the article as the only source and a statement it does not bear out
    source = Source(1, "https://obituaries.example/pendleton", "Obituary", ARTICLE)
    claim = "Brian Pendleton toured Japan with the Rolling Stones in 1972 as their bassist."
    subquestion = SubQuestion(1, claim, (claim,))
    # when passages are selected for it
    passages = select_passages(subquestion, [source], question=claim, closest=2)
    # then none is evidence: the closest are kept to show what was found, with what is missing
    assert passages and not any(p.clears_bar for p in passages)
    # and a statement it does bear out gets evidence
    stated = "Brian Pendleton was a rhythm guitarist of the Pretty Things."
    found = select_passages(SubQuestion(2, stated, (stated,)), [source], question=stated)
    assert found and found[0].clears_bar


AUDI = (
    "Audi has revealed the e-tron Sportback, a coupe-styled version of its electric SUV.\n"
    "In Europe, where order books open at the end of November, the e-tron Sportback edition one costs "
    "79,900 euros.\n"
    "US pricing has not been confirmed at this stage, but the e-tron Sportback goes on sale in the US "
    "next year.\n"
)
BOEING = (
    "Emirates ordered 30 Boeing 787-9 Dreamliner jets at the Dubai Air Show.\n"
    "The 787-9 is a larger variant of the Dreamliner, seating 242 to 330 passengers in two classes.\n"
    "The airline also trimmed its order for the Boeing 777x, which is still in testing.\n"
)


def _answered(question: str, text: str) -> bool:
    source = Source(1, "https://cars.example/page", "", text)
    passages = select_passages(SubQuestion(1, question, (question,)), [source], question=question)
    return bool(passages) and passages[0].clears_bar


def test_the_asked_for_figure_must_be_stated_for_the_subject_in_one_sentence() -> None:
    # a price stated for Europe, and a sentence that names US pricing only to say it is unknown
    assert _answered("What is the price of the Audi e-tron Sportback in Europe?", AUDI)
    assert not _answered("What is the price of the Audi e-tron Sportback in the United States?", AUDI)
    # the 787-9's seats are not the 777x's: a question's model number must be held where the figure is
    assert _answered("How many passengers does the Boeing 787-9 seat?", BOEING)
    assert not _answered("How many passengers does the Boeing 777x seat?", BOEING)
