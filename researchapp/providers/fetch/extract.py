"""Bytes → text: charset decoding and main-text extraction, the project's single extraction path.

``extract_html`` is what the fetcher, the demo corpus and the extraction benchmark all call, so a
page's snapshot does not depend on which of them produced it.
"""

from __future__ import annotations

import codecs
import re
import shutil
import subprocess
import unicodedata
from datetime import date

import trafilatura
from charset_normalizer import from_bytes
from htmldate import find_date
from lxml.etree import XPath
from lxml.html import HtmlElement
from trafilatura.metadata import examine_meta, extract_title
from trafilatura.utils import load_html

from researchapp.providers.base import ProviderError

# WHATWG's encoding labels, where they differ from Python's codec of the same name: browsers
# decode "iso-8859-1" as windows-1252 and "gb2312" as GBK, and so must we to show what readers saw.
_WHATWG_CODECS = {
    **dict.fromkeys(
        ("iso-8859-1", "iso8859-1", "latin1", "latin-1", "l1", "cp819", "ascii", "us-ascii"), "cp1252"
    ),
    **dict.fromkeys(("gb2312", "gbk", "x-gbk", "chinese", "csgb2312", "iso-ir-58", "gb_2312-80"), "gb18030"),
    **dict.fromkeys(("shift_jis", "sjis", "x-sjis", "ms_kanji", "windows-31j", "csshiftjis"), "cp932"),
    **dict.fromkeys(("euc-kr", "ks_c_5601-1987", "korean", "csksc56011987"), "cp949"),
    **dict.fromkeys(("tis-620", "iso-8859-11"), "cp874"),
    **dict.fromkeys(("iso-8859-9", "latin5", "l5"), "cp1254"),
    "big5": "big5hkscs",
}
_BOMS = (
    (codecs.BOM_UTF8, "utf-8-sig"),
    (codecs.BOM_UTF32_LE, "utf-32"),  # before UTF-16 LE: its BOM starts the same way
    (codecs.BOM_UTF32_BE, "utf-32"),
    (codecs.BOM_UTF16_LE, "utf-16"),
    (codecs.BOM_UTF16_BE, "utf-16"),
)
_META_CHARSET = re.compile(rb"""<meta[^>]+?charset\s*=\s*["']?\s*([a-z0-9_.:+-]+)""", re.IGNORECASE)
_XML_ENCODING = re.compile(rb"""^\s*<\?xml[^>]+encoding\s*=\s*["']([a-z0-9_.:+-]+)""", re.IGNORECASE)
_XML_DECLARATION = re.compile(r"^\s*<\?xml[^>]*\?>")
_SNIFF_BYTES = 8192
_TEXT_CONTROLS = frozenset("\t\n\r\f\v")


def python_codec(label: str) -> str | None:
    """The Python codec for an encoding label, the WHATWG way; None for an unknown label."""
    label = label.strip().strip("\"'").lower()
    name = _WHATWG_CODECS.get(label, label)
    try:
        return codecs.lookup(name).name
    except LookupError:
        return None


def declared_charset(head: bytes) -> str | None:
    """The charset a page declares in its own markup (``<meta>`` or the XML declaration)."""
    match = _META_CHARSET.search(head) or _XML_ENCODING.search(head)
    if not match:
        return None
    label = match.group(1).decode("ascii", "ignore").lower()
    # A page that reached us as bytes without a BOM cannot be UTF-16, whatever its meta says.
    return "utf-8" if label.startswith("utf-16") else label


