"""The SSRF guard's decisions, tested without connecting anywhere.

Addresses outside 127.0.0.0/8 appear here only as values: resolvers are injected fakes, and
``refuse_non_loopback`` fails any test that would reach the network because of a guard bug.
"""

from __future__ import annotations

import ipaddress
import socket

import pytest

from researchapp.providers.base import ProviderError
from researchapp.providers.fetch.client import PinnedBackend
from researchapp.providers.fetch.guard import (
    blocked_reason,
    check_url,
    host_is_allowed,
    is_public_address,
    resolve_checked,
)

# Any connection outside 127.0.0.0/8 fails these tests (see ``no_network``).
pytestmark = pytest.mark.usefixtures("no_network")

NOBODY = frozenset[str]()


def resolver_for(table: dict[str, list[str]]):
    """A getaddrinfo look-alike answering from ``table``; records every name it was asked."""
    asked: list[str] = []

    def resolve(host, port, *args, **kwargs):
        asked.append(host)
        return [
            (
                socket.AF_INET6 if ":" in address else socket.AF_INET,
                socket.SOCK_STREAM,
                6,
                "",
                (address, port),
            )
            for address in table[host]
        ]

    resolve.asked = asked
    return resolve


def never_called(*args, **kwargs):
    raise AssertionError("the resolver must not be asked about an IP literal or a refused URL")


@pytest.mark.parametrize(
    "address",
    [
        "10.0.0.1",
        "172.16.5.4",
        "192.168.1.1",  # private
        "127.0.0.1",
        "127.0.0.2",
        "::1",  # loopback
        "169.254.169.254",
        "169.254.1.1",
        "fe80::1",  # link-local, metadata
        "fd00:ec2::254",
        "fd00::1",  # metadata over IPv6, unique local
        "100.64.0.1",
        "100.127.255.254",
        "100.100.100.200",  # carrier-grade NAT, Alibaba metadata
        "0.0.0.0",
        "::",  # unspecified
        "224.0.0.1",
        "ff02::1",  # multicast
        "240.0.0.1",
        "255.255.255.255",  # reserved, broadcast
        "192.0.2.1",
        "198.18.0.1",
        "2001:db8::1",  # documentation and benchmarking ranges
        "fec0::1",  # deprecated site-local
        "::ffff:10.0.0.1",
        "::ffff:127.0.0.1",
        "::ffff:169.254.169.254",  # IPv4-mapped
        "64:ff9b::a9fe:a9fe",
        "2002:a00:1::1",  # NAT64 and 6to4 forms of internal IPv4
    ],
)
def test_it_refuses_every_non_public_address(address):
    # given an address no fetch may reach
    ip = ipaddress.ip_address(address)

    # when / then
    assert not is_public_address(ip), blocked_reason(ip)


@pytest.mark.parametrize(
    "address", ["93.184.216.34", "8.8.8.8", "2606:4700:4700::1111", "::ffff:8.8.8.8", "2002:808:808::1"]
)
def test_it_accepts_public_addresses(address):
    assert is_public_address(ipaddress.ip_address(address))


def test_it_says_which_kind_of_address_was_refused():
    assert blocked_reason(ipaddress.ip_address("169.254.169.254")) == "a cloud metadata address"
    assert "metadata" in blocked_reason(ipaddress.ip_address("::ffff:169.254.169.254"))
    assert blocked_reason(ipaddress.ip_address("100.64.0.1")) == "a carrier-grade NAT address"
    assert blocked_reason(ipaddress.ip_address("::1")) == "a loopback address"


def test_it_refuses_a_name_that_resolves_to_the_metadata_address_without_connecting(no_network):
    # given a host name whose DNS answer is the cloud metadata service
    resolve = resolver_for({"innocent.example": ["169.254.169.254"]})

    # when
    with pytest.raises(ProviderError) as refused:
        check_url("http://innocent.example/latest/meta-data/", allowed_hosts=NOBODY, resolve=resolve)

    # then
    assert refused.value.code == "blocked_address"
    assert refused.value.retryable is False
    assert "169.254.169.254" in refused.value.message and "metadata" in refused.value.message
    assert resolve.asked == ["innocent.example"]
    assert no_network == []


