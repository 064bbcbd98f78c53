"""Report review: markers only from evidence ids, comments anchored to sentences, versions and their
diff, approved versions frozen; ``ledger_verify`` checks every marker of every report."""

from __future__ import annotations

import re
from io import StringIO

import pytest
from django.conf import settings
from django.core.management import CommandError, call_command
from django.urls import reverse

from researchapp.models import ReportDraft, ResearchTask
from researchapp.models.report import ImmutableReport
from researchapp.pipeline.checker.mechanical import check_draft
from researchapp.pipeline.values import Brief, Ledger, UsageLog
from researchapp.pipeline.writer.render import NEUTRAL_DISPUTE
from researchapp.services.dispatch import drain, inline
from researchapp.services.stages import stage_write
from reviews.models import ReviewDecision
from reviews.selectors.reports import report_for
from tests.factories import evidence_review_task
from tests.helpers import HTMX, client_for
from tests.model_stages import make_engine
from tests.stubs.openai_api import by_stage
from tests.test_openai_engine_write import COP, EFFICIENCY, SUPPORTED

Status = ResearchTask.Status


def test_a_model_claim_holding_citation_markers_is_refused_by_the_checker(llm) -> None:
    # given a model that writes markers into a claim's text, one of them for evidence that does not exist
    # (inside its one sentence: the writer keeps a claim's first sentence only)
    text = "The survey measured a seasonal COP of 3.2 in 2023 [E999] [E12]."
    llm.responder = by_stage(write={"claims": [{"section": "7", "text": text, "evidence_ids": [12]}]})
    # when its draft is checked
    draft = make_engine(llm).write("q?", [EFFICIENCY], [SUPPORTED], usage=UsageLog())
    brief = Brief("q?", (EFFICIENCY,), (SUPPORTED,))
    issues = check_draft(draft, brief, Ledger(evidence={12: COP}, snapshots={COP.source_id: COP.quote}))
    # then the claim is refused, and its markers were never printed as markers
    assert [(issue.code, issue.claim_index) for issue in issues] == [("marker_in_claim", 0)]
    assert r"2023 \[E999\] \[E12\]. [E12]" in draft.markdown


def report_at_gate(owner) -> ReportDraft:
    """The tram task (a supported finding, an unsettled conflict, a gap), written by the extractive writer."""
    scenario = evidence_review_task(owner, status=Status.WRITING, write_pass=1)
    stage_write(scenario.task)
    draft = scenario.task.drafts.get()
    assert draft.status == ReportDraft.Status.CHECKED, draft.check_issues
    return draft


@pytest.mark.django_db
def test_ledger_verify_fails_on_a_marker_that_no_claim_cites(researcher):
    # given an approved report that passes, then one whose text carries a marker none of its claims cites
    draft = report_at_gate(researcher)
    ReportDraft.objects.filter(pk=draft.pk).update(status=ReportDraft.Status.APPROVED)
    call_command("ledger_verify", stdout=StringIO())
    ReportDraft.objects.filter(pk=draft.pk).update(markdown=draft.markdown + "\nAlso true. [E999]\n")
    # when / then
    err = StringIO()
    with pytest.raises(CommandError, match="1 problem"):
        call_command("ledger_verify", stdout=StringIO(), stderr=err)
    assert f"report {draft.pk}: its text carries [E999], which none of its claims cites" in err.getvalue()


@pytest.mark.django_db
def test_ledger_verify_fails_on_a_claim_whose_text_holds_a_marker(researcher):
    draft = report_at_gate(researcher)
    claims = [{**draft.claims[0], "text": draft.claims[0]["text"] + " [E1]"}, *draft.claims[1:]]
    ReportDraft.objects.filter(pk=draft.pk).update(claims=claims)
    err = StringIO()
    with pytest.raises(CommandError):
        call_command("ledger_verify", task=draft.task_id, stdout=StringIO(), stderr=err)
    assert "holds a citation marker" in err.getvalue()


def anchor_of(draft: ReportDraft, text: str) -> str:
    [anchor] = [anchor for anchor, said in report_for(draft.task).sentences.items() if said == text]
    return anchor