def _looks_binary(text_start: str) -> bool:
    controls = sum(1 for ch in text_start if ch not in _TEXT_CONTROLS and unicodedata.category(ch) == "Cc")
    return controls > max(8, len(text_start) // 20)


def decode_body(body: bytes, header_charset: str | None = None, *, is_html: bool = True) -> str:
    """Decode a page the way a browser would, or raise ``unsupported_content`` for binary data.

    1. A byte-order mark wins (it cannot be there by accident).
    2. NUL bytes mean binary data served under a text type.
    3. The HTTP charset, then the page's own declaration, each only if the bytes decode cleanly.
    4. Plain UTF-8, then statistical detection (charset_normalizer), then UTF-8 with replacements.
    """
    for bom, codec in _BOMS:
        if body.startswith(bom):
            return body.decode(codec, errors="replace")
    if b"\x00" in body[:_SNIFF_BYTES]:
        raise ProviderError("binary content served as text (NUL bytes)", code="unsupported_content")
    labels = [header_charset or ""]
    if is_html:
        labels.append(declared_charset(body[:_SNIFF_BYTES]) or "")
    declared = [known for label in labels if label and (known := python_codec(label))]
    text = None
    for codec in [*declared, "utf-8"]:
        try:
            text = body.decode(codec)
            break
        except UnicodeDecodeError:
            continue
    if text is None:
        text = _detect_and_decode(body, fallback=declared[0] if declared else "utf-8")
    if _looks_binary(text[:_SNIFF_BYTES]):
        raise ProviderError("binary content served as text (control characters)", code="unsupported_content")
    return text


def _detect_and_decode(body: bytes, *, fallback: str) -> str:
    best = from_bytes(body).best()
    codec = python_codec(best.encoding) if best is not None else None
    return body.decode(codec or fallback, errors="replace")


def _clean_line(text: str | None, limit: int = 500) -> str:
    return " ".join((text or "").split())[:limit]


_SOCIAL_TITLE = XPath(
    '(//head/meta[@property="og:title" or @name="og:title" or @name="twitter:title"]/@content)[1]'
)


def _title(tree: HtmlElement) -> str:
    # og:/twitter: titles are the headline without the site's name, and one XPath finds them;
    # trafilatura's broader (slower) look at Dublin Core, <title> and <h1> is the fallback.
    social = _SOCIAL_TITLE(tree)
    return _clean_line((social[0] if social else "") or examine_meta(tree).title or extract_title(tree))


def _published(tree: HtmlElement, url: str) -> date | None:
    # extensive_search=False: headers, JSON-LD and <time> only. Free-text guessing found one date
    # more in 120 real pages and is the usual source of wrong dates (copyright lines, comments).
    found = find_date(tree, url=url or None, original_date=True, extensive_search=False)
    try:
        return date.fromisoformat(found) if found else None
    except ValueError:
        return None


SHORT_TEXT = 200  # characters: below this, favor_recall's text is checked against favor_precision's


def extract_html(html: str, url: str = "") -> tuple[str, str, date | None]:
    """Return ``(title, main text, published date)`` of an HTML page; empty text if none is found.

    The page is parsed once: trafilatura works on its own copy of the tree, so title and date
    are read afterwards from the untouched original. Reading them with
    ``trafilatura.extract_metadata`` would cost as much again as the extraction itself.
    """
    # lxml refuses str input that declares an encoding; trafilatura then re-encodes it as UTF-8
    # and lxml would decode that with the declared (wrong) charset.
    tree = load_html(_XML_DECLARATION.sub("", html, count=1))
    if tree is None:
        return "", "", None
    # favor_recall: favor_precision (word 4-shingle F1 0.974 on the real-page extraction set, against
    # 0.965 here) drops a list nested in a list item ("an upper bound on:" and its items, on a manual
    # page whose sections are an <ol>), and manuals state their values in such lists; the text stays
    # above plain trafilatura's 0.958 (bench.extraction).
    text = trafilatura.extract(tree, url=url or None, include_comments=False, favor_recall=True) or ""
    if len(text) < SHORT_TEXT:
        # A short text may be a menu read as content ("Home" of an app shell): precision decides.
        text = trafilatura.extract(tree, url=url or None, include_comments=False, favor_precision=True) or ""
    if not text.strip():
        return "", "", None
    return _title(tree), text, _published(tree, url)


def plain_text(text: str) -> tuple[str, str]:
    """``(title, text)`` of a text/plain page: the text itself, its first short line as title."""
    text = text.replace("\r\n", "\n").replace("\r", "\n").strip()
    first_line = next((line.strip() for line in text.split("\n") if line.strip()), "")
    return (first_line if len(first_line) <= 200 else ""), text


def pdf_text(body: bytes, *, timeout: float) -> str:
    """The text of a PDF, through poppler's ``pdftotext`` when it is installed.

    An external program rather than a Python PDF library: no new dependency (CI installs it to
    check exported reports), and a crash or a hang on a hostile file stays in its own process,
    bounded by ``timeout``. Where it is not installed, PDFs are refused as ``unsupported_content``.
    """
    program = shutil.which("pdftotext")
    if program is None:
        raise ProviderError(
            "a PDF, and pdftotext (poppler-utils) is not installed", code="unsupported_content"
        )
    try:
        done = subprocess.run(
            [program, "-q", "-enc", "UTF-8", "-nopgbrk", "-", "-"],
            input=body,
            capture_output=True,
            timeout=max(0.1, timeout),
            check=False,
        )
    except subprocess.TimeoutExpired as error:
        raise ProviderError(
            f"a PDF that pdftotext could not read within {timeout:.1f}s", code="unsupported_content"
        ) from error
    if done.returncode != 0:
        raise ProviderError(
            f"an unreadable PDF (pdftotext exit status {done.returncode})", code="unsupported_content"
        )
    return _join_pdf_lines(done.stdout.decode("utf-8", errors="replace"))


def _join_pdf_lines(text: str) -> str:
    """pdftotext breaks every printed line; rejoin them so that a paragraph is one line again,
    as in the text trafilatura gives for HTML (the evidence stage picks passages by line).

    A paragraph ends at a blank line, at a line much shorter than the column (a heading, or the
    last line of a paragraph) or at a shorter line that ends a sentence. A line ending in "-" is
    joined without a space: that keeps "well-known" whole, where dropping the hyphen would not.
    """
    paragraphs: list[str] = []
    for block in re.split(r"\n\s*\n", text.replace("\r\n", "\n").replace("\f", "\n\n")):
        lines = [line.strip() for line in block.split("\n") if line.strip()]
        if not lines:
            continue
        column = sorted(len(line) for line in lines)[int(0.9 * (len(lines) - 1))]
        paragraph = ""
        for line in lines:
            paragraph += line if not paragraph or paragraph.endswith("-") else f" {line}"
            short = len(line) < 0.6 * column
            ends_sentence = line.endswith((".", "!", "?", ":", '"', "”")) and len(line) < 0.85 * column
            if short or ends_sentence:
                paragraphs.append(paragraph)
                paragraph = ""
        if paragraph:
            paragraphs.append(paragraph)
    return "\n".join(paragraphs)
