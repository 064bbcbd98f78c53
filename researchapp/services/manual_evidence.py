"""Evidence added by hand at the evidence gate, for a [证据不足] item an analyst can answer.

The analyst picks a stored source of the task (or has the fetcher open a URL, which stores it as a
source like any collected page) and selects a span of its snapshot. The span is stored as an
Evidence row like every quote: ``source.text[start:end] == quote`` with the snapshot's SHA-256
(``Evidence.save`` checks it), marked as added by that analyst. The item becomes a supported finding
standing on that quote; the closest passages it linked are set aside, never cited.

A URL is fetched inline, in the request, with a short total timeout (``wiring.analyst_fetcher``) and no
retry: the analyst waits for one page, and a page that does not answer in that time is reported
as such rather than queued. The fetcher's SSRF guard decides before any connection is made.
"""

from __future__ import annotations

from django.contrib.auth.models import User
from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from researchapp.core.enums import FindingStatus, Stance
from researchapp.core.messages import Message, gettext_noop, message, with_note
from researchapp.message_text import message_text
from researchapp.models import Event, Evidence, Finding, FindingEvidence, Gate, Source
from researchapp.pipeline.runner.collect import store_source
from researchapp.pipeline.runner.wiring import analyst_fetcher
from researchapp.providers.base import Fetcher, ProviderError
from researchapp.services.evidence_gate import finding_decision_record

MAX_QUOTE_CHARS = 2000
PROVIDER = "by_hand"
# Why a page could not be opened, in the analyst's words and language (the fetcher's own English,
# "[Errno -2] Name or service not known", says nothing to a person), by the fetcher's error code; the
# guard's and the extractor's refusals say what they found (a metadata address, image/png) themselves.
WHY_NOT_OPENED = {
    "dns_failed": gettext_lazy(
        "its host name could not be found. Check the address; if it is right, this server may have no "
        "access to the web."
    ),
    "unavailable": gettext_lazy("the site could not be reached; this server may have no access to the web."),
    "timeout": gettext_lazy("the site did not answer in time."),
    "http_error": gettext_lazy("the site answered with an error (the page may not exist)."),
    "server_error": gettext_lazy("the site had an error; try again later."),
    "rate_limited": gettext_lazy("the site asks to slow down; try again in a minute."),
}


def why_not_opened(error: ProviderError) -> str:
    """The fetcher's refusal in words for the analyst: by its code, else its own message."""
    if error.code in WHY_NOT_OPENED:
        return str(WHY_NOT_OPENED[error.code])
    return message_text(error.said, error.message) if error.said else error.message


def _refuse_unless_open_gap(finding: Finding, version_seen: int) -> None:
    finding.task.refuse_unless_at(Gate.EVIDENCE_REVIEW)
    if finding.status != FindingStatus.INSUFFICIENT:
        raise ValidationError(_("Evidence can be added by hand only to a [证据不足] item."))
    finding.refuse_unless_seen(version_seen)


def source_open_by_hand(
    *, finding: Finding, actor: User | None, url: str, version_seen: int, fetcher: Fetcher | None = None
) -> Source:
    """Open ``url`` with the fetcher and store it as a source of the item's task and sub-question.

    A refused address, a failing page or content that is not text is a ``ValidationError`` that
    says why; nothing is stored then.
    """
    _refuse_unless_open_gap(finding, version_seen)
    url = url.strip()
    if not url:
        raise ValidationError(_("Paste the address of the page to open."))
    fetcher = fetcher or analyst_fetcher()
    try:
        document = fetcher.fetch(url)
    except ProviderError as error:
        raise ValidationError(
            _("Could not open %(url)s: %(reason)s") % {"url": url, "reason": why_not_opened(error)}
        ) from error
    task = finding.task
    with transaction.atomic():
        source = store_source(task, document, provider=PROVIDER, round_no=task.round)
        Source.objects.filter(pk=source.pk, cluster="").update(cluster=source.normalized_url)
        finding.subquestion.sources.add(source)
        Event.decision(
            task_id=task.pk,
            stage=Gate.EVIDENCE_REVIEW,
            actor=actor,
            message=message(
                gettext_noop(
                    "Finding %(finding)s: %(url)s opened by hand as source %(source)s (%(count)s characters)."
                ),
                finding=finding.pk,
                url=url,
                source=source.pk,
                count=len(source.text),
            ),
            data={"finding": finding.pk, "decision": "open_source", "source": source.pk, "url": url},
        )
    return source


