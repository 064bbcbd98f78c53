"""A model statement citing the wrong one of the passages it was shown is re-cited to the passage
that states its figures and words verbatim (issue 17.5), not discarded to [证据不足]; a statement
no passage shown bears out stays unsupported."""

from __future__ import annotations

from researchapp.core.enums import FindingStatus
from researchapp.pipeline.text.recite import figures_verbatim, recited
from researchapp.pipeline.values import Evidence, SubQuestion, UsageLog
from researchapp.pipeline.writer.model import claims_from_answer
from tests.model_stages import make_engine
from tests.stubs.openai_api import StubOpenAI, by_stage

AUTH = "Client authentication is controlled by a configuration file named pg_hba.conf."
PORT = "The server listens on TCP port 5432 by default; the port can be changed in postgresql.conf."
STATEMENT = "The server listens on TCP port 5432 by default."
QUOTES = {1: AUTH, 2: PORT}


def test_a_statement_is_recited_to_the_passage_that_states_its_figure() -> None:
    assert recited(STATEMENT, [1], QUOTES) == (2,)
    # a statement its own passage bears out keeps its citation
    assert recited(STATEMENT, [2], QUOTES) == (2,)
    # a statement no passage shown states keeps its (unsupported) citation, to be judged as it is
    assert recited("The server listens on TCP port 5433 by default.", [1], QUOTES) == (1,)
    # a figure must stand as written: 54 is not the 54 of 5432, nor 4.2 the 4,200 of a price
    assert not figures_verbatim("port 54", PORT)
    assert not figures_verbatim("costs 4.2 thousand", "costs 4,200 euros")
    assert figures_verbatim("costs 4,200 euros", "It costs 4,200 euros.")


def test_the_model_analysers_wrongly_cited_statement_is_recited_not_discarded(llm: StubOpenAI) -> None:
    # given passages shown as E1 (authentication) and E2 (the port), and a model citing E1 for the port
    evidence = [
        Evidence(1, 1, 7, 0, len(AUTH), AUTH, 1.0, cluster="s1"),
        Evidence(2, 2, 7, 0, len(PORT), PORT, 0.9, cluster="s2"),
    ]
    answer = {"findings": [{"statement": STATEMENT, "status": "supported",
                            "evidence": [{"id": 1, "stance": "supports"}]}]}  # fmt: skip
    llm.responder = by_stage(analyse=answer)
    subquestion = SubQuestion(7, "What port does the server listen on by default?", ())
    # when
    (finding,) = make_engine(llm).analyse(subquestion, evidence, usage=UsageLog())
    # then the statement is a supported finding citing the passage that states 5432
    assert finding.status is FindingStatus.SUPPORTED and "[证据不足]" not in finding.statement
    assert [link.evidence_id for link in finding.links] == [2]


def test_a_writers_claim_is_recited_to_the_passage_shown_that_states_it() -> None:
    data = {"claims": [{"section": "answer", "text": STATEMENT, "evidence_ids": [1]}]}
    # when the claims are read with the quotes the model was shown
    (claim,) = claims_from_answer(data, sections={"1"}, allowed_ids={1, 2}, quotes=QUOTES)
    # then the claim cites the passage stating its figure
    assert claim.evidence_ids == (2,)
    # and without the quotes it is left as written, for the checker to judge
    (claim,) = claims_from_answer(data, sections={"1"}, allowed_ids={1, 2})
    assert claim.evidence_ids == (1,)


def test_a_weak_models_claims_are_cut_to_a_sentence_and_junk_gives_way_to_the_findings(
    llm: StubOpenAI,
) -> None:
    from researchapp.core.enums import Resolution, Stance
    from researchapp.pipeline.values import EvidenceLink, ReviewedFinding

    port = Evidence(2, 2, 7, 0, len(PORT), PORT, 0.9, cluster="s2")
    auth = Evidence(1, 1, 8, 0, len(AUTH), AUTH, 1.0, cluster="s1")
    subquestions = [SubQuestion(7, "What port does the server use?", (), order=0),
                    SubQuestion(8, "How are clients authenticated?", (), order=1)]  # fmt: skip

    def reviewed(
        finding_id: int, subquestion: int, item: Evidence, statement: str, answer=""
    ) -> ReviewedFinding:
        return ReviewedFinding(
            id=finding_id, subquestion_id=subquestion, status=FindingStatus.SUPPORTED, statement=statement,
            confidence="medium", resolution=Resolution.NONE, links=(EvidenceLink(item.id, Stance.SUPPORTS),),
            evidence=(item,), answer=answer,
        )  # fmt: skip

    findings = [reviewed(1, 7, port, PORT[:47], "5432"), reviewed(2, 8, auth, AUTH)]
    # given a model that repeats its sentence for the port, and writes a date no passage states
    repeated = f"{STATEMENT} {STATEMENT} The server listens on TCP po"
    asking = "What is authentication controlled by"  # a question is no claim, whatever its words
    answer = {"claims": [{"section": "7", "text": repeated, "evidence_ids": [2]},
                         {"section": "8", "text": "2023-04-17", "evidence_ids": [1]},
                         {"section": "8", "text": asking, "evidence_ids": [1]}]}  # fmt: skip
    llm.responder = by_stage(write=answer)
    # when
    draft = make_engine(llm).write("Which port?", subquestions, findings, usage=UsageLog())
    by_section = {claim.section: claim for claim in draft.claims}
    # then the port claim is its first sentence, the date is left out, and the finding's own words
    # stand in for it, citing its passage
    assert by_section["7"].text == STATEMENT
    assert by_section["answer"].text == AUTH and by_section["answer"].evidence_ids == (1,)
    assert "2023" not in draft.markdown and "8" not in by_section
    # when the model files a true sentence about something else under the port's sub-question
    other = {"claims": [{"section": "7", "text": AUTH, "evidence_ids": [1]}]}
    llm.responder = by_stage(write=other)
    draft = make_engine(llm).write("Which port?", subquestions, findings, usage=UsageLog())
    # then the port's answer is stated anyway, in the finding's own words, opening the report
    assert any(c.section == "answer" and c.text == PORT[:47] for c in draft.claims)
    # when nothing the model writes stands, the report is the findings' own, answer first
    llm.responder = by_stage(write={"claims": [{"section": "7", "text": "It is 8080.", "evidence_ids": [2]}]})
    draft = make_engine(llm).write("Which port?", subquestions, findings, usage=UsageLog())
    assert draft.claims[0].section == "answer" and draft.claims[0].text == PORT[:47]
