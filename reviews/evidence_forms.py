"""Forms of the evidence gate's manual evidence: a span of a stored source, or a page to open."""

from __future__ import annotations

from django import forms
from django.core.exceptions import ValidationError
from django.utils.translation import gettext_lazy as _

from reviews.forms import NOTE_MAX

PASSAGE_MAX = 4000


class ManualEvidenceForm(forms.Form):
    """A span of a stored source: its characters (``start``/``end``, filled by selecting text in the
    side panel, or typed), or the exact passage pasted (``quote``), found in the source by the service."""

    finding = forms.IntegerField(min_value=1)
    version = forms.IntegerField(min_value=1)
    source = forms.IntegerField(min_value=1, error_messages={"required": _("Choose a stored source.")})
    start = forms.IntegerField(min_value=0, required=False)
    end = forms.IntegerField(min_value=0, required=False)
    quote = forms.CharField(required=False, max_length=PASSAGE_MAX, strip=False)
    note = forms.CharField(required=False, max_length=NOTE_MAX)

    def clean(self):
        data = super().clean()
        has_span = data.get("start") is not None and data.get("end") is not None
        if not has_span and not (data.get("quote") or "").strip():
            raise ValidationError(_("Select a passage of the source, or give its start and end."))
        return data

    def posted(self) -> dict:
        """What was sent, to show again if it is refused (nothing typed is lost)."""
        return {
            "finding": self.cleaned_data.get("finding") or _int(self.data.get("finding")),
            "source": self.cleaned_data.get("source") or _int(self.data.get("source")),
            "start": self.data.get("start", ""),
            "end": self.data.get("end", ""),
            "quote": self.data.get("quote", ""),
            "note": self.data.get("note", ""),
        }


class OpenUrlForm(forms.Form):
    """A page for the fetcher to open. Any text is accepted here: the fetcher's guard says what it refuses."""

    finding = forms.IntegerField(min_value=1)
    version = forms.IntegerField(min_value=1)
    url = forms.CharField(
        max_length=2000, error_messages={"required": _("Paste the address of the page to open.")}
    )

    def posted(self) -> dict:
        return {"finding": _int(self.data.get("finding")), "url": self.data.get("url", "")}


def _int(raw) -> int | None:
    return int(raw) if isinstance(raw, str) and raw.isdigit() else None