def span_of(text: str, passage: str) -> tuple[int, int]:
    """Where ``passage`` (pasted by the analyst) is in ``text``; it must occur exactly once."""
    passage = passage.strip()
    if not passage:
        raise ValidationError(_("Select a passage of the source, or give its start and end."))
    count = text.count(passage)
    if count == 0:
        raise ValidationError(_("That passage is not in the source's stored text, character for character."))
    if count > 1:
        raise ValidationError(
            _("That passage occurs %(n)s times in the source; give its start and end.") % {"n": count}
        )
    start = text.index(passage)
    return start, start + len(passage)


def _trimmed_span(text: str, start: int, end: int) -> tuple[int, int]:
    if not 0 <= start <= len(text) or not 0 <= end <= len(text):
        raise ValidationError(
            _("The passage must lie inside the source: characters 0 to %(n)s; you gave %(start)s to %(end)s.")
            % {"n": len(text), "start": start, "end": end}
        )
    if end <= start:
        raise ValidationError(_("The selected passage is empty."))
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    if start == end:
        raise ValidationError(_("The selected passage is empty."))
    if end - start > MAX_QUOTE_CHARS:
        raise ValidationError(
            _("Select at most %(n)s characters (a sentence or a paragraph).") % {"n": MAX_QUOTE_CHARS}
        )
    return start, end


def evidence_add_by_hand(
    *,
    finding: Finding,
    actor: User | None,
    source: Source,
    start: int,
    end: int,
    version_seen: int,
    note: str = "",
) -> Evidence:
    """Store ``source.text[start:end]`` as evidence for a [证据不足] item, which becomes supported.

    1. Refuse a decided or changed item, a source of another task, a span outside the snapshot or
       empty (whitespace at its ends is trimmed), or too long.
    2. Compare-and-set the item (version, undecided, still a gap) to supported, stating the quote.
    3. Store the quote (or reuse the passage already stored at that span), link it as the item's
       support and set the closest passages aside; record who added what.
    """
    _refuse_unless_open_gap(finding, version_seen)
    if source.task_id != finding.task_id:
        raise ValidationError(_("That source belongs to another task."))
    start, end = _trimmed_span(source.text, start, end)
    quote = source.text[start:end]
    with transaction.atomic():
        finding.decide(
            version_seen,
            still={"status": FindingStatus.INSUFFICIENT},
            status=FindingStatus.SUPPORTED,
            statement=" ".join(quote.split()),
            confidence="medium",
            resolution_note=note.strip(),
            resolved_by=actor,
            resolved_at=timezone.now(),
        )
        evidence = _supporting_quote(finding, source, start, end, actor=actor)
        added = _added_by_hand(finding, evidence, source, start, end)
        finding_decision_record(
            finding,
            actor=actor,
            message=with_note(added, note),
            data={
                "decision": "add_evidence",
                "evidence": evidence.pk,
                "source": source.pk,
                "start": start,
                "end": end,
                "sha256": source.sha256,
            },
        )
    finding.refresh_from_db()
    evidence.refresh_from_db()
    return evidence


def _supporting_quote(
    finding: Finding, source: Source, start: int, end: int, *, actor: User | None
) -> Evidence:
    """The quote at ``source.text[start:end]`` as the finding's only kept support: stored now, or the
    passage already stored at that span (a closest passage the analyst vouches for clears the bar)."""
    task = finding.task
    evidence, created = Evidence.objects.get_or_create(
        source=source,
        subquestion=finding.subquestion,
        start=start,
        end=end,
        defaults={
            "task": task,
            "quote": source.text[start:end],
            "round": task.round,
            "added_by": actor,
            "score": 1.0,
        },
    )
    if not created and not evidence.clears_bar:
        Evidence.objects.filter(pk=evidence.pk).update(clears_bar=True, added_by=actor)
    FindingEvidence.objects.filter(finding=finding).exclude(evidence=evidence).update(kept=False)
    FindingEvidence.objects.update_or_create(
        finding=finding, evidence=evidence, defaults={"stance": Stance.SUPPORTS, "kept": True}
    )
    return evidence


def _added_by_hand(finding: Finding, evidence: Evidence, source: Source, start: int, end: int) -> Message:
    """The audit's words for a span an analyst added to a [证据不足] item."""
    return message(
        gettext_noop(
            "Sub-question %(number)s, finding %(finding)s: E%(evidence)s added by hand from source "
            "%(source)s (%(host)s) [%(start)s:%(end)s]."
        ),
        number=finding.subquestion.order + 1,
        finding=finding.pk,
        evidence=evidence.pk,
        source=source.pk,
        host=source.host or source.url,
        start=start,
        end=end,
    )
