"""The per-request token check: query parameter, Bearer header or X-Fusecam-Token."""

from __future__ import annotations

import hmac
from collections.abc import Mapping
from email.message import Message
from http import HTTPStatus


def presented_token(query: Mapping[str, list[str]], headers: Message) -> str | None:
    """The token a request carries, from the first place that has one."""
    values = query.get("token")
    if values:
        return values[0]
    authorization = headers.get("Authorization")
    if authorization is not None:
        scheme, _, value = authorization.strip().partition(" ")
        if scheme.lower() == "bearer" and value.strip():
            return value.strip()
    custom = headers.get("X-Fusecam-Token")
    return custom.strip() if custom else None


def authorize(expected: str | None, query: Mapping[str, list[str]], headers: Message) -> HTTPStatus:
    """OK when no token is configured or the right one is presented; 401 none; 403 wrong."""
    if expected is None:
        return HTTPStatus.OK
    token = presented_token(query, headers)
    if token is None:
        return HTTPStatus.UNAUTHORIZED
    # Constant-time, so response timing says nothing about how much of a guess was right.
    if hmac.compare_digest(token.encode("utf-8"), expected.encode("utf-8")):
        return HTTPStatus.OK
    return HTTPStatus.FORBIDDEN
