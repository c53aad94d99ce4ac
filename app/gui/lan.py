"""This machine's address on its local network: the stream URL the outputs panel shows
for other devices to open."""

from __future__ import annotations

import socket

# A private address: "connecting" a UDP socket to it only asks the OS which interface
# its default route would use. No packet is sent.
_PROBE = ("10.255.255.255", 1)


def lan_address() -> str | None:
    """The IPv4 address other machines on the network reach this one at, or None when
    there is no network route (then only this machine can watch)."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        try:
            probe.connect(_PROBE)
            address = str(probe.getsockname()[0])
        except OSError:
            return None
    return None if address.startswith("127.") or address == "0.0.0.0" else address


def lan_url(port: int, token: str | None, path: str = "/stream.mjpg") -> str | None:
    """The URL another device opens (token included), or None without a network."""
    address = lan_address()
    if address is None:
        return None
    query = f"?token={token}" if token else ""
    return f"http://{address}:{port}{path}{query}"
