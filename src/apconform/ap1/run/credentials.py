"""Where the API key may travel: over TLS, or in clear text to this machine only.

A key sent over plain ``http://`` can be read by anyone on the path, so the
engine refuses, before the first request, to send one to a host that is not
loopback. The host is judged from the URL alone (an IP literal in 127.0.0.0/8
or ``::1``, or the name ``localhost``); no name is resolved, because a
resolver can be made to lie. The refusal can be overridden only with a flag
whose name says what it does, and a run that uses it says so in its transcript.
"""

from __future__ import annotations

import ipaddress
from urllib.parse import urlsplit

from apconform.core.errors import ApconformError, define_code

__all__ = [
    "KEY_OVER_PLAIN_HTTP",
    "OVERRIDE_FLAG",
    "TRANSPORTS",
    "credential_transport",
    "is_loopback_host",
]

OVERRIDE_FLAG = "--send-api-key-over-plain-http-to-remote-host"
TRANSPORTS = ("no-key", "tls", "loopback", "plain-http-override")

KEY_OVER_PLAIN_HTTP = define_code(
    "AP1-KEY-PLAIN-HTTP",
    "The API key would be sent in clear text to a host that is not this machine",
    "Use an https:// endpoint (or one on 127.0.0.1 / localhost). If you really must send the key "
    f"unencrypted over the network, pass {OVERRIDE_FLAG}; the transcript records that you did.",
)


def is_loopback_host(host: str) -> bool:
    """Whether ``host`` (from a URL) names this machine without asking a resolver."""
    name = host.strip("[]").lower().rstrip(".")
    if name == "localhost" or name.endswith(".localhost"):
        return True
    try:
        address = ipaddress.ip_address(name.split("%", 1)[0])
    except ValueError:
        return False
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        return address.ipv4_mapped.is_loopback
    return address.is_loopback


def credential_transport(url: str, *, key_set: bool, allow_plain_http: bool = False) -> str:
    """How a request to ``url`` carries the key: one of :data:`TRANSPORTS`, or refused.

    Raises AP1-KEY-PLAIN-HTTP when a key would go over ``http://`` to a host
    that is not loopback and ``allow_plain_http`` is not set.
    """
    if not key_set:
        return "no-key"
    parts = urlsplit(url)
    if parts.scheme.lower() == "https":
        return "tls"
    if is_loopback_host(parts.hostname or ""):
        return "loopback"
    if allow_plain_http:
        return "plain-http-override"
    raise ApconformError(
        KEY_OVER_PLAIN_HTTP,
        f"refusing to send the API key in clear text to {parts.hostname or url!r}: the endpoint "
        f"URL is {parts.scheme}:// and the host is not loopback",
        context={"host": parts.hostname},
    )
