"""Start-up checks (Django's system checks: ``migrate``, ``runserver`` and ``check`` run them)."""

from __future__ import annotations

from django.core.checks import Error, register

from researchapp.exports.fonts import PACKAGE, FontMissing, font_collection


@register()
def pdf_font_installed(app_configs=None, **kwargs) -> list[Error]:
    """The PDF's CJK font comes with the project's requirements; without it [证据不足] prints as boxes."""
    try:
        font_collection()
    except FontMissing as error:
        return [Error(str(error), hint=f"Run `make install` (it installs {PACKAGE}).", id="researchapp.E001")]
    return []
