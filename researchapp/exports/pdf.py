"""PDF export through WeasyPrint; Noto CJK renders Chinese text."""

from __future__ import annotations

from weasyprint import HTML

from researchapp.exports.html import markdown_html
from researchapp.exports.markdown import render_markdown
from researchapp.models import ReportDraft

STYLE = """
@page { size: A4; margin: 18mm 16mm;
        @bottom-right { content: counter(page) " / " counter(pages); font-size: 8pt; } }
body { font-family: "Noto Sans", "Noto Sans CJK SC", "Noto Sans CJK", "DejaVu Sans", sans-serif;
       font-size: 10.5pt; line-height: 1.5; color: #1b1b1b; }
h1 { font-size: 18pt; margin: 0 0 8pt; } h2 { font-size: 13pt; margin: 14pt 0 4pt; }
code { font-size: 8pt; word-break: break-all; } li { margin-bottom: 3pt; }
blockquote { margin: 4pt 0 4pt 8pt; padding-left: 8pt; border-left: 2pt solid #999; color: #333; }
"""


def render_pdf(draft: ReportDraft) -> bytes:
    body = markdown_html(render_markdown(draft))
    document = (
        '<!doctype html><html lang="en"><head><meta charset="utf-8">'
        f"<style>{STYLE}</style></head><body>{body}</body></html>"
    )
    return HTML(string=document).write_pdf()
