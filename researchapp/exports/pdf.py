"""PDF export: the report's print HTML (the same report model as the page), rendered by WeasyPrint in a
child process that fetches nothing but the project's own font, and is stopped after a time limit."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from django.conf import settings
from django.template.loader import render_to_string
from django.utils.translation import gettext as _

from researchapp.core.text import visible_text
from researchapp.exports.fonts import FAMILY, pdf_font
from researchapp.exports.report import Report, approval_text, report_of
from researchapp.models import ReportDraft

RENDERER = Path(__file__).with_name("pdf_render.py")


class PdfRenderError(RuntimeError):
    """The PDF could not be made (the renderer failed or ran past its time limit); the message says why."""


def title_block(report: Report) -> dict[str, str]:
    """The PDF's title block and page footer, in the report's language."""
    words, draft = report.labels, report.draft
    written = words.written_by.format(
        when=f"{draft.created_at:%Y-%m-%d %H:%M}",
        engine=report.method.engine,
        quotes=len(report.appendix),
        sources=len(report.references),
    )
    return {
        "task": words.task_version.format(task=report.task.pk, version=draft.version),
        "status": approval_text(report),
        "written": written,
        "footer": words.footer.format(task=report.task.pk, version=draft.version),
    }


def print_html(report: Report, font: Path) -> str:
    context = {
        "report": report,
        "title_block": title_block(report),
        "font_family": FAMILY,
        "font_url": font.resolve().as_uri(),
    }
    # Bidirectional controls would print text reversed; zero-width spaces hide words: left out.
    return visible_text(render_to_string("exports/report_print.html", context))


def pdf_from_html(html: str, *, fonts: list[Path], seconds: float | None = None) -> bytes:
    """Run the renderer (``pdf_render.py``) on ``html``; it may read ``fonts`` and nothing else."""
    limit = seconds or settings.RESEARCH["PDF_SECONDS"]
    command = [sys.executable, "-P", str(RENDERER), *(str(font) for font in fonts)]
    try:
        done = subprocess.run(command, input=html.encode("utf-8"), capture_output=True, timeout=limit)
    except subprocess.TimeoutExpired:
        raise PdfRenderError(
            _("Rendering the PDF took longer than %(seconds)s s and was stopped.") % {"seconds": f"{limit:g}"}
        ) from None
    if done.returncode != 0 or not done.stdout.startswith(b"%PDF"):
        reason = done.stderr.decode("utf-8", "replace").strip().splitlines()[-1:] or ["no output"]
        raise PdfRenderError(_("The PDF renderer failed: %(reason)s") % {"reason": reason[0][:300]})
    return done.stdout


def render_pdf(draft: ReportDraft) -> bytes:
    font = pdf_font()
    return pdf_from_html(print_html(report_of(draft), font), fonts=[font])
