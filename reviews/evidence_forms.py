"""Forms of the evidence gate's manual evidence: a span of a stored source, or a page to open."""

from __future__ import annotations

from django import forms
from django.core.exceptions import ValidationError
from django.utils.translation import gettext_lazy as _

from researchapp.web import WholeNumberField, whole_number
from reviews.forms import NOTE_MAX

PASSAGE_MAX = 4000


class ManualEvidenceForm(forms.Form):
    """A span of a stored source: its characters (``start``/``end``, filled by selecting text in the
    side panel, or typed), or the exact passage pasted (``quote``), found in the source by the service."""

    finding = WholeNumberField()
    version = WholeNumberField()
    source = WholeNumberField(error_messages={"required": _("Choose a stored source.")})
    start = WholeNumberField(min_value=0, required=False)
    end = WholeNumberField(min_value=0, required=False)
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
            "finding": self.cleaned_data.get("finding") or whole_number(self.data.get("finding"), minimum=1),
            "source": self.cleaned_data.get("source") or whole_number(self.data.get("source"), minimum=1),
            "start": self.data.get("start", ""),
            "end": self.data.get("end", ""),
            "quote": self.data.get("quote", ""),
            "note": self.data.get("note", ""),
        }


class OpenUrlForm(forms.Form):
    """A page for the fetcher to open. Any text is accepted here: the fetcher's guard says what it refuses."""

    finding = WholeNumberField()
    version = WholeNumberField()
    url = forms.CharField(
        max_length=2000, error_messages={"required": _("Paste the address of the page to open.")}
    )

    def posted(self) -> dict:
        return {"finding": whole_number(self.data.get("finding"), minimum=1), "url": self.data.get("url", "")}
