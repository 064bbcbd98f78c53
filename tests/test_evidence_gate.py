"""The evidence gate's conflict view and [证据不足] view, and evidence added by hand (issue 11, part B)."""

from __future__ import annotations

import re

import pytest
from django.test import Client
from django.urls import reverse

from researchapp.core.enums import FindingStatus
from researchapp.core.hashing import sha256_text
from researchapp.models import Event, Evidence, Finding, FindingEvidence, Source
from researchapp.pipeline.runner.analyse import store_findings
from researchapp.pipeline.values import ProposedFinding
from reviews import claims, services
from reviews.models import ReviewDecision
from reviews.selectors.passages import marked_paragraphs
from tests.factories import EvidenceFactory, SourceFactory, analyst_persona, evidence_review_task
from tests.helpers import HTMX, client_for

pytestmark = pytest.mark.django_db


def page(client: Client, task_id: int) -> str:
    return client.get(reverse("evidence_review", args=[task_id])).content.decode()


def post(client: Client, task_id: int, **data) -> str:
    return client.post(reverse("evidence_review", args=[task_id]), data, **HTMX).content.decode()


def card(body: str, finding: Finding) -> str:
    """The HTML of one item's card."""
    start = body.index(f'id="finding-{finding.pk}"')
    return body[start : body.index("</article>", start)]


# --- the conflict view --------------------------------------------------------------------------


def test_a_conflict_shows_each_quote_in_its_paragraphs_with_the_differing_figures(analyst, researcher):
    # given the tram conflict: 42,000 riders a day (transit authority) against 31,000 (riders' survey)
    scenario = evidence_review_task(researcher)
    body = card(page(client_for(analyst), scenario.task.pk), scenario.conflict)

    # then each quote is marked inside the sentences around it in its snapshot
    assert (
        "Harbor City opened its new tram line in 2021 after four years of construction. "
        '<mark data-testid="quote">The line carries <strong class="differs" data-testid="differs">42,000'
        "</strong> passengers a day according to the transit authority.</mark> Critics say" in body
    )
    assert (
        '<mark data-testid="quote">The line carries <strong class="differs" data-testid="differs">31,000'
        in body
    )
    # and only the figures the sides do not share are highlighted (2021 is context, not a quote's figure)
    assert re.findall(r'data-testid="differs">([^<]+)<', body) == ["42,000", "31,000"]
    # and each side says where it comes from: title, host, date and independence cluster
    for title, host in (
        ("Transit authority: tram", "transit.example"),
        ("Riders&#x27; association survey", "riders.example"),
    ):
        assert f'<cite data-testid="source-title">{title}</cite>' in body
        # (a corpus's documents: their addresses are what the corpus claims, shown and never linked)
        assert (
            f'<span data-testid="source-host">{host}</span> <span class="muted" data-testid="claimed-url">'
            in body
        )
        assert f"independence cluster https://{host}/" in body
    assert body.count('data-testid="source-date">fetched ') == 2
    assert 'data-testid="shared-cluster"' not in body


def test_the_two_pick_buttons_have_distinct_names_and_shortcuts(analyst, researcher):
    scenario = evidence_review_task(researcher)
    body = card(page(client_for(analyst), scenario.task.pk), scenario.conflict)
    buttons = re.findall(r'<button [^>]*data-testid="decide-pick-[a-z]+"[^>]*>([^<]+)</button>', body)
    assert buttons == ["Pick side A: transit.example", "Pick side B: riders.example"]
    assert 'data-shortcut="a"' in body and 'data-shortcut="b"' in body
    assert f'data-item="finding-{scenario.conflict.pk}"' in body


def test_both_sides_from_one_cluster_are_pointed_out(analyst, researcher):
    scenario = evidence_review_task(researcher)
    Source.objects.filter(pk__in=[s.pk for s in scenario.sources]).update(cluster="one-host")
    body = card(page(client_for(analyst), scenario.task.pk), scenario.conflict)
    assert 'data-testid="shared-cluster"' in body


def test_picking_a_side_needs_a_reason_and_keeps_what_was_typed(analyst, researcher):
    scenario = evidence_review_task(researcher)
    data = {"finding": scenario.conflict.pk, "version": 1, "decision": "pick_supports", "note": "  "}
    body = post(client_for(analyst), scenario.task.pk, **data)
    assert "Say why you pick this side" in body
    scenario.conflict.refresh_from_db()
    assert scenario.conflict.resolution == "" and not ReviewDecision.objects.exists()


