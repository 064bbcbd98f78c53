"""Who is on the other end of a request: the peer's address, or what a trusted proxy says it heard.

Only a request whose peer (``REMOTE_ADDR``) is one of ``TRUSTED_PROXIES`` may name the client in
``X-Forwarded-For``; any other client could write any address there, and would then choose whose
logins its failures count against. Each proxy appends the address it heard from, so the list is read
from its right end, past every trusted proxy, to the first address that is not one.
"""

from __future__ import annotations

import ipaddress
from functools import cache

from django.conf import settings
from django.http import HttpRequest

Network = ipaddress.IPv4Network | ipaddress.IPv6Network


@cache
def _trusted(proxies: tuple[str, ...]) -> tuple[Network, ...]:
    return tuple(ipaddress.ip_network(proxy, strict=False) for proxy in proxies)


def is_trusted_proxy(address: str) -> bool:
    try:
        ip = ipaddress.ip_address(address.strip().split("%", 1)[0])
    except ValueError:
        return False
    return any(ip in network for network in _trusted(tuple(settings.TRUSTED_PROXIES)))


def client_address(request: HttpRequest) -> str:
    """The client's address; the peer's own unless the peer is a trusted proxy (django-axes asks this
    through ``AXES_CLIENT_IP_CALLABLE``)."""
    peer = request.META.get("REMOTE_ADDR", "")
    if not is_trusted_proxy(peer):
        return peer
    forwarded = [
        hop.strip() for hop in request.META.get("HTTP_X_FORWARDED_FOR", "").split(",") if hop.strip()
    ]
    for hop in reversed(forwarded):
        if not is_trusted_proxy(hop):
            return hop
    return forwarded[0] if forwarded else peer