@pytest.mark.django_db
def test_an_analyst_requests_changes_on_a_sentence_and_the_next_version_shows_the_diff(analyst, researcher):
    # given a checked draft whose dispute sentence an analyst objects to
    draft = report_at_gate(researcher)
    disputed = next(claim["text"] for claim in draft.claims if claim["section"] == "disputed")
    anchor = anchor_of(draft, disputed)
    page = client_for(analyst).get(reverse("report_view", args=[draft.task_id])).content.decode()
    assert f'name="comment-{anchor}"' in page and 'form="report-changes"' in page

    # when the analyst requests changes with a comment on that sentence (and the writer runs)
    data = {
        "decision": "send_back",
        "draft_version": 1,
        "comments": "",
        f"comment-{anchor}": "Say who counted.",
    }
    with inline() as queue:
        response = client_for(analyst).post(reverse("report_view", args=[draft.task_id]), data, **HTMX)
        drain(queue)

    # then the comment is kept with its sentence, in the draft and in the audit trail
    assert "sent back; the writer is revising it (1 comment on sentences)." in response.content.decode()
    draft.refresh_from_db()
    assert draft.sentence_comments == [
        {"anchor": anchor, "sentence": disputed, "comment": "Say who counted."}
    ]
    assert f"{anchor} “{disputed}”: Say who counted." in ReviewDecision.objects.get(object_type="report").note
    # and the next version dropped that sentence, which the page shows against the last version
    task = ResearchTask.objects.get(pk=draft.task_id)
    assert task.status == Status.AWAITING_REPORT_REVIEW
    review = report_for(task)
    assert review.draft.version == 2 and review.sent_back == draft
    assert [(c.kind, c.text) for c in review.changes] == [("removed", disputed), ("added", NEUTRAL_DISPUTE)]
    page = client_for(analyst).get(reverse("report_view", args=[task.pk])).content.decode()
    assert 'data-testid="report-diff"' in page and "On “" in page and "Say who counted." in page


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"comment-s999": "No such sentence."}, "The draft has no sentence s999; reload the page."),
        ({}, "Say what the writer should change"),
    ],
)
def test_it_refuses_a_request_for_changes_that_says_nothing_or_names_no_sentence(
    analyst, researcher, fields, message
):
    draft = report_at_gate(researcher)
    data = {"decision": "send_back", "draft_version": 1, "comments": "", **fields}
    response = client_for(analyst).post(reverse("report_view", args=[draft.task_id]), data, **HTMX)
    assert message in response.content.decode()
    draft.refresh_from_db()
    assert draft.status == ReportDraft.Status.CHECKED and not draft.sentence_comments


@pytest.mark.django_db
def test_an_approved_version_never_changes(researcher):
    draft = report_at_gate(researcher)
    ReportDraft.objects.filter(pk=draft.pk).update(status=ReportDraft.Status.APPROVED)
    draft.refresh_from_db()
    draft.document = {**draft.document, "title": "Something else"}
    with pytest.raises(ImmutableReport):
        draft.save()
    draft.refresh_from_db()
    assert draft.document["title"] != "Something else"


def _main(page: str) -> str:
    """The page's own content: what ``<main>`` holds after the task's heading."""
    main = page.split('<main class="page" id="main">', 1)[1].split("</main>", 1)[0]
    return main.split("</h1>", 1)[1]


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("language", "history", "changes"),
    [("en", "Review history", "Changes since v1"), ("zh-hans", "审核记录", "自第 1 版以来的改动")],
)
def test_the_approved_report_opens_with_the_report_and_keeps_its_history_behind_a_closed_toggle(
    analyst, researcher, language, history, changes
):
    # given a report sent back once with a comment, rewritten, and approved
    draft = report_at_gate(researcher)
    with inline() as queue:
        client_for(analyst).post(
            reverse("report_view", args=[draft.task_id]),
            {"decision": "send_back", "draft_version": 1, "comments": "Name the counting agency."},
        )
        drain(queue)
    client_for(analyst).post(
        reverse("report_view", args=[draft.task_id]), {"decision": "approve", "draft_version": 2}
    )
    assert ResearchTask.objects.get(pk=draft.task_id).status == Status.APPROVED

    # when its owner opens it, in either language
    client = client_for(researcher)
    client.cookies[settings.LANGUAGE_COOKIE_NAME] = language
    main = _main(client.get(reverse("report_view", args=[draft.task_id])).content.decode())

    # then the first thing after the heading is the report itself, titled with the question
    first_tags = re.findall(r"<(\w+)[^>]*>", main)[:3]
    assert first_tags == ["div", "div", "article"], first_tags
    assert re.match(
        r'\s*<div class="report-layout">\s*<div class="report-main">\s*<article class="report-body"', main
    )
    assert main.index('data-testid="report-body"') < main.index('data-testid="review-history"')
    # and the review history (what was asked, what changed, the earlier drafts) is behind a closed toggle
    toggle = re.search(r'<details class="review-history card" data-testid="review-history"( open)?>', main)
    assert toggle and toggle.group(1) is None
    details = main[toggle.start() : main.index("</details>", toggle.start())]
    assert f"<summary>{history}</summary>" in details
    assert changes in details and "Name the counting agency." in details
    assert "Name the counting agency." not in main[: toggle.start()]


@pytest.mark.django_db
def test_the_analyst_deciding_a_revised_draft_sees_its_history_open(analyst, researcher):
    draft = report_at_gate(researcher)
    with inline() as queue:
        client_for(analyst).post(
            reverse("report_view", args=[draft.task_id]),
            {"decision": "send_back", "draft_version": 1, "comments": "Name the counting agency."},
        )
        drain(queue)
    main = _main(client_for(analyst).get(reverse("report_view", args=[draft.task_id])).content.decode())
    assert '<details class="review-history card" data-testid="review-history" open>' in main
    assert main.index('data-testid="report-body"') < main.index('data-testid="review-history"')
