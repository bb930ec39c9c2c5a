"""Frames between the timing driver's processes: a JSON header and an optional payload.

The trusted side (:mod:`._program`, :mod:`._spawner`) reads the candidate's frames with bounded
sizes and parses only JSON; the payloads it sends (pickled inputs) go one way, to the candidate.
Standard library only: sent to the sandbox as source, ahead of the modules that use it.
"""

from __future__ import annotations

import json
import socket
import struct
from typing import Any

_SIZES = struct.Struct(">II")
MAX_HEADER = 1 << 16


class WireError(Exception):
    """The peer closed the channel or sent a malformed frame."""


def send(channel: socket.socket, header: list[Any], payload: bytes = b"") -> None:
    body = json.dumps(header).encode()
    channel.sendall(_SIZES.pack(len(body), len(payload)) + body)
    if payload:
        channel.sendall(payload)


def send_fd(channel: socket.socket, header: list[Any], fd: int) -> None:
    """A frame with a descriptor attached (small: one message)."""
    body = json.dumps(header).encode()
    socket.send_fds(channel, [_SIZES.pack(len(body), 0) + body], [fd])


def receive(
    channel: socket.socket, max_payload: int = 0, with_fd: bool = False
) -> tuple[list[Any], bytes, int]:
    """(header, payload, descriptor or -1); ``WireError`` when the frame is not acceptable."""
    fd = -1
    if with_fd:
        data, fds, _, _ = socket.recv_fds(channel, _SIZES.size, 1)
        fd = fds[0] if fds else -1
        if not data:
            raise WireError("the channel closed")
        head = data + _exact(channel, _SIZES.size - len(data))
    else:
        head = _exact(channel, _SIZES.size)
    header_size, payload_size = _SIZES.unpack(head)
    if header_size > MAX_HEADER or payload_size > max_payload:
        raise WireError(f"a frame of {header_size} + {payload_size} bytes")
    try:
        header = json.loads(_exact(channel, header_size))
    except ValueError as error:
        raise WireError("a malformed frame") from error
    if not isinstance(header, list) or not header or not isinstance(header[0], str):
        raise WireError("a malformed frame")
    return header, _exact(channel, payload_size), fd


def _exact(channel: socket.socket, size: int) -> bytes:
    chunks, missing = [], size
    while missing:
        try:
            chunk = channel.recv(min(missing, 1 << 20))
        except (OSError, TimeoutError) as error:
            raise WireError(f"the channel failed: {error}") from error
        if not chunk:
            raise WireError("the channel closed")
        chunks.append(chunk)
        missing -= len(chunk)
    return b"".join(chunks)
