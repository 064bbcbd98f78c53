"""The support checks: a statement to verify against its sources, and a model's statements against
their cited passages (mechanical overlap, then a judgement asked of the model)."""

from __future__ import annotations

from researchapp.core.enums import FindingStatus
from researchapp.pipeline.collector.passages import select_passages
from researchapp.pipeline.text.support import is_statement, statement_miss
from researchapp.pipeline.values import Evidence, Source, SubQuestion, UsageLog
from tests.model_stages import make_engine
from tests.stubs.openai_api import by_stage

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


# --- the model-judged support check (model engine) -----------------------------------------------

HEAT = (
    "Heat pumps in the survey reached a seasonal COP of 3.2 in 2023. Installers reported shorter waits.\n\n"
    "A second trial measured a COP of 2.7 in colder homes. Results varied by insulation."
)
HEAT_QUESTION = SubQuestion(id=7, text="How efficient are heat pumps?", queries=("heat pump COP",))


def _passage(evidence_id: int, paragraph: int, source_id: int) -> Evidence:
    text = HEAT.split("\n\n")[paragraph]
    start = HEAT.index(text)
    return Evidence(
        id=evidence_id, source_id=source_id, subquestion_id=7, start=start, end=start + len(text),
        quote=text, score=1.0, source_url=f"https://s{source_id}.example/", source_title="Survey",
        cluster=f"s{source_id}",
    )  # fmt: skip


TWO_FINDINGS = {
    "findings": [
        {"statement": "Heat pumps reached a seasonal COP of 3.2 in 2023.", "status": "supported",
         "evidence": [{"id": 12, "stance": "supports"}]},
        {"statement": "A second trial measured a COP of 2.7 in colder homes.", "status": "supported",
         "evidence": [{"id": 15, "stance": "supports"}]},
    ]
}  # fmt: skip


def _analyse(llm, **answers):
    llm.responder = by_stage(analyse=TWO_FINDINGS, **answers)
    usage = UsageLog()
    drafts = make_engine(llm).analyse(HEAT_QUESTION, [_passage(12, 0, 1), _passage(15, 1, 2)], usage=usage)
    return drafts, usage


def test_the_model_judges_each_statement_against_its_passages_with_a_strict_schema(llm) -> None:
    # given a model that judges the first statement supported and the second not
    verdicts = {"judgements": [
        {"statement": 1, "verdict": "supported", "reason": "The survey states it."},
        {"statement": 2, "verdict": "not_supported", "reason": "The trial is about offices, not homes."},
    ]}  # fmt: skip
    # when the analyser runs
    drafts, usage = _analyse(llm, support=verdicts)
    # then the judge was asked once, with statement numbers as an enum and one judgement each
    request = llm.chats[-1]
    schema = request["response_format"]["json_schema"]
    assert schema["name"] == "support" and schema["strict"] is True
    items = schema["schema"]["properties"]["judgements"]
    assert items["minItems"] == items["maxItems"] == 2
    assert items["items"]["properties"]["statement"]["enum"] == [1, 2]
    assert request["max_tokens"] <= 40 + 80 * 2
    assert "<untrusted_source" in llm.prompt_text()
    # and the unsupported statement is an item for the evidence gate, with the model's reason
    first, second = drafts
    assert first.status is FindingStatus.SUPPORTED
    assert second.status is FindingStatus.INSUFFICIENT
    assert second.statement.startswith("[证据不足] A second trial measured")
    assert "offices, not homes" in second.statement and second.links
    assert [call.stage for call in usage.calls] == ["analyse", "support"]


def test_a_judgement_rejected_twice_costs_its_statements_not_the_task(llm) -> None:
    # given a judge that answers with a statement number that was not shown, twice
    bad = {"judgements": [{"statement": 9, "verdict": "supported", "reason": "?"},
                          {"statement": 1, "verdict": "supported", "reason": "ok"}]}  # fmt: skip
    # when
    drafts, usage = _analyse(llm, support=bad)
    # then both statements it was to judge are items that say why; nothing is raised
    assert all(d.status is FindingStatus.INSUFFICIENT for d in drafts)
    assert all("the support check's answer was rejected" in d.statement for d in drafts)
    assert "statement 9 is not one of 1..2" in drafts[0].statement
    assert [call.ok for call in usage.calls] == [True, False, False]


def test_a_missing_judgement_costs_only_its_statement(llm) -> None:
    # given a judge that a server let through with one judgement for two statements
    one = {"judgements": [{"statement": 2, "verdict": "supported", "reason": "The trial states it."}]}
    # when
    first, second = _analyse(llm, support=one)[0]
    # then the statement it did not judge is an item; the other stands
    assert first.status is FindingStatus.INSUFFICIENT and "gave no judgement" in first.statement
    assert second.status is FindingStatus.SUPPORTED
