"""Render one HTML document to PDF, in a process of its own, fetching nothing but the named font files.

Run as ``python -P pdf_render.py FONT_FILE...`` with the HTML on standard input; the PDF comes out on
standard output. A process of its own lets the caller stop a rendering that runs too long (it is
killed, not abandoned), and keeps the font's memory out of the web and worker processes.
``-P`` keeps this folder off ``sys.path``, so none of its modules (``markdown.py``, ``pdf.py``, ...)
can shadow an installed package of the same name. This file imports nothing of the project: it runs
without Django.
"""

from __future__ import annotations

import sys
from pathlib import Path

from weasyprint import HTML
from weasyprint.urls import URLFetcher, URLFetcherResponse


class LocalFontsOnly(URLFetcher):
    """Refuses every URL (http, https, file, data, anything) except the font files it was given."""

    def __init__(self, fonts: list[Path]):
        super().__init__(allowed_protocols=("file",), allow_redirects=False)
        self.fonts = {font.resolve().as_uri(): font.resolve() for font in fonts}
        self.refused: list[str] = []

    def fetch(self, url: str, headers=None) -> URLFetcherResponse:
        font = self.fonts.get(url)
        if font is None:
            self.refused.append(url)
            raise ValueError(f"the PDF renderer fetches nothing: {url[:200]!r} refused")
        return URLFetcherResponse(url, font.read_bytes(), {"Content-Type": "font/otf"})


def main() -> int:
    fetcher = LocalFontsOnly([Path(name) for name in sys.argv[1:]])
    html = sys.stdin.buffer.read().decode("utf-8")
    # No base URL: a relative address has nothing to resolve against, so it is never fetched either.
    pdf = HTML(string=html, url_fetcher=fetcher).write_pdf()
    sys.stdout.buffer.write(pdf)
    for url in fetcher.refused:
        print(f"refused {url[:200]}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
