"""Live research through the real Tavily, OpenAI and httpx clients, against stubs on 127.0.0.1."""

from __future__ import annotations

import json
from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from researchapp.exports.markdown import render_markdown
from researchapp.models import LLMCall, ResearchTask
from tests.live import FAILING_PAGES, QUESTION, live_settings, web_results
from tests.stubs.json_api import Failure
from tests.stubs.openai_api import by_stage

pytestmark = pytest.mark.django_db


def research(*args: str) -> dict:
    out_file = args[-1]
    call_command("research", *args, stdout=StringIO(), stderr=StringIO())
    return json.loads(open(out_file).read())


def test_it_researches_the_live_web_with_a_model_and_reports_what_failed(
    settings, stub_web, stub_tavily, stub_openai, tmp_path
):
    # given a search API whose results include pages that cannot be used, and a model
    stub_tavily.results = web_results(stub_web, failing=FAILING_PAGES)
    live_settings(settings, web=stub_web, tavily=stub_tavily, openai=stub_openai)

    # when a task runs end to end with every gate approved as proposed
    data = research(QUESTION, "--auto-approve", "--with-snapshots", "--json", str(tmp_path / "out.json"))

    # then the sources were fetched over HTTP from the stub web and extracted
    assert data["status"] == "approved", data["failure_reason"]
    assert data["engine"] == "openai" and data["search_provider"] == "tavily"
    assert data["sources"]
    for source in data["sources"]:
        assert source["url"].startswith(stub_web.base_url + "/article-")
        assert source["http_status"] == 200 and source["extraction"] == "trafilatura"
    # and every failing page is a warning with its reason, not a source
    codes = {
        (w.get("url", "").split("?")[0].removeprefix(stub_web.base_url), w.get("code"))
        for w in data["warnings"]
    }
    for path, code in FAILING_PAGES.items():
        assert (path, code) in codes
    # and the model calls are counted
    stats = data["stats"]
    assert stats["llm_tokens_in"] > 0 and stats["llm_tokens_out"] > 0
    assert stats["llm_calls"] == LLMCall.objects.count() == len(stub_openai.chats)
    assert stats["llm_tokens_in"] == sum(c.tokens_in for c in LLMCall.objects.all())
    # and every quote is its snapshot at its offsets, and the report cites only stored quotes
    snapshots = {s["id"]: s["text"] for s in data["sources"]}
    for quote in data["evidence"]:
        assert snapshots[quote["source"]][quote["start"] : quote["end"]] == quote["quote"]
    cited = {i for claim in data["report"]["claims"] for i in claim["evidence_ids"]}
    assert cited and cited <= {e["id"] for e in data["evidence"]}


def test_it_sends_the_model_only_selected_passages_marked_as_untrusted(
    settings, stub_web, stub_tavily, stub_openai, tmp_path
):
    stub_tavily.results = web_results(stub_web)
    live_settings(settings, web=stub_web, tavily=stub_tavily, openai=stub_openai)
    data = research(QUESTION, "--auto-approve", "--with-snapshots", "--json", str(tmp_path / "out.json"))

    prompts = [stub_openai.prompt_text(i) for i in range(len(stub_openai.chats))]
    page_texts = [s["text"] for s in data["sources"]]
    assert all(text not in prompt for text in page_texts for prompt in prompts)  # never a whole page
    analyse_prompts = [p for p in prompts if "<untrusted_source" in p]
    assert analyse_prompts, "passages go to the model wrapped as untrusted data"
    quotes = {e["quote"] for e in data["evidence"]}
    assert any(quote in prompt for quote in quotes for prompt in analyse_prompts)


def test_it_fails_a_live_task_at_once_when_the_search_key_is_missing(
    settings, stub_web, stub_tavily, tmp_path
):
    live_settings(settings, web=stub_web, tavily=stub_tavily, TAVILY_API_KEY="")
    with pytest.raises(SystemExit) as exit_info:
        research(QUESTION, "--auto-approve", "--json", str(tmp_path / "out.json"))
    assert exit_info.value.code == 1
    task = ResearchTask.objects.get()
    assert task.status == ResearchTask.Status.FAILED
    assert "TAVILY_API_KEY is not set" in task.failure_reason
    assert stub_tavily.searches == []  # nothing was sent without a key


def test_it_turns_a_refusing_search_provider_into_warnings(settings, stub_web, stub_tavily, tmp_path):
    # given a search API that refuses the first searches with 429 and 500
    stub_tavily.results = web_results(stub_web)
    stub_tavily.fail_next(Failure.http(429), Failure.http(500))
    live_settings(settings, web=stub_web, tavily=stub_tavily)

    data = research(QUESTION, "--auto-approve", "--json", str(tmp_path / "out.json"))

    # then the task still finishes, and the refusals are on it as warnings
    assert data["status"] == "approved"
    codes = [w.get("code") for w in data["warnings"]]
    assert "rate_limited" in codes
    assert any(code in ("search_failed", "unavailable") for code in codes)