def test_the_decided_conflict_says_which_side_who_when_and_why(analyst, researcher):
    # given an analyst who picks side B with a reason
    scenario = evidence_review_task(researcher)
    data = {"finding": scenario.conflict.pk, "version": 1, "decision": "pick_contradicts", "note": "Counted."}
    post(client_for(analyst), scenario.task.pk, **data)

    # then the card names the side by its source and quote, the analyst, the time and the reason
    scenario.conflict.refresh_from_db()
    body = card(page(client_for(analyst), scenario.task.pk), scenario.conflict)
    decided = re.sub(r"\s+", " ", body[body.index('data-testid="resolution"') :])
    assert "Decided: picked side B (riders.example)" in decided
    assert "The line carries 31,000 passengers a day, the association counted in May." in decided
    assert f"by {analyst.username}" in decided
    assert scenario.conflict.resolved_at.strftime("%Y-%m-%d") in decided
    assert 'why: <q data-testid="resolution-note">Counted.</q>' in decided
    assert 'data-picked="B"' in body and "Decided: Picked" not in body


def test_surrounding_paragraphs_come_from_a_window_of_a_long_snapshot():
    # given a window cut out of a longer snapshot, whose first and last lines are parts of paragraphs
    window = "end of one.\nBefore the quote.\nThe quote says 12 things. And more.\nAfter it.\nNext one\nfar"
    start = window.index("The quote")
    quote = "The quote says 12 things."
    paragraphs = marked_paragraphs(
        window, start, start + len(quote), [(15, 17)], clipped_before=True, clipped_after=True
    )
    # then one paragraph either side of the quote's own is shown, the quote and its figure marked
    texts = ["".join(s.text for s in p.segments) for p in paragraphs]
    assert texts == ["Before the quote.", "The quote says 12 things. And more.", "After it."]
    middle = paragraphs[1].segments
    assert [(s.text, s.quote, s.differs) for s in middle] == [
        ("The quote says ", True, False),
        ("12", True, True),
        (" things.", True, False),
        (" And more.", False, False),
    ]
    assert middle[0].opens and middle[2].closes and not middle[1].opens
    # and a paragraph cut by the window's edge says so; the ones shown here are whole
    assert not any(p.clipped_before or p.clipped_after for p in paragraphs)
    edge = marked_paragraphs(window, 0, 3, clipped_before=True)
    assert edge[0].clipped_before


# --- the [证据不足] view ------------------------------------------------------------------------


def gap_with_history(researcher):
    """The tram task; the gap's sub-question searched, opened two pages and kept three passages
    below the relevance bar."""
    scenario = evidence_review_task(researcher)
    subquestion = scenario.gap.subquestion
    subquestion.followup_queries = ["tram punctuality survey"]
    subquestion.coverage = {"status": "uncovered", "message": "No page mentions punctuality.", "hits": 0}
    subquestion.save()
    a, b = scenario.sources
    subquestion.sources.add(a, b)
    closest = [
        EvidenceFactory(
            source=a, subquestion=subquestion, start=0, length=20, relevance=0.1, clears_bar=False
        ),
        EvidenceFactory(
            source=b, subquestion=subquestion, start=0, length=30, relevance=0.3, clears_bar=False
        ),
        EvidenceFactory(
            source=b, subquestion=subquestion, start=0, length=10, relevance=0.2, clears_bar=False
        ),
    ]
    return scenario, closest


def test_a_gap_shows_the_mark_once_and_what_was_tried(analyst, researcher):
    scenario, closest = gap_with_history(researcher)
    body = card(page(client_for(analyst), scenario.task.pk), scenario.gap)

    # then the mark is written once, and the statement follows it without its own copy
    assert body.count("[证据不足]") == 1
    assert '<span data-testid="gap-statement">How punctual the trams are</span>' in body
    # and the searches, the plan's probe, the sources opened and the closest passages, best first
    assert "<code>query 3a</code>, <code>query 3b</code>" in body
    assert "Follow-up searches: <code>tram punctuality survey</code>" in body
    assert "No page mentions punctuality." in body
    assert body.count('data-testid="opened-source"') == 2
    shown = [int(n) for n in re.findall(r'data-testid="closest-passage" data-evidence="(\d+)"', body)]
    assert shown == [closest[1].pk, closest[2].pk, closest[0].pk]
    assert "relevance 0.30, score" in body
    # and its decisions, each with its shortcut
    for testid, key in (
        ("decide-gap", "d"),
        ("decide-drop", "x"),
        ("decide-more-research", "r"),
        ("add-evidence", "e"),
    ):
        assert re.search(rf'data-testid="{testid}" data-shortcut="{key}"', body), testid


