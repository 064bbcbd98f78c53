"""SSRF guard: the fetcher opens only public addresses, unless a host is explicitly allowed.

The decision (`is_public_address`) is a pure function on ``ipaddress`` objects, so it is tested
without connecting anywhere. `check_url` resolves the host and checks EVERY address it resolves
to: an attacker who controls DNS can return one public and one private address, and the
connection may use either.

DNS rebinding: a name can resolve to a public address when checked and to a private one a moment
later when the HTTP client connects. `resolve_checked` returns the addresses it approved so the
caller can connect to exactly those; ``client.py`` does this through its pinned network backend
(``PinnedBackend``), which closes the gap for every connection the fetcher makes (including each
redirect hop).
"""

from __future__ import annotations

import ipaddress
import re
import socket
from collections.abc import Callable, Iterable, Sequence
from typing import Any
from urllib.parse import urlsplit

from researchapp.providers.base import ProviderError

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address
# Called like ``socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)``; tests inject fakes.
Resolver = Callable[..., Sequence[tuple[Any, ...]]]

ALLOWED_SCHEMES = frozenset({"http", "https"})

# Python's flags miss some of these (CGNAT is neither "private" nor "reserved"), and the metadata
# addresses are listed by name so the refusal message can say what was hit.
_CGNAT = ipaddress.ip_network("100.64.0.0/10")
_METADATA_ADDRESSES = frozenset(
    {
        ipaddress.ip_address("169.254.169.254"),  # AWS, GCP, Azure, OpenStack
        ipaddress.ip_address("fd00:ec2::254"),  # AWS over IPv6
        ipaddress.ip_address("100.100.100.200"),  # Alibaba Cloud
    }
)
# IPv6 prefixes that carry an IPv4 address in their last 32 bits and are routed to it.
_NAT64 = (ipaddress.ip_network("64:ff9b::/96"), ipaddress.ip_network("64:ff9b:1::/48"))


def blocked_reason(ip: IPAddress) -> str | None:
    """Why ``ip`` must not be fetched, or None if it is a public unicast address."""
    if ip in _METADATA_ADDRESSES:
        return "a cloud metadata address"
    if isinstance(ip, ipaddress.IPv6Address):
        # An IPv6 form of an IPv4 address reaches that IPv4 host: judge the embedded address.
        # (Teredo is left to the flags below: Python counts 2001::/32 as non-global anyway.)
        embedded = ip.ipv4_mapped or ip.sixtofour
        if embedded is None and any(ip in net for net in _NAT64):
            embedded = ipaddress.IPv4Address(int(ip) & 0xFFFFFFFF)
        if embedded is not None:
            inner = blocked_reason(embedded)
            return f"an IPv6 form of {embedded}, {inner}" if inner else None
        if ip.is_site_local:
            return "a site-local address"
    if ip.is_unspecified:
        return "an unspecified address"
    if ip.is_loopback:
        return "a loopback address"
    if ip.is_link_local:
        return "a link-local address"
    if ip.is_multicast:
        return "a multicast address"
    if isinstance(ip, ipaddress.IPv4Address) and ip in _CGNAT:
        return "a carrier-grade NAT address"
    if ip.is_private:
        return "a private address"
    if ip.is_reserved:
        return "a reserved address"
    if not ip.is_global:  # documentation ranges, benchmarking nets and whatever the IANA adds
        return "a non-global address"
    return None


def is_public_address(ip: IPAddress) -> bool:
    """True only for public unicast addresses the fetcher may connect to."""
    return blocked_reason(ip) is None


def _blocked(url: str, reason: str) -> ProviderError:
    return ProviderError(f"refused to fetch {url}: {reason}", retryable=False, code="blocked_address")


def host_is_allowed(host: str, port: int, allowed_hosts: Iterable[str]) -> bool:
    """True if ``host`` or ``host:port`` is listed (``[v6]:port`` for IPv6 literals)."""
    host = host.lower().strip("[]")
    shown = f"[{host}]" if ":" in host else host
    candidates = {host, shown, f"{shown}:{port}"}
    return any(entry.strip().lower() in candidates for entry in allowed_hosts)


