"""Forms: parse what the browser sends. The services keep the rules, so messages match theirs."""

from __future__ import annotations

from django import forms
from django.contrib.auth.forms import AuthenticationForm
from django.utils.translation import gettext_lazy as _

from researchapp.auth import DEMO_REFUSED, is_refused_demo_account
from researchapp.demo import DEMO_ACCOUNTS
from researchapp.models import ResearchTask
from researchapp.services.submission import validate_question


class SubmitForm(forms.Form):
    # Not ``required`` and no ``max_length``: the service's own messages say what is wrong.
    question = forms.CharField(
        required=False,
        strip=False,
        widget=forms.Textarea(
            attrs={
                "rows": 4,
                "data-testid": "submit-question",
                "placeholder": _("What do you want researched?"),
            }
        ),
    )
    depth = forms.ChoiceField(
        choices=ResearchTask.Depth.choices,
        initial=ResearchTask.Depth.QUICK,
        widget=forms.Select(attrs={"data-testid": "submit-depth"}),
    )

    def clean_question(self) -> str:
        return validate_question(self.cleaned_data.get("question", ""))


class LoginForm(AuthenticationForm):
    """Django's login form, which says plainly why a demo account cannot log in here."""

    def clean(self):
        if is_refused_demo_account(self.cleaned_data.get("username")):
            raise forms.ValidationError(
                DEMO_REFUSED % {"names": ", ".join(DEMO_ACCOUNTS)}, code="demo_account"
            )
        return super().clean()


def first_error(form: forms.Form) -> str:
    for messages in form.errors.values():
        return str(messages[0])
    return str(_("The form is incomplete."))
