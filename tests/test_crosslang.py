"""A question's terms in its sources' language: Chinese questions over English pages, and the reverse."""

from __future__ import annotations

from collections import Counter

from researchapp.core.enums import Intent
from researchapp.pipeline.collector.local import LocalCorpus
from researchapp.pipeline.collector.passages import select_passages
from researchapp.pipeline.planner.queries import queries_in_language
from researchapp.pipeline.text.crosslang import (
    CHINESE,
    ENGLISH,
    TermBridge,
    Vocabulary,
    keywords,
    language_of,
    translate,
)
from researchapp.pipeline.text.lexicon import senses
from researchapp.pipeline.text.salience import asked_of
from researchapp.pipeline.text.tokens import tokenize
from researchapp.pipeline.values import Plan, PlannedSubQuestion, Source, SubQuestion
from researchapp.providers.base import Document

MANUAL = [
    "Every table has columns. SHOW TABLES lists the tables; a table holds rows, and each table row"
    " has a value in each column of the table.",
    "The default setting for QUILL_MAX_COLUMN is 1500. You can change it when you compile Quillstore.",
    "A table may have a default value for each column; the default is NULL.",
    "Untracked files are removed by the clean command; tracked files are kept.",
]


def vocabulary_of(texts: list[str]) -> Vocabulary:
    postings: dict[str, list[tuple[int, int]]] = {}
    for index, text in enumerate(texts):
        for term, count in Counter(tokenize(text)).items():
            postings.setdefault(term, []).append((index, count))
    return Vocabulary(postings)


def test_it_reads_a_word_sense_from_the_dictionary() -> None:
    # when / then the lexicon is CC-CEDICT, cleaned: "to delete" is "delete", a computing sense is marked
    assert "delete" in [sense.english for sense in senses("删除")]
    assert any(sense.english == "compile" and sense.domain for sense in senses("编译"))
    assert not any("CL:" in sense.english for sense in senses("对象"))


def test_it_translates_a_chinese_question_into_the_senses_its_sources_use() -> None:
    # given a manual that says "table" far more than "show" (表's third sense before "table")
    vocabulary = vocabulary_of(MANUAL)
    # when
    translation = translate("默认编译设置下，Quillstore 的一张表最多可以有多少列？", ENGLISH, vocabulary)
    # then the content words carry their English, the name stays as written, function words go
    assert {"default", "compile", "quillstore", "table", "column"} <= set(translation.terms)
    assert "show" not in translation.terms
    assert "Quillstore" in translation.query.split()
    assert not any(char in translation.query for char in "的一最多少")


def test_it_prefers_the_technical_sense_without_sources_to_ask() -> None:
    # when nothing is known of the sources
    translation = translate("默认编译", ENGLISH)
    # then 默认 is "default" (a "(setting)" sense), not its first sense "agree tacitly", and 编译
    # is "compile" ("(computing) to compile"), not "translate and edit"
    assert translation.terms == ("default", "compile")


def test_it_keeps_names_and_options_written_in_latin_letters() -> None:
    # when
    query = translate("git init 不指定 --object-format 时，新仓库默认使用哪种哈希算法？", ENGLISH).query
    # then
    assert {"git", "init", "object-format"} <= set(query.split())
    assert "hash" in query.split()


def test_it_reads_a_negated_word_as_the_sources_write_it() -> None:
    # given sources that write "untracked"
    vocabulary = vocabulary_of(MANUAL)
    # when
    translation = translate("未跟踪的文件", ENGLISH, vocabulary)
    # then 未跟踪 is "untracked" (no dictionary entry says so), 文件 is "file"
    assert translation.terms[:2] == ("untracked", "file")


def test_it_translates_an_english_question_into_the_chinese_its_sources_use() -> None:
    # given Chinese pages
    vocabulary = vocabulary_of(["服务器的默认端口是7421。", "每张表最多可以有1500列。"])
    # when
    translation = translate("What is the default port of the Quillstore server?", CHINESE, vocabulary)
    # then
    assert {"默认", "端口", "服务器"} <= set(translation.terms)
    assert "Quillstore" in translation.query.split()