def _parse_ip(text: str) -> IPAddress | None:
    try:
        # getaddrinfo may append an IPv6 zone ("fe80::1%eth0"); the zone does not change the verdict.
        return ipaddress.ip_address(text.split("%", 1)[0])
    except ValueError:
        return None


_LEGACY_IPV4 = re.compile(r"[0-9][0-9a-fx.]*", re.IGNORECASE)


def _literal_ip(host: str) -> IPAddress | None:
    """An IP written in the URL, including the forms only inet_aton reads ("2130706433",
    "0x7f.1", "127.1"): getaddrinfo accepts them as numbers and a naive check would not."""
    ip = _parse_ip(host)
    if ip is None and _LEGACY_IPV4.fullmatch(host):
        try:
            ip = ipaddress.IPv4Address(socket.inet_aton(host))  # parses text only, no network
        except OSError:
            return None
    return ip


def _resolve(url: str, host: str, port: int, resolve: Resolver) -> list[str]:
    literal = _literal_ip(host)
    if literal is not None:  # no DNS for literals, and no chance for a resolver to reinterpret them
        return [str(literal)]
    try:
        infos = resolve(host, port, type=socket.SOCK_STREAM)
    except socket.gaierror as error:
        # EAI_AGAIN is a temporary resolver failure; a name that does not exist will not appear.
        retryable = error.errno == socket.EAI_AGAIN
        raise ProviderError(
            f"could not resolve {host} for {url}: {error}", retryable=retryable, code="dns_failed"
        ) from error
    addresses: list[str] = []
    for info in infos:
        address = str(info[4][0])
        if address not in addresses:
            addresses.append(address)
    if not addresses:
        raise ProviderError(f"{host} resolved to no address ({url})", code="dns_failed")
    return addresses


def resolve_checked(
    host: str,
    port: int,
    *,
    allowed_hosts: Iterable[str],
    resolve: Resolver = socket.getaddrinfo,
    url: str = "",
) -> list[str]:
    """Resolve ``host`` and return its addresses if every one may be fetched; raise otherwise.

    A host in ``allowed_hosts`` is returned resolved but unchecked: that is how tests reach the
    stub servers on 127.0.0.1.
    """
    url = url or f"{host}:{port}"
    addresses = _resolve(url, host, port, resolve)
    if host_is_allowed(host, port, allowed_hosts):
        return addresses
    for address in addresses:
        ip = _parse_ip(address)
        if ip is None:
            raise _blocked(url, f"{host} resolved to {address!r}, which is not an IP address")
        reason = blocked_reason(ip)
        if reason:
            where = f"{host} is" if host == address else f"{host} resolves to {address},"
            raise _blocked(url, f"{where} {reason}")
    return addresses


def url_host_port(url: str) -> tuple[str, int]:
    """The host and effective port of an http(s) URL; raises ``blocked_address`` for anything else."""
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError as error:  # a port out of range or not a number
        raise _blocked(url, f"malformed URL ({error})") from error
    scheme = parts.scheme.lower()
    if scheme not in ALLOWED_SCHEMES:
        raise _blocked(url, f"scheme {scheme or '(none)'!r} is not http or https")
    host = (parts.hostname or "").lower()
    if not host:
        raise _blocked(url, "the URL has no host")
    return host, port or (443 if scheme == "https" else 80)


def check_url(url: str, *, allowed_hosts: frozenset[str], resolve: Resolver = socket.getaddrinfo) -> None:
    """Raise ``ProviderError(code="blocked_address")`` unless ``url`` may be fetched.

    Only http and https; the host must resolve to public addresses only, unless it is listed
    in ``allowed_hosts`` as ``host`` or ``host:port``.
    """
    host, port = url_host_port(url)
    resolve_checked(host, port, allowed_hosts=allowed_hosts, resolve=resolve, url=url)