def test_it_refuses_a_name_that_resolves_to_a_private_address():
    resolve = resolver_for({"intranet.example": ["10.0.0.1"]})

    with pytest.raises(ProviderError) as refused:
        check_url("https://intranet.example/admin", allowed_hosts=NOBODY, resolve=resolve)

    assert refused.value.code == "blocked_address"
    assert "10.0.0.1" in refused.value.message and "private" in refused.value.message


def test_it_checks_every_resolved_address_not_just_the_first():
    # given a name with one public and one private address (the client could connect to either)
    resolve = resolver_for({"mixed.example": ["93.184.216.34", "192.168.1.1"]})

    with pytest.raises(ProviderError) as refused:
        check_url("http://mixed.example/", allowed_hosts=NOBODY, resolve=resolve)

    assert "192.168.1.1" in refused.value.message


def test_it_lets_a_name_with_only_public_addresses_through():
    resolve = resolver_for({"news.example": ["93.184.216.34", "2606:4700:4700::1111"]})

    check_url("https://news.example/story", allowed_hosts=NOBODY, resolve=resolve)

    assert resolve.asked == ["news.example"]


@pytest.mark.parametrize(
    "url",
    [
        "http://169.254.169.254/latest/meta-data/",
        "http://[fd00:ec2::254]/latest/meta-data/",
        "http://[::1]:8000/",
        "http://[::ffff:127.0.0.1]/",
        "http://2130706433/",  # 127.0.0.1 as one decimal number
        "http://0x7f.1/",  # 127.0.0.1 in inet_aton's hex shorthand
        "http://0/",
    ],
)
def test_it_refuses_ip_literals_without_asking_dns(url):
    with pytest.raises(ProviderError) as refused:
        check_url(url, allowed_hosts=NOBODY, resolve=never_called)

    assert refused.value.code == "blocked_address"


@pytest.mark.parametrize(
    "url",
    [
        "file:///etc/passwd",
        "ftp://files.example/x",
        "gopher://g.example/",
        "javascript:alert(1)",
        "http:///x",
    ],
)
def test_it_refuses_anything_but_http_and_https(url):
    with pytest.raises(ProviderError) as refused:
        check_url(url, allowed_hosts=NOBODY, resolve=never_called)

    assert refused.value.code == "blocked_address"


def test_it_allows_a_listed_host_and_port_only_on_that_port():
    # given only 127.0.0.1:8080 allowed
    allowed = frozenset({"127.0.0.1:8080"})

    # when / then
    check_url("http://127.0.0.1:8080/page", allowed_hosts=allowed, resolve=never_called)
    with pytest.raises(ProviderError):
        check_url("http://127.0.0.1:8081/page", allowed_hosts=allowed, resolve=never_called)
    with pytest.raises(ProviderError):
        check_url("http://127.0.0.2:8080/page", allowed_hosts=allowed, resolve=never_called)


def test_it_allows_a_listed_host_on_any_port():
    check_url("http://127.0.0.1:9/x", allowed_hosts=frozenset({"127.0.0.1"}), resolve=never_called)
    assert host_is_allowed("::1", 8000, ["[::1]:8000"])
    assert not host_is_allowed("::1", 8001, ["[::1]:8000"])


def test_it_allows_a_listed_name_even_though_it_resolves_to_loopback():
    resolve = resolver_for({"stub.test": ["127.0.0.1"]})

    addresses = resolve_checked(
        "stub.test", 8000, allowed_hosts=frozenset({"stub.test:8000"}), resolve=resolve
    )

    assert addresses == ["127.0.0.1"]


def test_it_reports_a_name_that_does_not_exist_as_a_permanent_dns_failure():
    def nxdomain(host, port, *args, **kwargs):
        raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")

    with pytest.raises(ProviderError) as failed:
        check_url("http://no-such-host.example/", allowed_hosts=NOBODY, resolve=nxdomain)

    assert (failed.value.code, failed.value.retryable) == ("dns_failed", False)


def test_it_refuses_at_connect_time_when_dns_changes_its_answer(no_network):
    # given a pinned backend whose resolver now answers with a private address (DNS rebinding)
    backend = PinnedBackend(allowed_hosts=NOBODY, resolve=resolver_for({"rebind.example": ["10.0.0.1"]}))

    # when the HTTP client asks it to connect
    with pytest.raises(ProviderError) as refused:
        backend.connect_tcp("rebind.example", 80, timeout=1.0)

    # then it refuses before opening any socket
    assert refused.value.code == "blocked_address"
    assert no_network == []