def test_it_tells_the_language_of_sources_and_keeps_content_words() -> None:
    assert language_of(MANUAL) == ENGLISH
    assert language_of(["服务器的默认端口是7421，配置文件可以改。"]) == CHINESE
    assert keywords("默认编译设置下，SQLite 的一张表最多可以有多少列？") == "默认 编译 设置 SQLite 表 列"


def test_it_maps_what_a_chinese_sub_question_asks_into_english_terms() -> None:
    # given what a Chinese question asks, read in Chinese
    question = "Quillstore 的一张表最多可以有多少列？"
    asked = asked_of(SubQuestion(1, question, ()), question)
    # when it is bridged into the English of the sources
    bridged = TermBridge(ENGLISH, vocabulary_of(MANUAL)).asked(asked)
    # then its subject and terms are English tokens the pages can hold
    assert {"table", "column"} <= set(bridged.terms)
    assert "quillstore" in bridged.subject
    assert not any(term in bridged.terms for term in ("表", "列"))


def test_it_selects_the_english_passage_that_answers_a_chinese_question() -> None:
    # given English pages, one of which states the answer
    sources = [
        Source(i + 1, f"https://manual.invalid/{i}", f"Page {i}", text, density=1.0, cluster=f"c{i}")
        for i, text in enumerate(
            [
                "Quillstore began as a weekend project to keep the notes of a small choir.",
                "The default setting for QUILL_MAX_COLUMN is 1500. It bounds the columns in a table.",
                "The server listens on port 7421 unless the configuration file names another one.",
            ]
        )
    ]
    question = "默认设置下，Quillstore 的一张表最多可以有多少列？"
    # when
    passages = select_passages(SubQuestion(1, question, ()), sources, question=question)
    # then the answering passage clears the bar, verbatim from its page
    assert passages and passages[0].source_id == 2 and passages[0].clears_bar
    assert sources[1].text[passages[0].start : passages[0].end] == passages[0].quote


def test_a_local_corpus_searches_a_chinese_query_in_english_and_the_reverse() -> None:
    # given an English corpus and a Chinese one
    english = LocalCorpus(
        [
            Document(url="https://m.invalid/limits", title="Limits", text=MANUAL[1]),
            Document(url="https://m.invalid/clean", title="Clean", text=MANUAL[3]),
        ]
    )
    chinese = LocalCorpus(
        [
            Document(url="https://zh.invalid/port", title="服务器", text="服务器的默认端口是7421。"),
            Document(url="https://zh.invalid/food", title="美食", text="面条需要煮九分钟。"),
        ]
    )
    # when / then each finds the page by the other language's words
    assert english.search("未跟踪的文件会被删除吗", max_results=1)[0].url == "https://m.invalid/clean"
    assert chinese.search("default port", max_results=1)[0].url == "https://zh.invalid/port"


def test_it_puts_a_plans_queries_into_the_sources_language_and_keeps_its_sub_questions() -> None:
    # given a Chinese plan
    plan = Plan(
        Intent.DESCRIPTIVE,
        (
            PlannedSubQuestion(
                "Quillstore 的一张表最多可以有多少列？", "问题本身。", ("Quillstore 表 列", "max column")
            ),
        ),
    )
    # when
    english = queries_in_language(plan, ENGLISH, vocabulary_of(MANUAL))
    # then the Chinese query is English, the English one is kept, the sub-question reads as before
    (subquestion,) = english.subquestions
    assert subquestion.text == plan.subquestions[0].text
    first, second = subquestion.queries
    assert {"Quillstore", "table", "column"} <= set(first.split()) and keywords(first) == first
    assert not any("\u4e00" <= char <= "\u9fff" for char in first)
    assert second == "max column"


def test_a_short_questions_query_is_translated_whole_not_as_cut_to_forty_characters() -> None:
    # given a query that the 40-character rule cut down to names and one word
    question = "git init 不指定 --object-format 时，新仓库默认使用哪种哈希算法？"
    plan = Plan(
        Intent.DESCRIPTIVE, (PlannedSubQuestion(question, "问题本身。", ("git init 指定 object-format 新",)),)
    )
    # when
    (subquestion,) = queries_in_language(plan, ENGLISH, Vocabulary(), question=question).subquestions
    # then the English query carries the question's words the cut left out
    assert {"git", "init", "object-format", "default", "hash"} <= set(subquestion.queries[0].split())
    assert len(subquestion.queries[0].split()) <= 12
