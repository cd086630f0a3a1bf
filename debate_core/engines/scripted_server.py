"""A scripted OpenAI-compatible chat server on 127.0.0.1, for tests, benchmarks and demos.

It speaks ``POST /v1/chat/completions`` (plain and streaming SSE), records every
request it receives, and answers from a script: a function from the request body
to a :class:`Reply`.  Replies can be faults: an HTTP status with headers (429 with
Retry-After, 500), a reset connection, a stream cut in the middle, a delay before
the first byte, an empty completion, tool calls.

Point litellm at it with ``model="openai/<any name>"`` and ``api_base=server.url``.
"""

from __future__ import annotations

import json
import socket
import struct
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Callable, Optional, Union


@dataclass
class Reply:
    text: str = ""
    status: int = 200
    headers: dict[str, str] = field(default_factory=dict)
    delay: float = 0.0  # seconds before the first byte
    reset: bool = False  # close the connection without answering
    cut_after: Optional[int] = None  # streaming: drop the connection after N chunks
    tool_calls: Optional[list[dict[str, Any]]] = None  # [{"name": ..., "arguments": {...}}]
    error: str = ""  # body message for a non-200 status
    chunk_chars: int = 8
    chunk_delay: float = 0.0


Script = Callable[[dict], Union[Reply, str]]


def _tokens(text: str) -> int:
    return max(1, len(text) // 2) if text else 0


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args) -> None:  # quiet
        return

    def _send_json(self, status: int, body: dict, headers: Optional[dict] = None) -> None:
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        for k, v in (headers or {}).items():
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(data)

    def _reset(self) -> None:
        # SO_LINGER 0 makes close() send a TCP RST: a real "connection reset by peer".
        self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        self.close_connection = True
        self.connection.close()

    def do_GET(self) -> None:  # /v1/models, health
        self._send_json(200, {"object": "list", "data": [{"id": "scripted", "object": "model"}]})

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b"{}"
        try:
            body = json.loads(raw)
        except json.JSONDecodeError:
            self._send_json(400, {"error": {"message": "bad JSON body", "type": "invalid_request_error"}})
            return
        server: ScriptedServer = self.server.owner  # type: ignore[attr-defined]
        server._record(body)
        reply = server.script(body)
        if isinstance(reply, str):
            reply = Reply(text=reply)
        if reply.delay:
            time.sleep(reply.delay)
        if reply.reset:
            self._reset()
            return
        if reply.status != 200:
            self._send_json(reply.status, {"error": {"message": reply.error or f"scripted {reply.status}",
                                                     "type": "server_error", "code": reply.status}}, reply.headers)
            return
        model = body.get("model", "scripted")
        prompt_tokens = sum(_tokens(str(m.get("content") or "")) for m in body.get("messages", []))
        if body.get("stream"):
            self._stream(reply, model, prompt_tokens, bool((body.get("stream_options") or {}).get("include_usage")))
        else:
            message: dict[str, Any] = {"role": "assistant", "content": reply.text}
            finish = "stop"
            if reply.tool_calls:
                message["tool_calls"] = [
                    {"id": f"call_{i}", "type": "function",
                     "function": {"name": t["name"], "arguments": json.dumps(t.get("arguments", {}), ensure_ascii=False)}}
                    for i, t in enumerate(reply.tool_calls)]
                message["content"] = reply.text or None
                finish = "tool_calls"
            self._send_json(200, {
                "id": "chatcmpl-scripted", "object": "chat.completion", "created": int(time.time()), "model": model,
                "choices": [{"index": 0, "message": message, "finish_reason": finish}],
                "usage": {"prompt_tokens": prompt_tokens, "completion_tokens": _tokens(reply.text),
                          "total_tokens": prompt_tokens + _tokens(reply.text)},
            }, reply.headers)

    def _stream(self, reply: Reply, model: str, prompt_tokens: int, include_usage: bool) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Connection", "close")
        self.end_headers()
        self.close_connection = True

        def send(obj: dict) -> None:
            self.wfile.write(b"data: " + json.dumps(obj, ensure_ascii=False).encode() + b"\n\n")
            self.wfile.flush()

        base = {"id": "chatcmpl-scripted", "object": "chat.completion.chunk", "created": int(time.time()), "model": model}
        pieces = [reply.text[i:i + reply.chunk_chars] for i in range(0, len(reply.text), reply.chunk_chars)]
        send({**base, "choices": [{"index": 0, "delta": {"role": "assistant", "content": ""}, "finish_reason": None}]})
        for n, piece in enumerate(pieces):
            if reply.cut_after is not None and n >= reply.cut_after:
                self._reset()
                return
            if reply.chunk_delay:
                time.sleep(reply.chunk_delay)
            send({**base, "choices": [{"index": 0, "delta": {"content": piece}, "finish_reason": None}]})
        send({**base, "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]})
        if include_usage:
            send({**base, "choices": [], "usage": {"prompt_tokens": prompt_tokens, "completion_tokens": _tokens(reply.text),
                                                   "total_tokens": prompt_tokens + _tokens(reply.text)}})
        self.wfile.write(b"data: [DONE]\n\n")
        self.wfile.flush()


class _Server(ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request, client_address) -> None:
        import sys

        exc = sys.exc_info()[1]
        if isinstance(exc, (BrokenPipeError, ConnectionResetError, ConnectionAbortedError, TimeoutError)):
            return  # a client that gave up (a timeout test) is expected here
        super().handle_error(request, client_address)


class ScriptedServer:
    """``with ScriptedServer(script) as srv: ... srv.url ... srv.requests``"""

    def __init__(self, script: Optional[Script] = None, host: str = "127.0.0.1", port: int = 0):
        self.script: Script = script or (lambda body: Reply(text="ok"))
        self.requests: list[dict] = []
        self._lock = threading.Lock()
        self._httpd = _Server((host, port), _Handler)
        self._httpd.owner = self  # type: ignore[attr-defined]
        self._thread: Optional[threading.Thread] = None

    @property
    def url(self) -> str:
        host, port = self._httpd.server_address[:2]
        return f"http://{host}:{port}/v1"

    def _record(self, body: dict) -> None:
        with self._lock:
            self.requests.append(body)

    def messages(self) -> list[list[dict]]:
        with self._lock:
            return [r.get("messages", []) for r in self.requests]

    def start(self) -> "ScriptedServer":
        self._thread = threading.Thread(target=self._httpd.serve_forever, name="scripted-llm", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()

    def __enter__(self) -> "ScriptedServer":
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()


def sequence(*replies: Union[Reply, str]) -> Script:
    """A script that answers with the given replies in order, then repeats the last."""
    items = list(replies)
    lock = threading.Lock()
    state = {"i": 0}

    def script(body: dict) -> Union[Reply, str]:
        with lock:
            i = min(state["i"], len(items) - 1)
            state["i"] += 1
        return items[i]
    return script
