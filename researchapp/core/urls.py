"""URL normalisation: one source per normalised URL per task."""

from __future__ import annotations

from urllib.parse import urlsplit, urlunsplit


def normalize_url(url: str) -> str:
    """Drop the fragment, lower-case scheme and host, drop default ports and any trailing '/'.

    >>> normalize_url("HTTPS://Example.COM:443/a/#top")
    'https://example.com/a'
    """
    parts = urlsplit(url.strip())
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
    return (urlsplit(url).hostname or "").lower()
