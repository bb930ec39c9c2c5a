"""A lean HTTP/1.1 client for benchmarks that send one small request per program.

httpx costs about 3.5 ms of CPU per request on the 2-core bench machine, more than the
service's own handling of a ``/run_code`` call, and the bench client shares the machine with
the service: sent through httpx, a one-request-per-program workload would measure the client
as much as the judge. This client writes each request with one ``write`` on a kept-alive
connection (one per request in flight) and reads the reply by its Content-Length, about 0.2 ms
a request, as a trainer's client on its own machine costs the judge nothing.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any
from urllib.parse import urlsplit

Connection = tuple[asyncio.StreamReader, asyncio.StreamWriter]


class LeanClient:
    def __init__(self, base_url: str) -> None:
        parts = urlsplit(base_url)
        self.host, self.port = parts.hostname or "127.0.0.1", parts.port or 80
        self._idle: list[Connection] = []

    async def post_json(self, path: str, body: Any) -> tuple[int, Any]:
        """``(status, decoded JSON reply)`` of a POST of ``body`` as JSON."""
        reader, writer = (
            self._idle.pop() if self._idle else await asyncio.open_connection(self.host, self.port)
        )
        data = json.dumps(body).encode()
        head = (
            f"POST {path} HTTP/1.1\r\nHost: {self.host}:{self.port}\r\n"
            f"Content-Type: application/json\r\nContent-Length: {len(data)}\r\n\r\n"
        )
        writer.write(head.encode() + data)
        status = int((await reader.readline()).split()[1])
        length = 0
        while (line := await reader.readline()) not in (b"\r\n", b""):
            name, _, value = line.partition(b":")
            if name.strip().lower() == b"content-length":
                length = int(value)
        reply = await reader.readexactly(length)
        self._idle.append((reader, writer))
        return status, json.loads(reply)

    async def close(self) -> None:
        for _, writer in self._idle:
            writer.close()
        self._idle.clear()
