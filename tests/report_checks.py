"""What the report tests look at: a listener that records every connection, and readers of each
rendering (the page's HTML, the Markdown as a CommonMark renderer shows it, the PDF's text and links)."""

from __future__ import annotations

import socket
import subprocess
import threading
from dataclasses import dataclass, field
from html.parser import HTMLParser
from io import BytesIO
from pathlib import Path

from markdown_it import MarkdownIt
from pypdf import PdfReader


class Listener:
    """A TCP listener on 127.0.0.1 that accepts and records every connection (and answers nothing)."""

    def __init__(self) -> None:
        self.server = socket.socket()
        self.server.bind(("127.0.0.1", 0))
        self.server.listen(16)
        self.server.settimeout(0.2)
        self.port = self.server.getsockname()[1]
        self.connections: list[bytes] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._serve, daemon=True)

    def _serve(self) -> None:
        while not self._stop.is_set():
            try:
                conn, _ = self.server.accept()
            except TimeoutError:
                continue
            conn.settimeout(0.5)
            try:
                self.connections.append(conn.recv(2048))
            except OSError:
                self.connections.append(b"")
            conn.close()

    def __enter__(self) -> Listener:
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        self._thread.join(timeout=5)
        self.server.close()


@dataclass
class HtmlAudit(HTMLParser):
    """Every tag, link, heading and comment of an HTML fragment, and its text."""

    tags: list[str] = field(default_factory=list)
    links: list[str] = field(default_factory=list)
    headings: list[str] = field(default_factory=list)
    comments: list[str] = field(default_factory=list)
    text: list[str] = field(default_factory=list)
    _heading: list[str] | None = None

    def __post_init__(self) -> None:
        super().__init__(convert_charrefs=True)

    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)
        values = dict(attrs)
        if tag == "a" and "href" in values:
            self.links.append(values["href"] or "")
        if tag in ("h1", "h2", "h3", "h4", "h5", "h6"):
            self._heading = []

    def handle_endtag(self, tag):
        if tag in ("h1", "h2", "h3", "h4", "h5", "h6") and self._heading is not None:
            self.headings.append(" ".join("".join(self._heading).split()))
            self._heading = None

    def handle_data(self, data):
        self.text.append(data)
        if self._heading is not None:
            self._heading.append(data)

    def handle_comment(self, data):
        self.comments.append(data)

    @property
    def words(self) -> str:
        return " ".join("".join(self.text).split())


def audit_html(html: str) -> HtmlAudit:
    audit = HtmlAudit()
    audit.feed(html)
    audit.close()
    return audit


def markdown_as_html(markdown: str) -> tuple[str, list[str]]:
    """The Markdown as a CommonMark renderer (raw HTML allowed, tables on) shows it, and the kinds of
    raw HTML it passed through (there should be none)."""
    renderer = MarkdownIt("commonmark", {"html": True}).enable("table")
    tokens = renderer.parse(markdown)
    raw = [t.type for t in tokens if t.type == "html_block"]
    raw += [c.type for t in tokens for c in (t.children or []) if c.type == "html_inline"]
    return renderer.render(markdown), raw


def pdf_words(pdf: bytes) -> str:
    text = subprocess.run(["pdftotext", "-", "-"], input=pdf, capture_output=True, check=True).stdout
    return " ".join(text.decode().split())


def pdf_links(pdf: bytes) -> tuple[list[str], list[str], set[str]]:
    """(URIs of external links, names of internal link destinations, every named destination)."""
    reader = PdfReader(BytesIO(pdf))
    uris, dests = [], []
    for page in reader.pages:
        for annot in page.get("/Annots") or []:
            annot = annot.get_object()
            if annot.get("/Subtype") != "/Link":
                continue
            action = annot.get("/A")
            if action is not None and action.get("/S") == "/URI":
                uris.append(str(action["/URI"]))
            elif "/Dest" in annot:
                dests.append(str(annot["/Dest"]))
    return uris, dests, set(reader.named_destinations)


def pdf_images(pdf: bytes) -> int:
    return sum(len(page.images) for page in PdfReader(BytesIO(pdf)).pages)


def pdf_fonts(pdf_path: Path, env: dict[str, str] | None = None) -> str:
    return subprocess.run(
        ["pdffonts", str(pdf_path)], capture_output=True, check=True, text=True, env=env
    ).stdout


def assert_inputs_cited(report, pdf: bytes) -> None:
    """Every input of every computed figure of ``report`` (``exports.report.Report``) cites one quote,
    two inputs of a figure two different ones, each in the appendix and linked to it in ``pdf``."""
    appendix = {quote.evidence_id for quote in report.appendix}
    _, dests, named = pdf_links(pdf)
    for record in report.computed:
        ids = [i for shown in record.passages for i in shown.cites]
        assert len(ids) == len(record.passages) == len(set(ids)), record
        assert all(shown.quote is not None for shown in record.passages)
        assert set(ids) <= appendix and set(ids) <= set(report.document.quoted_ids())
        assert {f"e{i}" for i in ids} <= set(dests) and {f"e{i}" for i in ids} <= named