def test_it_ends_a_task_that_found_nothing_with_gaps_after_a_follow_up_round(
    settings, stub_web, stub_tavily, tmp_path
):
    # given a search API that finds nothing at all
    stub_tavily.results = {}
    live_settings(settings, web=stub_web, tavily=stub_tavily)

    data = research(QUESTION, "--auto-approve", "--json", str(tmp_path / "out.json"))

    # then every sub-question ends [证据不足] after one bounded follow-up round with new queries
    task = ResearchTask.objects.get()
    assert data["status"] == "approved" and task.round == 2
    assert data["findings"] and {f["status"] for f in data["findings"]} == {"insufficient"}
    assert "[证据不足]" in data["report"]["markdown"]
    first_queries = {q for sq in data["plan"]["subquestions"] for q in sq["queries"]}
    asked = {s["query"] for s in stub_tavily.searches}
    assert asked - first_queries, "the follow-up round searched with new queries"


def test_it_does_not_fetch_a_page_twice_for_a_second_task(settings, stub_web, stub_tavily, tmp_path):
    stub_tavily.results = web_results(stub_web)
    live_settings(settings, web=stub_web, tavily=stub_tavily)
    research(QUESTION, "--auto-approve", "--json", str(tmp_path / "one.json"))
    fetched = sum(n for path, n in stub_web.requests.items() if path.startswith("/article-"))
    searches = len(stub_tavily.searches)

    research(QUESTION, "--auto-approve", "--json", str(tmp_path / "two.json"))

    assert sum(n for path, n in stub_web.requests.items() if path.startswith("/article-")) == fetched
    assert len(stub_tavily.searches) == searches  # search results came from the cache too
    assert ResearchTask.objects.filter(status="approved").count() == 2


def test_the_cli_reports_an_unknown_corpus_path_clearly(tmp_path):
    with pytest.raises(CommandError, match="does not exist"):
        call_command("research", QUESTION, "--corpus", str(tmp_path / "missing"), stdout=StringIO())


def research_with_model(settings, stub_web, stub_tavily, stub_openai, tmp_path, **answers: str) -> dict:
    """The live question on the stub web with a model scripted per stage, every gate approving."""
    stub_tavily.results = web_results(stub_web)
    stub_openai.responder = by_stage(**answers)
    live_settings(settings, web=stub_web, tavily=stub_tavily, openai=stub_openai, AUTO_FOLLOWUP="never")
    return research(QUESTION, "--auto-approve", "--json", str(tmp_path / "out.json"))


def test_a_model_that_keeps_answering_nonsense_costs_each_subquestion_the_models_reading_not_the_task(
    settings, stub_web, stub_tavily, stub_openai, tmp_path
):
    from researchapp.models import Evidence, Finding, LLMCall

    # given a model that answers the analysis stage's reading (its pick among the candidate
    # sentences, schema "read") with something that is not JSON, every time
    # when the task runs with every gate approved as proposed
    data = research_with_model(settings, stub_web, stub_tavily, stub_openai, tmp_path, read="I think so!")

    # then it is not failed: each sub-question is read by the extractive reader instead, its answers
    # verbatim, and every rejected answer of the model is on the task's record with its reason
    assert data["status"] == "approved"
    calls = LLMCall.objects.filter(stage="analyse")
    assert calls.exists() and not calls.filter(ok=True).exists()
    assert all("not valid JSON" in call.error for call in calls)
    assert Finding.objects.filter(status="supported").exists() and Evidence.objects.exists()
    assert not Finding.objects.filter(key__endswith=":rejected").exists()


def test_a_draft_the_model_could_not_write_says_why_in_the_method_and_who_decided_the_gaps(
    settings, stub_web, stub_tavily, stub_openai, tmp_path
):
    # given a model whose drafts are never JSON
    # when the task runs with every gate approved as proposed
    data = research_with_model(
        settings, stub_web, stub_tavily, stub_openai, tmp_path, write="A lovely report!"
    )

    # then the extractive writer wrote the draft, and the report's method section says why
    assert data["status"] == "approved"
    draft = ResearchTask.objects.get().drafts.current()
    assert draft.engine == "extractive" and "rejected twice" in draft.engine_note
    markdown = render_markdown(draft)
    method = markdown.split("## Method")[1].split("## References")[0]
    assert "The model's draft was rejected twice" in method and "not valid JSON" in method
    # and a decision made by --auto-approve says so, never "by no analyst named"
    assert "no analyst named" not in markdown
    if "## To verify" in markdown:
        assert (
            "(auto-approved" in markdown.split("## To verify")[1]
            and "Reason: “auto-approved”" not in markdown
        )
