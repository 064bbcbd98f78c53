"""The form of one verdict on a hypothesis at the evidence gate."""

from __future__ import annotations

from django import forms
from django.utils.translation import gettext_lazy as _

from researchapp.services.hypotheses import DECISIONS
from researchapp.web import WholeNumberField
from reviews.forms import NOTE_MAX


class HypothesisDecisionForm(forms.Form):
    hypothesis = WholeNumberField(widget=forms.HiddenInput)
    version = WholeNumberField(widget=forms.HiddenInput)
    decision = forms.ChoiceField(
        choices=[(name, name.replace("_", " ")) for name in DECISIONS],
        error_messages={"invalid_choice": _("Choose accept, reject or keep open.")},
    )
    note = forms.CharField(required=False, max_length=NOTE_MAX)
