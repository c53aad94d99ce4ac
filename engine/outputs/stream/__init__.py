"""Local network stream: MJPEG over HTTP for OBS (Media/Browser Source), VLC and browsers."""

from engine.outputs.stream.config import StreamConfig, StreamError, generate_token, parse_endpoint
from engine.outputs.stream.server import ClientInfo, StreamServer

__all__ = [
    "ClientInfo",
    "StreamConfig",
    "StreamError",
    "StreamServer",
    "generate_token",
    "parse_endpoint",
]
