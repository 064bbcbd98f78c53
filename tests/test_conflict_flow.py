"""A folder corpus whose documents disagree, researched end to end: one conflict finding linking
both, at the evidence gate with its kind and differing spans highlighted, and a report that never
states both sides as fact. Each document of a folder is its own voice."""

from __future__ import annotations

import json
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import call_command
from django.urls import reverse

from researchapp.core.enums import FindingStatus
from researchapp.models import Evidence, Finding, ResearchTask, Source
from tests.helpers import client_for

pytestmark = pytest.mark.django_db
QUESTION = "When was the Greywater Point lighthouse built?"
EARLY = "The harbour board built the Greywater Point lighthouse in 1871 on the northern headland of the bay."
LATE = "The Greywater Point lighthouse was built in 1874 on the northern headland, the board's records say."
OTHER = "Pasta cooks in nine minutes in salted water; drain it well before adding the sauce."


def folder(tmp_path: Path, *, same_site: bool) -> Path:
    """Three text files; with ``same_site`` the two that disagree name pages of one web site."""
    root = tmp_path / "notes"
    root.mkdir()
    for name, text, url in (
        ("early.txt", EARLY, "https://harbour.example/history"),
        ("late.txt", LATE, "https://harbour.example/records"),
        ("pasta.txt", OTHER, "https://food.example/pasta"),
    ):
        head = f"---\nurl: {url}\ntitle: {name}\n---\n" if same_site else ""
        (root / name).write_text(head + text + "\n", encoding="utf-8")
    return root


def research(corpus: Path, tmp_path: Path, *extra: str) -> dict:
    out = tmp_path / "out.json"
    call_command(
        "research", QUESTION, "--corpus", str(corpus), "--auto-approve", "--json", str(out), *extra,
        stdout=StringIO(), stderr=StringIO(),
    )  # fmt: skip
    return json.loads(out.read_text())


@pytest.mark.parametrize("same_site", [False, True], ids=["files", "one-site"])
def test_two_documents_that_disagree_are_one_conflict_at_the_gate_and_never_both_fact(
    tmp_path, analyst, same_site
):
    # when the folder is researched, every gate approving as proposed (conflicts kept as disputed)
    data = research(folder(tmp_path, same_site=same_site), tmp_path)
    task = ResearchTask.objects.get()

    # then the task ends approved, with one conflict finding linking a quote of each document
    assert data["status"] == "approved", data["failure_reason"]
    (conflict,) = Finding.objects.filter(task=task, status=FindingStatus.CONFLICT)
    linked = Evidence.objects.filter(finding_links__finding=conflict).select_related("source")
    early = Source.objects.get(task=task, text__contains="1871")
    late = Source.objects.get(task=task, text__contains="1874")
    assert {e.source_id for e in linked} == {early.pk, late.pk}
    # with what differs: its kind, and the spans of each quote
    assert conflict.disagreement["kind"] == "date"
    spans = {e.quote[s:t] for e in linked for s, t in conflict.disagreement["spans"][str(e.pk)]}
    assert spans == {"1871", "1874"}
    # a folder is not one voice; two pages of one site are, and are compared all the same
    assert (early.cluster == late.cluster) is same_site

    # and the evidence gate shows the kind and highlights both differing spans
    page = client_for(analyst).get(reverse("evidence_review", args=[task.pk])).content.decode()
    assert 'data-testid="conflict-kind"' in page and "dates" in page
    assert '<strong class="differs" data-testid="differs">1871</strong>' in page
    assert '<strong class="differs" data-testid="differs">1874</strong>' in page

    # and the report states neither side as fact; the disputed findings quote both
    fact_ids = {i for c in data["report"]["claims"] if c["section"] != "disputed" for i in c["evidence_ids"]}
    stated = {e.source_id for e in Evidence.objects.filter(pk__in=fact_ids)}
    assert not {early.pk, late.pk} <= stated
    facts = " ".join(c["text"] for c in data["report"]["claims"] if c["section"] != "disputed")
    assert "1871" not in facts or "1874" not in facts
    disputed = [c for c in data["report"]["claims"] if c["section"] == "disputed"]
    assert disputed and "1871" in disputed[0]["text"] and "1874" in disputed[0]["text"]


def test_deep_mode_reports_one_disagreement_once_whatever_sub_questions_saw_it(tmp_path):
    # when deep mode stores the same passages under several sub-questions
    research(folder(tmp_path, same_site=False), tmp_path, "--depth", "deep")
    task = ResearchTask.objects.get()
    # then the disagreement is one finding, and the report has one dispute
    assert task.status == ResearchTask.Status.APPROVED, task.failure_reason
    assert Finding.objects.filter(task=task, status=FindingStatus.CONFLICT).count() == 1
    assert len(task.drafts.current().document["disputes"]) == 1


def test_a_post_without_a_full_stop_is_stated_not_failed_at_writing(tmp_path):
    # given a folder whose only answer is a post that ends without a full stop
    root = tmp_path / "posts"
    root.mkdir()
    (root / "post.txt").write_text(
        "Quillby Harbour Board: the new Quillby ferry terminal opened to passengers in May on the pier",
        encoding="utf-8",
    )
    # when it is researched
    out = tmp_path / "out.json"
    call_command(
        "research", "When did the Quillby ferry terminal open?", "--corpus", str(root), "--auto-approve",
        "--json", str(out), stdout=StringIO(), stderr=StringIO(),
    )  # fmt: skip
    data = json.loads(out.read_text())
    # then the report states it (the analysis proposed only what the writer states)
    assert data["status"] == "approved", data["failure_reason"]
    assert any(
        "opened to passengers" in c["text"] for c in data["report"]["claims"] if c["section"] != "disputed"
    )


def test_a_denial_is_filed_though_the_question_asks_what_was_said_not_yes_or_no(tmp_path):
    # given a claim and a page that denies it, asked as "what did they say" (a question whose
    # answer type is not yes or no, so a denial is not the kind of value it asks for)
    root = tmp_path / "claims"
    root.mkdir()
    (root / "claim.txt").write_text(
        "Quillby Post: the Greywater Point lighthouse was sold to a hotel chain by the harbour board.",
        encoding="utf-8",
    )
    (root / "denial.txt").write_text(
        "The harbour board said the Greywater Point lighthouse was not sold to a hotel chain.",
        encoding="utf-8",
    )
    (root / "pasta.txt").write_text(OTHER, encoding="utf-8")
    out = tmp_path / "out.json"
    question = (
        "What did the harbour board say about the sale of the Greywater Point lighthouse to a hotel chain?"
    )
    call_command(
        "research", question, "--corpus", str(root), "--auto-approve", "--json", str(out),
        stdout=StringIO(), stderr=StringIO(),
    )  # fmt: skip
    task = ResearchTask.objects.get()
    # then the two documents are one conflict finding, of the negation kind, for review
    assert task.status == ResearchTask.Status.APPROVED, task.failure_reason
    (conflict,) = Finding.objects.filter(task=task, status=FindingStatus.CONFLICT)
    assert conflict.disagreement["kind"] == "negation"
    files = {
        link.evidence.source.url.rsplit("/", 1)[-1]
        for link in conflict.links.select_related("evidence__source")
    }
    assert {"claim.txt", "denial.txt"} <= {name.split("#")[0] for name in files}
