"""Bridge hops: a multi-hop question's later passages, found through the names its first ones mention."""

from __future__ import annotations

from researchapp.pipeline.collector.hops import names_bridge, nests_its_subject, select_with_hops
from researchapp.pipeline.collector.passages import PassagePool
from researchapp.pipeline.text.salience import asked_of
from researchapp.pipeline.values import Source, SubQuestion


def source(source_id: int, text: str, title: str = "") -> Source:
    return Source(source_id, f"https://s{source_id}.example/", title, text, cluster=f"c{source_id}")


def test_a_passage_names_a_bridge_by_its_distinctive_words() -> None:
    def weight(term: str) -> float:
        return {"king": 0.2, "england": 0.5}.get(term, 2.0)

    name = ("king", "henry", "iii", "england")
    assert names_bridge(name, {"henry", "iii", "crowned"}, weight)
    assert not names_bridge(name, {"king", "england", "crowned"}, weight)
    assert not names_bridge(("two", "dollar"), {"dollar", "radio"}, weight)


def test_it_follows_a_bridge_its_page_names_without_the_title_around_it() -> None:
    # given the second hop's page calls the king "Henry III", the first page "King Henry III of England"
    question = "When was the half-brother of Alice de Lusignan crowned?"
    pages = [
        source(1, "Alice de Lusignan was a half-sister of King Henry III of England. She married John "
               "de Warenne in 1247.", "Alice de Lusignan"),
        source(2, "Westminster Abbey was rebuilt in the Gothic style. Henry III was crowned there in 1220 "
               "after his first coronation at Gloucester.", "Westminster Abbey"),
        source(3, "Henry Ford founded the Ford Motor Company in Detroit in 1903.", "Henry Ford"),
        # a corpus where "King" and "England" are common words
        source(4, "King John of England sealed Magna Carta in 1215.", "King John"),
        source(5, "Edward I was King of England from 1272 and conquered Wales.", "Edward I"),
    ]  # fmt: skip
    subquestion = SubQuestion(1, question, (question,))
    # when
    passages = select_with_hops(subquestion, pages, question=question)
    # then
    assert [p.source_id for p in passages][:2] == [1, 2]
    assert 3 not in [p.source_id for p in passages]


def test_a_question_that_reaches_its_subject_through_others_follows_two_hops() -> None:
    # given the subject's page names the composer, his page his city, the city's page the bridge
    question = "What is the name of the famous bridge in the birth city of the composer of Scanderbeg?"
    pages = [
        source(1, "Scanderbeg is an opera in three acts by the composer Antonio Vivaldi. It was first "
               "performed at the Teatro della Pergola in Florence in 1718.", "Scanderbeg"),
        source(2, "Antonio Vivaldi was a Baroque composer and violinist. He was born in Venice, the capital "
               "of the Venetian Republic, in 1678.", "Antonio Vivaldi"),
        source(3, "Venice is built on a group of islands in a lagoon. The Rialto Bridge is the oldest and "
               "most famous bridge across the Grand Canal.", "Venice"),
        # a page holding most of the question's words, about nothing it leads through
        source(4, "The Golden Gate Bridge is a famous suspension bridge in San Francisco, the birth city of "
               "many engineers.", "Golden Gate Bridge"),
    ]  # fmt: skip
    subquestion = SubQuestion(1, question, (question,))
    # when
    passages = select_with_hops(subquestion, pages, question=question)
    # then
    assert {1, 2, 3} <= {p.source_id for p in passages}  # Venice is two hops from Scanderbeg


def test_a_first_round_that_does_not_answer_leads_on_when_the_subject_is_nested() -> None:
    # given the station's page holds little of the question beyond its call sign
    question = (
        "Which county shares a border with the county where the most populous city in the state where "
        "WDXQ can be found is located?"
    )
    pages = [
        source(1, "WDXQ (1440 AM) is a radio station licensed to Cochran, Georgia, United States. It is "
               "owned by John Timms.", "WDXQ"),
        source(2, "The largest municipality by population in Georgia is Atlanta, with 420,003 residents.",
               "List of municipalities in Georgia"),
        source(3, "Atlanta is the seat of Fulton County, and parts of the city extend into DeKalb County.",
               "Atlanta"),
        source(4, "Montmorency County is located in northern Michigan, where it shares a border with Alpena "
               "County. The county seat is Atlanta, its most populous community, found on the Thunder Bay "
               "River.", "Montmorency County"),
    ]  # fmt: skip
    subquestion = SubQuestion(1, question, (question,))
    pool = PassagePool.of(tuple(pages))
    # when
    passages = select_with_hops(subquestion, pages, question=question)
    # then the first round alone is no evidence; through the station's state and its city it is
    assert pool.select(subquestion, asked=asked_of(subquestion, question)) == []
    assert nests_its_subject(question)
    assert {1, 2, 3} <= {p.source_id for p in passages if p.clears_bar}


def test_a_question_asking_its_subjects_own_fact_does_not_nest() -> None:
    assert not nests_its_subject("What percentage of the embedded-database market does SQLite hold?")
    assert not nests_its_subject("What is the default page size of a new database?")
    assert nests_its_subject("Which county shares a border with the county where WDXQ can be found?")


def test_a_verb_with_its_object_names_no_attribute() -> None:
    border = asked_of(SubQuestion(1, "Which county shares a border with Alpena County?", ()))
    market = asked_of(SubQuestion(1, "What is the market share of SQLite?", ()))
    assert "share" not in border.attributes
    assert "share" in market.attributes
