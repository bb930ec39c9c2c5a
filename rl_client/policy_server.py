"""An OpenAI-compatible server for a local transformers model: the policy ``judge filter``
samples from when there is no vLLM (a CPU, a test, a small model).

    python -m rl_client.policy_server --model DIR --port 8001 [--served-model-name policy]

``POST /v1/completions`` (text prompt) and ``POST /v1/chat/completions`` (messages, the
tokenizer's chat template) take ``n``, ``temperature``, ``top_p``, ``max_tokens`` and ``seed``
and sample as vLLM does; ``GET /v1/models`` and ``GET /health``. The ``n`` choices of a request
are generated as one batch; requests are served one at a time. Errors use OpenAI's shape.
``--request-log FILE`` appends one JSON line per generation request (path, prompt, n).
"""

from __future__ import annotations

import argparse
import json
import threading
import time
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from rl_client._local_model import Generated, LocalPolicy, Prompt

__all__ = ["PolicyServer", "main"]

_LIMIT_TOKENS, _LIMIT_N = 8192, 64


class _BadRequest(ValueError):
    def __init__(self, message: str, status: int = 400) -> None:
        super().__init__(message)
        self.status = status


def _number(body: dict[str, Any], name: str, default: float, low: float, high: float) -> float:
    value = body.get(name, default)
    if value is None:
        return default
    if isinstance(value, bool) or not isinstance(value, int | float) or not low <= value <= high:
        raise _BadRequest(f"{name} must be a number in [{low}, {high}]")
    return float(value)


def _prompt(body: dict[str, Any], chat: bool) -> Prompt:
    if not chat:
        prompt = body.get("prompt")
        if not isinstance(prompt, str):
            raise _BadRequest("prompt must be a string")
        return prompt
    messages = body.get("messages")
    if not (
        isinstance(messages, list)
        and messages
        and all(isinstance(m, dict) and "role" in m for m in messages)
    ):
        raise _BadRequest("messages must be a non-empty list of {role, content}")
    return messages


class PolicyServer:
    def __init__(self, policy: LocalPolicy, name: str, request_log: Path | None = None) -> None:
        self.policy, self.name, self.request_log = policy, name, request_log
        self.created = int(time.time())
        self._log_lock = threading.Lock()

    def answer(self, path: str, body: dict[str, Any]) -> dict[str, Any]:
        if body.get("model") not in (None, self.name):
            raise _BadRequest(f"The model `{body.get('model')}` does not exist.", 404)
        if body.get("stream"):
            raise _BadRequest("streaming is not supported")
        n = int(_number(body, "n", 1, 1, _LIMIT_N))
        limit = body.get("max_completion_tokens") or body.get("max_tokens")
        max_tokens = int(_number({"max_tokens": limit}, "max_tokens", 16, 1, _LIMIT_TOKENS))
        seed = body.get("seed")
        if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int)):
            raise _BadRequest("seed must be an integer")
        chat = path == "/v1/chat/completions"
        prompt = _prompt(body, chat)
        self._log({"path": path, "prompt": prompt, "n": n})
        generated = self.policy.generate(
            prompt,
            n=n,
            temperature=_number(body, "temperature", 1.0, 0.0, 2.0),
            top_p=_number(body, "top_p", 1.0, 1e-6, 1.0),
            max_tokens=max_tokens,
            seed=seed,
        )
        return self._reply(chat, generated, len(self.policy.prompt_ids(prompt)))

    def _reply(self, chat: bool, generated: list[Generated], prompt_tokens: int) -> dict[str, Any]:
        choices: list[dict[str, Any]] = []
        for index, item in enumerate(generated):
            choice: dict[str, Any] = {
                "index": index,
                "finish_reason": item.finish_reason,
                "logprobs": None,
            }
            if chat:
                choice["message"] = {"role": "assistant", "content": item.text}
            else:
                choice["text"] = item.text
            choices.append(choice)
        completion_tokens = sum(item.tokens for item in generated)
        return {
            "id": f"{'chatcmpl' if chat else 'cmpl'}-{uuid.uuid4().hex}",
            "object": "chat.completion" if chat else "text_completion",
            "created": int(time.time()),
            "model": self.name,
            "choices": choices,
            "usage": {
                "prompt_tokens": prompt_tokens,
                "completion_tokens": completion_tokens,
                "total_tokens": prompt_tokens + completion_tokens,
            },
        }

    def _log(self, record: dict[str, Any]) -> None:
        if self.request_log is None:
            return
        with self._log_lock, self.request_log.open("a") as log:
            log.write(json.dumps(record) + "\n")

    def handler(self) -> type[BaseHTTPRequestHandler]:
        server = self

        class Handler(BaseHTTPRequestHandler):
            def _send(self, status: int, body: dict[str, Any]) -> None:
                data = json.dumps(body).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def _error(self, status: int, message: str) -> None:
                kind = "NotFoundError" if status == 404 else "BadRequestError"
                self._send(status, {"error": {"message": message, "type": kind, "code": status}})

            def do_GET(self) -> None:  # noqa: N802 - the http.server's name
                if self.path == "/health":
                    self._send(200, {"status": "ok"})
                elif self.path == "/v1/models":
                    card = {
                        "id": server.name,
                        "object": "model",
                        "created": server.created,
                        "owned_by": "rl_client",
                    }
                    self._send(200, {"object": "list", "data": [card]})
                else:
                    self._error(404, f"no route {self.path}")

            def do_POST(self) -> None:  # noqa: N802
                if self.path not in ("/v1/completions", "/v1/chat/completions"):
                    self._error(404, f"no route {self.path}")
                    return
                try:
                    length = int(self.headers.get("Content-Length") or 0)
                    body = json.loads(self.rfile.read(length) or b"null")
                    if not isinstance(body, dict):
                        raise _BadRequest("the body must be a JSON object")
                    self._send(200, server.answer(self.path, body))
                except _BadRequest as error:
                    self._error(error.status, str(error))
                except (ValueError, UnicodeDecodeError) as error:
                    self._error(400, f"invalid request: {error}")

            def log_message(self, format: str, *args: Any) -> None:
                return None  # quiet: --request-log records what was asked

        return Handler


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", required=True, help="A local model directory.")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8001)
    parser.add_argument("--served-model-name", default=None, help="Default: the directory name.")
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--request-log", type=Path, default=None)
    args = parser.parse_args(argv)
    policy = LocalPolicy(args.model, args.device)
    name = args.served_model_name or Path(args.model).name
    server = PolicyServer(policy, name, args.request_log)
    httpd = ThreadingHTTPServer((args.host, args.port), server.handler())
    print(f"serving {name} on http://{args.host}:{args.port}/v1", flush=True)
    try:
        httpd.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        httpd.server_close()


if __name__ == "__main__":
    main()
