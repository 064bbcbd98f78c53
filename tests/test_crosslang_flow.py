"""A Chinese question over an English corpus, run as a user would run it: `manage.py research`."""

from __future__ import annotations

import json
import re
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import call_command

pytestmark = pytest.mark.django_db
FIXTURES = Path(__file__).parent / "fixtures"
_CJK = re.compile(r"[\u4e00-\u9fff]")


def test_it_answers_a_chinese_question_from_english_pages_in_chinese_with_verbatim_quotes(tmp_path):
    # given a folder of English manual pages, and a question in Chinese
    out_file = tmp_path / "out.json"
    question = "默认编译设置下，Quillstore 的一张表最多可以有多少列？"

    # when the command runs with every gate auto-approved
    call_command(
        "research",
        question,
        "--corpus",
        str(FIXTURES / "manual_en"),
        "--auto-approve",
        "--json",
        str(out_file),
        "--with-snapshots",
        stdout=StringIO(),
        stderr=StringIO(),
    )

    # then the plan's sub-questions are Chinese and its queries are the English of their words
    data = json.loads(out_file.read_text())
    subquestions = data["plan"]["subquestions"]
    assert all(_CJK.search(sq["text"]) for sq in subquestions)
    queries = [query for sq in subquestions for query in sq["queries"]]
    assert queries and not any(_CJK.search(query) for query in queries)
    assert {"table", "column"} <= set(queries[0].lower().split())
    # and the page that states the answer was found and quoted verbatim
    snapshots = {s["id"]: s["text"] for s in data["sources"]}
    urls = {s["id"]: s["url"] for s in data["sources"]}
    for quote in data["evidence"]:
        assert snapshots[quote["source"]][quote["start"] : quote["end"]] == quote["quote"]
    # and the report, headed in Chinese, states a sentence of the limits page, citing the quote that
    # holds the figure (which sentence answers is the reader's choice, not this path's)
    report = data["report"]
    assert report["markdown"].startswith(f"# {question}")
    assert "参考文献" in report["markdown"]
    evidence = {e["id"]: e for e in data["evidence"]}
    cited = [evidence[i] for claim in report["claims"] for i in claim["evidence_ids"]]
    assert any(urls[e["source"]].endswith("/limits.html") and "1500" in e["quote"] for e in cited)
    assert all(
        claim["text"] in " ".join(evidence[i]["quote"] for i in claim["evidence_ids"])
        for claim in report["claims"]
    )
