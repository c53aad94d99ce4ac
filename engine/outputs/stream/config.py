"""Stream settings: where to listen, the access token, and what a client may cost."""

from __future__ import annotations

import ipaddress
import re
import secrets
from dataclasses import dataclass
from urllib.parse import quote

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8080
_TOKEN_RE = re.compile(r"[A-Za-z0-9._~-]{8,128}")


class StreamError(RuntimeError):
    """The stream cannot be set up as asked; the message says what to change."""


def generate_token() -> str:
    """A fresh random token (URL-safe, 24 characters) for the GUI or an error hint."""
    return secrets.token_urlsafe(18)


def is_loopback(host: str) -> bool:
    if host.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False  # a host name: it may resolve to anything, so treat it as exposed


def loopback_host_header(value: str | None) -> bool:
    """Whether a request's Host header names this machine by a loopback name.

    A loopback stream without a token must not answer other names: a web page the user
    visits can point its own domain at 127.0.0.1 (DNS rebinding) and read the stream as
    same-origin; its requests then carry that domain in Host. A missing Host (an
    HTTP/1.0 tool) is no browser, so it is let through.
    """
    if value is None:
        return True
    host = value.strip().lower()
    if host.startswith("["):
        host = host[1 : host.find("]")] if "]" in host else host
    elif host.count(":") == 1:
        host = host.split(":", 1)[0]
    return is_loopback(host.rstrip("."))


def parse_endpoint(text: str) -> tuple[str, int]:
    """`PORT`, `HOST:PORT` or `[IPv6]:PORT` → (host, port); host defaults to loopback."""
    text = text.strip()
    host = DEFAULT_HOST
    port_text = text
    if text.startswith("["):
        end = text.find("]")
        if end < 0 or not text[end + 1 :].startswith(":"):
            raise StreamError(f"stream address {text!r}: write IPv6 as [ADDRESS]:PORT")
        host, port_text = text[1:end], text[end + 2 :]
    elif ":" in text:
        host, port_text = text.rsplit(":", 1)
        if not host:
            raise StreamError(f"stream address {text!r}: host is empty (use PORT or HOST:PORT)")
    if not port_text.isdigit() or not 0 <= int(port_text) <= 65535:
        raise StreamError(f"stream address {text!r}: port must be a number in 0..65535")
    return host, int(port_text)


@dataclass(frozen=True, slots=True)
class StreamConfig:
    host: str = DEFAULT_HOST
    port: int = DEFAULT_PORT  # 0: any free port (the server reports the one it got)
    # Required when `host` is not a loopback address; checked on every request when set.
    token: str | None = None
    quality: int = 80  # JPEG quality, 1..100
    max_clients: int = 32
    # A client that accepts no data for this long is dropped (its thread and socket freed).
    send_timeout_s: float = 10.0
    # The whole request line and headers must arrive within this (not per byte: a
    # slowloris client sends a byte now and then), and one address may have this many
    # connections still sending theirs (engine.outputs.stream.connections).
    request_timeout_s: float = 5.0
    max_pending_per_address: int = 4
    # Kernel send buffer per client. Small keeps a slow client's picture fresh: the
    # newest-wins skip happens here instead of seconds of frames queueing in the kernel.
    send_buffer_bytes: int | None = 256 * 1024

    def __post_init__(self) -> None:
        if not 0 <= self.port <= 65535:
            raise StreamError(f"stream port {self.port} is out of range (0..65535)")
        if not 1 <= self.quality <= 100:
            raise StreamError(f"JPEG quality {self.quality} is out of range (1..100)")
        if not 1 <= self.max_clients <= 256:
            raise StreamError(f"max_clients {self.max_clients} is out of range (1..256)")
        if self.send_timeout_s <= 0 or self.request_timeout_s <= 0:
            raise StreamError("send_timeout_s and request_timeout_s must be > 0")
        if self.max_pending_per_address < 1:
            raise StreamError("max_pending_per_address must be >= 1")
        if self.token is not None and not _TOKEN_RE.fullmatch(self.token):
            raise StreamError(
                "stream token must be 8-128 characters of letters, digits, '-', '_', '.', '~'"
            )
        if self.token is None and not is_loopback(self.host):
            raise StreamError(
                f"streaming on {self.host} makes the stream reachable from other machines, "
                f"so it needs an access token: add --token T (for example --token "
                f"{generate_token()})"
            )

    @property
    def exposed(self) -> bool:
        return not is_loopback(self.host)

    def url(self, port: int, path: str = "/stream.mjpg", with_token: bool = True) -> str:
        """A URL a client on this machine can open (wildcard hosts become loopback)."""
        host = self.host
        if host in ("", "0.0.0.0"):
            host = "127.0.0.1"
        elif host == "::":
            host = "::1"
        if ":" in host:
            host = f"[{host}]"
        url = f"http://{host}:{port}{path}"
        if with_token and self.token is not None:
            url += f"?token={quote(self.token)}"
        return url
