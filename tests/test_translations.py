"""Every word a person reads goes through gettext (or, inside a report, the report's own labels in its
language): the house rule checked on the code and the templates, and a few pages read in Chinese."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest
from django.conf import settings
from django.test import Client
from django.urls import reverse
from django.utils import translation

from researchapp.exports.markdown import render_markdown
from researchapp.exports.pdf import print_html
from researchapp.exports.report import report_of
from researchapp.models import ResearchTask
from tests.factories import TaskFactory, plan_review_task, report_review_task
from tests.helpers import client_for

ROOT = Path(__file__).resolve().parent.parent
# What a person reads when it is raised or said: a refusal's message, a page's message, a status' body.
# (``IllegalTransition`` is a bug, not a refusal: the views that may meet it say their own words.)
RAISED = {"PermissionDenied", "ValidationError", "StaleState", "Http404", "BadRequest", "BadParameter"}
RAISED |= {"HttpResponseBadRequest", "PdfRenderError"}
SAID = {"error", "success", "info", "warning"}  # messages.<level>(request, text)
# Outside the people's pages: the command line, settings, start-up checks, the pipeline's own text.
NOT_PAGES = ("migrations", "management", "pipeline", "providers", "settings")


def _plain(node: ast.expr) -> bool:
    """A string written in the code (a literal or an f-string), not one gettext returned."""
    literal = isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value.strip()
    return bool(literal) or isinstance(node, ast.JoinedStr)


def plain_words(path: Path, root: Path = ROOT) -> list[str]:
    """``file:line what`` of each message a person would read in English whatever their language."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
        if not isinstance(node, ast.Call) or not node.args:
            continue
        func = node.func
        name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
        said = (
            isinstance(func, ast.Attribute) and getattr(func.value, "id", "") == "messages" and name in SAID
        )
        answered = name == "HttpResponse" and any(keyword.arg == "status" for keyword in node.keywords)
        text = node.args[1] if said and len(node.args) > 1 else node.args[0]
        if (said or answered or name in RAISED) and _plain(text):
            found.append(f"{path.relative_to(root)}:{node.lineno} {name}")
    return found


def code_files() -> list[Path]:
    files = [*(ROOT / "researchapp").rglob("*.py"), *(ROOT / "reviews").rglob("*.py")]
    return sorted(path for path in files if not any(part in path.parts for part in NOT_PAGES))


def test_every_refusal_and_message_a_person_reads_goes_through_gettext():
    files = code_files()
    assert ROOT / "researchapp/views.py" in files and ROOT / "reviews/selectors/queues.py" in files
    assert [where for path in files for where in plain_words(path)] == []


def test_the_rule_sees_plain_words(tmp_path):
    # given a view that says something in English only
    view = tmp_path / "view.py"
    view.write_text('def v(request):\n    messages.error(request, f"No {x}.")\n    raise Http404("Gone.")\n')
    # then the rule names both places
    assert plain_words(view, root=tmp_path) == ["view.py:2 error", "view.py:3 Http404"]


# Words in templates that are not language: a key's name, a format's terms, a URL's parameter names.
TEMPLATE_TERMS = {
    "base.html": {"Esc"},
    "partials/add_evidence.html": {"https"},  # the address field's example, "https://…"
    "partials/report_document.html": {"DOI", "sha256"},
    "review_queue.html": {"queue", "task", "owner", "age", "claim", "sort", "newest", "oldest"},
}
NOT_TEXT = [
    r"\{%\s*blocktranslate.*?endblocktranslate\s*%\}",
    r"\{#.*?#\}",
    r"\{%\s*comment\s*%\}.*?\{%\s*endcomment\s*%\}",
    r"<script.*?</script>",
    r"<style.*?</style>",
    r"\{%.*?%\}",
    r"\{\{.*?\}\}",
]
READ_ATTRIBUTES = re.compile(r'\b(?:aria-label|title|placeholder|alt)="([^"]*)"')


def template_words(path: Path) -> set[str]:
    """The English words a template writes that no translate tag and no variable produce."""
    html = path.read_text()
    for pattern in NOT_TEXT:
        html = re.sub(pattern, " ", html, flags=re.S)
    attributes = " ".join(READ_ATTRIBUTES.findall(html))
    text = re.sub(r"<[^>]*>", " ", html, flags=re.S) + " " + attributes
    return set(re.findall(r"[A-Za-z][A-Za-z0-9]+", text))


def test_templates_write_no_english_of_their_own():
    folder = ROOT / "templates"
    pages = sorted([*folder.rglob("*.html"), *folder.rglob("*.txt")])
    assert len(pages) > 30
    english = {
        name: words
        for path in pages
        if (words := template_words(path) - TEMPLATE_TERMS.get(name := str(path.relative_to(folder)), set()))
    }
    assert english == {}


# --- pages read in Chinese --------------------------------------------------------------------------


def chinese(user) -> Client:
    client = client_for(user)
    client.cookies[settings.LANGUAGE_COOKIE_NAME] = "zh-hans"
    return client


@pytest.mark.django_db
def test_a_researcher_reading_chinese_is_told_in_chinese(researcher):
    client = chinese(researcher)
    # an empty question
    refused = client.post(reverse("task_submit"), {"question": "   ", "depth": "quick"})
    assert refused.status_code == 400 and "问题为空。请输入您想研究的内容。" in refused.content.decode()
    # a cancel, and a resume of a task that is neither failed nor stalled
    task = TaskFactory(owner=researcher, status=ResearchTask.Status.PLANNING)
    cancelled = client.post(reverse("task_cancel", args=[task.pk]), follow=True).content.decode()
    assert "任务已取消。" in cancelled and "The task is cancelled." not in cancelled
    resumed = client.post(reverse("task_resume", args=[task.pk]), follow=True).content.decode()
    assert "只有失败或停滞的任务才能恢复。" in resumed
    # an export before there is an approved report
    export = client.get(reverse("export_markdown", args=[task.pk]))
    assert export.status_code == 409 and "还没有已批准的报告" in export.content.decode()


@pytest.mark.django_db
def test_an_analyst_reading_chinese_is_refused_in_chinese(analyst, researcher):
    task = plan_review_task(researcher).task
    bad_row = chinese(analyst).get(reverse("plan_queries", args=[task.pk]), {"row": "²"})
    assert bad_row.status_code == 400 and "必须是用数字 0–9 书写" in bad_row.content.decode()
    audit = chinese(analyst).get(reverse("desk_audit"), {"task": "abc"})
    assert audit.status_code == 400 and "请用编号指明任务，例如 12 或 #12。" in audit.content.decode()
    denied = chinese(researcher).post(reverse("plan_review", args=[task.pk]), {"action": "save"})
    assert denied.status_code == 403 and "只有分析员可以作出审核决定。" in denied.content.decode()


@pytest.mark.django_db
def test_a_chinese_reports_title_block_is_in_chinese_whatever_the_readers_language(researcher):
    # given a checked draft of a question asked in Chinese
    scenario = report_review_task(researcher, question="港城有轨电车每天载客多少？")
    with translation.override("en"):
        report = report_of(scenario.draft)
        markdown = render_markdown(scenario.draft)
        html = print_html(report, Path("/nonexistent/font.otf"))
    # then the Markdown's title line and the PDF's title block and footer are in the report's language
    assert f"任务 {scenario.task.pk}，报告 v1，" in markdown and "（未批准）" in markdown
    assert "<dt>撰写</dt>" in html and f"研究台 · 任务 {scenario.task.pk} · 报告 v1" in html
    assert "report version" not in html and "Research desk" not in html