# --- evidence added by hand ---------------------------------------------------------------------


def add(client: Client, scenario, **fields) -> str:
    data = {"action": "add_evidence", "finding": scenario.gap.pk, "version": scenario.gap.version}
    return post(client, scenario.task.pk, **{**data, **fields})


def test_an_analyst_answers_a_gap_with_a_span_of_a_stored_source(analyst, researcher):
    # given the tram task, whose riders' survey says that trams run late one trip in five
    scenario, closest = gap_with_history(researcher)
    survey = scenario.sources[1]
    passage = "It also found that trams run late one trip in five."
    start = survey.text.index(passage)

    # when the analyst selects that span of the stored source and adds it
    body = add(
        client_for(analyst), scenario, source=survey.pk, start=start, end=start + len(passage), note="Survey."
    )

    # then it is stored as a quote like any other: offsets, text and the snapshot's hash
    evidence = Evidence.objects.get(added_by=analyst)
    assert (evidence.start, evidence.end, evidence.quote) == (start, start + len(passage), passage)
    assert survey.text[evidence.start : evidence.end] == evidence.quote
    assert evidence.snapshot_sha256 == sha256_text(survey.text) and evidence.verify()
    # and the gap is a supported finding standing on it alone; the closest passages are set aside
    gap = Finding.objects.get(pk=scenario.gap.pk)
    assert (gap.status, gap.resolution, gap.statement) == ("supported", "", passage)
    assert gap.resolved_by == analyst and gap.version == 2
    kept = FindingEvidence.objects.filter(finding=gap, kept=True)
    assert [link.evidence_id for link in kept] == [evidence.pk]
    # and the audit says who added what
    decision = ReviewDecision.objects.get()
    assert (decision.reviewer, decision.decision) == (analyst, "add_evidence")
    assert f"E{evidence.pk} “{passage}”" in decision.note and "Survey." in decision.note
    event = Event.objects.get(data__decision="add_evidence")
    assert event.actor == analyst and event.data["evidence"] == evidence.pk
    # and the page shows it where the gap was, answered, with nothing left to decide on it
    assert 'data-resolution="by_hand"' in body and 'data-testid="added-by-hand"' in body
    assert f"Item {gap.pk} is supported now" in body
    assert 'data-pending="0"' not in body  # the conflict is still open


def test_the_exact_passage_can_be_pasted_instead_of_offsets(analyst, researcher):
    scenario = evidence_review_task(researcher)
    survey = scenario.sources[1]
    add(client_for(analyst), scenario, source=survey.pk, quote="trams run late one trip in five")
    evidence = Evidence.objects.get(added_by=analyst)
    assert evidence.quote == "trams run late one trip in five"
    assert survey.text[evidence.start : evidence.end] == evidence.quote


@pytest.mark.parametrize(
    ("fields", "error"),
    [
        ({"start": "10", "end": "10"}, "The selected passage is empty."),
        ({"start": "5", "end": "99999"}, "The passage must lie inside the source"),
        ({"start": "-3", "end": "4"}, "Ensure this value is greater than or equal to 0."),
        ({"quote": "a sentence nobody wrote"}, "not in the source&#x27;s stored text"),
        ({"quote": "found"}, "That passage occurs 2 times in the source; give its start and end."),
        ({"quote": "  \n "}, "Select a passage of the source, or give its start and end."),
        ({"start": "", "end": ""}, "Select a passage of the source, or give its start and end."),
    ],
)
def test_bad_input_is_refused_clearly_and_nothing_is_lost(analyst, researcher, fields, error):
    scenario = evidence_review_task(researcher)
    survey = scenario.sources[1]
    body = add(client_for(analyst), scenario, source=survey.pk, note="typed note", **fields)
    assert error in body
    # nothing is stored, and the form comes back with what was typed
    assert not Evidence.objects.filter(added_by__isnull=False).exists()
    assert Finding.objects.get(pk=scenario.gap.pk).status == "insufficient"
    assert not ReviewDecision.objects.exists()
    form = card(body, scenario.gap)
    assert 'value="typed note"' in form
    assert f'<option value="{survey.pk}" selected>' in form


def test_a_span_of_whitespace_only_or_of_another_tasks_source_is_refused(analyst, researcher):
    scenario, other = evidence_review_task(researcher), evidence_review_task(researcher)
    client = client_for(analyst)
    text = "One sentence.    Another sentence of enough length here."
    spaced = SourceFactory(task=scenario.task, text=text)
    gap = text.index("    ")
    assert "The selected passage is empty." in add(client, scenario, source=spaced.pk, start=gap, end=gap + 4)
    response = client.post(
        reverse("evidence_review", args=[scenario.task.pk]),
        {
            "action": "add_evidence",
            "finding": scenario.gap.pk,
            "version": 1,
            "source": other.sources[0].pk,
            "start": 0,
            "end": 5,
        },
        **HTMX,
    )
    assert response.status_code == 404
    assert not Evidence.objects.filter(added_by__isnull=False).exists()


