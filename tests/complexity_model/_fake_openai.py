"""A real HTTP server on loopback that answers chat completions the way a test scripts it.

Used to drive the client through failures a healthy model server never shows on demand: 5xx
bursts, slow answers, 4xx, concurrency. ``respond(index, request_json)`` returns ``(status,
body, headers)`` or sleeps first; every request and the peak number in flight are recorded.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Any

Reply = tuple[int, Any, dict[str, str]]
Respond = Callable[[int, dict[str, Any]], Reply]


def completion(content: str, logprobs: Any = None) -> dict[str, Any]:
    """An OpenAI chat-completion body whose message is ``content``."""
    choice = {
        "index": 0,
        "message": {"role": "assistant", "content": content},
        "finish_reason": "stop",
        "logprobs": logprobs,
    }
    return {"id": "chatcmpl-test", "object": "chat.completion", "choices": [choice]}


class FakeChatServer:
    def __init__(self, respond: Respond) -> None:
        self.respond = respond
        self.requests: list[dict[str, Any]] = []
        self.headers: list[dict[str, str]] = []
        self.in_flight = 0
        self.max_in_flight = 0
        self._lock = threading.Lock()
        server = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 (the stdlib's name)
                length = int(self.headers.get("content-length", "0"))
                payload = json.loads(self.rfile.read(length) or b"{}")
                with server._lock:
                    index = len(server.requests)
                    server.requests.append(payload)
                    server.headers.append(dict(self.headers))
                    server.in_flight += 1
                    server.max_in_flight = max(server.max_in_flight, server.in_flight)
                try:
                    status, body, headers = server.respond(index, payload)
                finally:
                    with server._lock:
                        server.in_flight -= 1
                data = body.encode() if isinstance(body, str) else json.dumps(body).encode()
                try:
                    self.send_response(status)
                    for name, value in headers.items():
                        self.send_header(name, value)
                    self.send_header("content-type", "application/json")
                    self.send_header("content-length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client gave up (a timeout test)

            def log_message(self, format: str, *args: Any) -> None:
                pass

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self._server.server_address[1]}"
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True
        )

    def __enter__(self) -> FakeChatServer:
        self._thread.start()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self._server.shutdown()
        self._server.server_close()
