"""URL normalisation: one source per normalised URL per task.

URLs come from outside (search results, redirects, corpus files), so nothing here raises on one: a
URL that cannot be parsed (a port past 65535, an unclosed ``[`` of an IPv6 host) is kept as its own
key, and ``url_problem`` says what is wrong with it where a caller must refuse it.
"""

from __future__ import annotations

from urllib.parse import SplitResult, urlsplit, urlunsplit

MAX_URL_CHARS = 2000  # the URL columns' length


def _split(url: str) -> SplitResult | None:
    """The URL's parts, or None if it cannot be parsed (the port is read here too: it raises late)."""
    try:
        parts = urlsplit(url)
        _ = parts.port
    except ValueError:
        return None
    return parts


def url_problem(url: str) -> str:
    """Why ``url`` cannot name a document ("" if it can): it must be parsed whole, port included,
    and hold no control character (a line break in a link is a header or markup injection)."""
    if not url.strip():
        return "the url is empty"
    if len(url) > MAX_URL_CHARS:
        return f"the url is longer than {MAX_URL_CHARS:,} characters"
    if any(ord(character) < 32 or ord(character) == 127 for character in url):
        return "the url holds a control character"
    try:
        _ = urlsplit(url).port
    except ValueError as error:
        return f"the url cannot be parsed ({error})"
    return ""


def normalize_url(url: str) -> str:
    """Drop the fragment, lower-case scheme and host, drop default ports and any trailing '/'.

    A URL that cannot be parsed is its own key, without its fragment: it names one document, and
    one bad URL never stops the stage that meets it.

    >>> normalize_url("HTTPS://Example.COM:443/a/#top")
    'https://example.com/a'
    >>> normalize_url("http://x:99999/#a")
    'http://x:99999/'
    """
    url = url.strip()
    parts = _split(url)
    if parts is None:
        return url.partition("#")[0]
    scheme = parts.scheme.lower()
    host = (parts.hostname or "").lower()
    port = parts.port
    if port and not ((scheme == "http" and port == 80) or (scheme == "https" and port == 443)):
        host = f"{host}:{port}"
    if parts.username:
        host = f"{parts.username}@{host}"
    path = parts.path.rstrip("/") or "/"
    return urlunsplit((scheme, host, path, parts.query, ""))


def url_host(url: str) -> str:
    try:
        return (urlsplit(url).hostname or "").lower()
    except ValueError:  # an unclosed "[": no host can be read
        return ""