def test_a_stale_item_refuses_added_evidence(analyst, researcher):
    scenario = evidence_review_task(researcher)
    post(client_for(analyst), scenario.task.pk, finding=scenario.gap.pk, version=1, decision="gap")
    body = add(client_for(analyst), scenario, source=scenario.sources[0].pk, start=0, end=20)
    assert f"{analyst.username} changed or decided this item first" in body
    assert not Evidence.objects.filter(added_by__isnull=False).exists()


def test_only_analysts_add_evidence(researcher):
    scenario = evidence_review_task(researcher)
    response = client_for(researcher).post(
        reverse("evidence_review", args=[scenario.task.pk]),
        {
            "action": "add_evidence",
            "finding": scenario.gap.pk,
            "version": 1,
            "source": scenario.sources[0].pk,
            "start": 0,
            "end": 20,
        },
        **HTMX,
    )
    assert response.status_code == 403
    assert not Evidence.objects.filter(added_by__isnull=False).exists()


def test_a_source_opens_in_the_side_panel_line_by_line_with_offsets(analyst, researcher, outsider):
    scenario = evidence_review_task(researcher)
    source = SourceFactory(task=scenario.task, text="First line.\n\nSecond line here.")
    url = (
        reverse("evidence_source", args=[scenario.task.pk]) + f"?source={source.pk}&finding={scenario.gap.pk}"
    )
    panel = client_for(analyst).get(url, **HTMX).content.decode()
    assert "<html" not in panel and 'data-testid="source-select"' in panel
    assert f'data-source="{source.pk}" data-finding="{scenario.gap.pk}"' in panel
    assert (
        '<p data-start="0">First line.</p>' in panel and '<p data-start="13">Second line here.</p>' in panel
    )
    assert "<html" in client_for(analyst).get(url).content.decode()  # a page of its own without htmx
    assert client_for(outsider).get(url).status_code == 404


def test_an_item_another_analyst_holds_refuses_a_pick_and_added_evidence_keeping_what_was_typed(
    analyst, researcher
):
    # given a conflict and a gap that another analyst has claimed
    scenario = evidence_review_task(researcher)
    holder = analyst_persona("analyst2")
    for finding in (scenario.conflict, scenario.gap):
        claims.claim_take(actor=holder, item=claims.Item.of_finding(finding))
    client = client_for(analyst)

    # when the analyst picks a side with a reason, and adds a span to the gap
    data = {"finding": scenario.conflict.pk, "version": 1, "decision": "pick_supports", "note": "Official."}
    picked = post(client, scenario.task.pk, **data)
    added = add(client, scenario, source=scenario.sources[1].pk, start=0, end=61, note="mine")

    # then both are refused, naming who holds them, and what was typed is still in the forms
    for body in (picked, added):
        assert "analyst2 has claimed this item" in body
    assert ">Official.</textarea>" in card(picked, scenario.conflict)
    assert 'value="mine"' in card(added, scenario.gap) and 'value="61"' in card(added, scenario.gap)
    assert not ReviewDecision.objects.exists()
    assert not Evidence.objects.filter(added_by__isnull=False).exists()


def test_analysing_the_sub_question_again_keeps_an_item_answered_by_hand(analyst, researcher):
    # given a gap answered with evidence added by hand
    scenario = evidence_review_task(researcher)
    services.evidence_add_by_hand(
        finding=scenario.gap, actor=analyst, source=scenario.sources[1], start=0, end=61, version_seen=1
    )
    # when its sub-question is analysed again (more research on it) and the analyser proposes a gap
    # under the same key, and nothing under its own
    again = ProposedFinding(
        key=scenario.gap.key,
        subquestion_id=scenario.gap.subquestion_id,
        status=FindingStatus.INSUFFICIENT,
        statement="[证据不足] again",
    )
    store_findings(scenario.task, scenario.gap.subquestion, [again])
    store_findings(scenario.task, scenario.gap.subquestion, [])
    # then the analyst's answer stands
    gap = Finding.objects.get(pk=scenario.gap.pk)
    assert (gap.status, gap.statement) == (
        "supported",
        "A survey by the riders' association found different numbers.",
    )
