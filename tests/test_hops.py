"""Bridge hops: a multi-hop question's later passages, found through the names its first ones mention."""

from __future__ import annotations

from researchapp.pipeline.collector.hops import names_bridge, select_with_hops
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
