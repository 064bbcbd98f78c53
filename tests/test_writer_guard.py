"""The writer's guard: two sides of a disagreement are never both stated as fact, and a side an
analyst picked is stated as decided, the other never."""

from __future__ import annotations

from researchapp.core.enums import FindingStatus, Resolution, Stance
from researchapp.pipeline.checker.mechanical import check_draft
from researchapp.pipeline.text.contradiction import RuleJudge
from researchapp.pipeline.values import (
    Brief,
    Disagreement,
    Evidence,
    EvidenceLink,
    Ledger,
    ReviewedFinding,
    SubQuestion,
    UsageLog,
)
from researchapp.pipeline.writer.extractive import write_extractive
from researchapp.pipeline.writer.guard import guard_draft
from researchapp.pipeline.writer.render import NEUTRAL_DISPUTE

QUESTION = "When was the Greywater lighthouse built?"
BUILT = SubQuestion(1, "When was the Greywater lighthouse built?", ("Greywater lighthouse built",), order=0)
KEEPERS = SubQuestion(2, "Who kept the Greywater lighthouse?", ("Greywater lighthouse keepers",), order=1)
SNAPSHOTS = {
    1: "The harbour board built the Greywater lighthouse in 1933 on the northern headland.",
    2: "The Greywater lighthouse was built by the harbour board in 1934 on the northern headland.",
    3: "Three keepers lived at the Greywater lighthouse until the light was automated.",
}


def quote(evidence_id: int, source_id: int, subquestion: SubQuestion) -> Evidence:
    text = SNAPSHOTS[source_id]
    return Evidence(
        evidence_id,
        source_id,
        subquestion.id,
        0,
        len(text),
        text,
        1.0,
        f"https://s{source_id}.example/",
        f"S{source_id}",
    )


E1, E2, E3 = quote(1, 1, BUILT), quote(2, 2, KEEPERS), quote(3, 3, KEEPERS)


def supported(finding_id: int, item: Evidence) -> ReviewedFinding:
    return ReviewedFinding(
        finding_id, item.subquestion_id, FindingStatus.SUPPORTED, item.quote, "medium", Resolution.NONE,
        (EvidenceLink(item.id),), (item,),
    )  # fmt: skip


def conflict(resolution: Resolution = Resolution.DISPUTED, *, picked_first: bool = False) -> ReviewedFinding:
    links = (EvidenceLink(1, Stance.SUPPORTS), EvidenceLink(2, Stance.CONTRADICTS))
    kept, aside = (links[:1], links[1:]) if picked_first else (links, ())
    return ReviewedFinding(
        9, BUILT.id, FindingStatus.CONFLICT, "Sources disagree on the Greywater lighthouse: 1933 vs 1934",
        "medium", resolution, kept, (E1, E2), set_aside=aside,
        disagreement=Disagreement("date", {1: ((52, 56),), 2: ((59, 63),)}, "dates", ("rules",)),
    )  # fmt: skip


def drafted(findings: list[ReviewedFinding]):
    draft = write_extractive(QUESTION, [BUILT, KEEPERS], findings)
    return draft, guard_draft(draft, findings, RuleJudge(), UsageLog())


def facts(draft) -> list[str]:
    return [claim.text for claim in draft.claims if claim.section != "disputed"]


def test_it_never_states_a_disputed_side_as_fact() -> None:
    # given a conflict kept as disputed, and supported findings that state each side
    findings = [supported(1, E1), supported(2, E2), supported(3, E3), conflict()]
    # when
    before, after = drafted(findings)
    # then the writer alone would have stated both dates; the guard states neither
    assert {E1.quote, E2.quote} <= set(facts(before))
    assert not {E1.quote, E2.quote} & set(facts(after))
    assert E3.quote in facts(after)
    # and the draft still passes every check (the moved statement's sub-question is covered)
    ledger = Ledger({e.id: e for e in (E1, E2, E3)}, SNAPSHOTS)
    assert check_draft(after, Brief(QUESTION, (BUILT, KEEPERS), tuple(findings)), ledger) == []


def test_a_picked_side_is_stated_and_the_side_set_aside_never_is() -> None:
    findings = [supported(1, E1), supported(2, E2), conflict(Resolution.PICKED, picked_first=True)]
    _, after = drafted(findings)
    assert E1.quote in facts(after)
    assert E2.quote not in facts(after)
    assert "1934" not in " ".join(facts(after))


def test_two_statements_the_judge_calls_contradicting_become_a_dispute() -> None:
    # given no conflict finding at all (the analysis never paired them), two contradicting statements
    findings = [supported(1, E1), supported(2, E2), supported(3, E3)]
    # when
    before, after = drafted(findings)
    # then both leave the statements of fact, and one neutral dispute quotes both sides
    assert {E1.quote, E2.quote} <= set(facts(before))
    assert not {E1.quote, E2.quote} & set(facts(after))
    (dispute,) = [claim for claim in after.claims if claim.section == "disputed"]
    assert dispute.text == NEUTRAL_DISPUTE and set(dispute.evidence_ids) == {1, 2}
    assert list(after.document["disputes"][0]["passages"]) == [
        {"evidence_id": 1, "role": "supports"},
        {"evidence_id": 2, "role": "contradicts"},
    ]
    ledger = Ledger({e.id: e for e in (E1, E2, E3)}, SNAPSHOTS)
    assert check_draft(after, Brief(QUESTION, (BUILT, KEEPERS), tuple(findings)), ledger) == []


def test_a_draft_with_nothing_in_dispute_is_left_as_it_is() -> None:
    findings = [supported(1, E1), supported(3, E3)]
    before, after = drafted(findings)
    assert after is before
