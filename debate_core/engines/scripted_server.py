"""A scripted OpenAI-compatible chat server on 127.0.0.1, for tests, benchmarks and demos.

It speaks ``POST /v1/chat/completions`` (plain and streaming SSE), records every
request it receives, and answers from a script: a function from the request body
to a :class:`Reply`.  Replies can be faults: an HTTP status with headers (429 with
Retry-After, 500), a reset connection, a stream cut in the middle, a delay before
the first byte, an empty completion, tool calls.

Point litellm at it with ``model="openai/<any name>"`` and ``api_base=server.url``.

Every request body is kept whole in ``server.requests`` (``response_format`` included:
:meth:`ScriptedServer.response_formats` lists what each request asked for).  With
``response_format="refuse"`` it answers a request that carries one with a 400, as a server
without structured output does.

With ``prompt_cache=True`` it also plays a provider's prompt cache (:class:`PromptCache`):
usage reports the cached input tokens.  ``POST /v1/messages`` speaks Anthropic's Messages
API (non-streaming) for ``model="anthropic/<name>"``, honouring ``cache_control`` breakpoints.
"""

from __future__ import annotations

import json
import socket
import struct
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass
class Reply:
    text: str = ""
    status: int = 200
    headers: dict[str, str] = field(default_factory=dict)
    delay: float = 0.0  # seconds before the first byte
    reset: bool = False  # close the connection without answering
    cut_after: int | None = None  # streaming: drop the connection after N chunks
    tool_calls: list[dict[str, Any]] | None = None  # [{"name": ..., "arguments": {...}}]
    error: str = ""  # body message for a non-200 status
    chunk_chars: int = 8
    chunk_delay: float = 0.0


Script = Callable[[dict], Reply | str]


def _tokens(text: str) -> int:
    return max(1, len(text) // 2) if text else 0


def _text(content: Any) -> str:
    """A message's text, whether a string or a list of content blocks."""
    if isinstance(content, list):
        return "".join(str(b.get("text") or "") for b in content if isinstance(b, dict))
    return str(content or "")


def serialize(messages: list[dict]) -> str:
    """The prompt as one string, in order (role, text): what a provider's prefix cache compares."""
    return "".join(f"\x1e{m.get('role', '')}\x1f{_text(m.get('content'))}" for m in messages)


def _common_prefix(a: str, b: str) -> int:
    n = min(len(a), len(b))
    lo, hi = 0, n
    while lo < hi:  # binary search on slice equality: C-speed comparisons
        mid = (lo + hi + 1) // 2
        if a[:mid] == b[:mid]:
            lo = mid
        else:
            hi = mid - 1
    return lo


class PromptCache:
    """A provider's prompt cache, simulated.

    * ``automatic`` (OpenAI, DeepSeek): any prefix of an earlier prompt is served from the
      cache; reported as ``usage.prompt_tokens_details.cached_tokens``, rounded down to
      ``block`` tokens and only from ``min_tokens`` on (OpenAI: 128 and 1024).
    * breakpoints (Anthropic): only a prefix ending at a block marked ``cache_control`` that
      an earlier request also marked is read (``cache_read_input_tokens``); the marked prefixes
      beyond it are written (``cache_creation_input_tokens``); a breakpoint also looks back
      over the 20 block boundaries before it, as Anthropic's does."""

    def __init__(self, block: int = 1, min_tokens: int = 0):
        self.block, self.min_tokens = block, min_tokens
        self.prompts: list[str] = []
        self.marked: set[str] = set()
        self.lock = threading.Lock()

    def automatic(self, messages: list[dict]) -> int:
        text = serialize(messages)
        with self.lock:
            best = max((_common_prefix(text, p) for p in self.prompts), default=0)
            self.prompts.append(text)
        tokens = best // 2
        return 0 if tokens < self.min_tokens else tokens - tokens % self.block

    def breakpoints(self, blocks: list[tuple[str, bool]], lookback: int = 20) -> tuple[int, int]:
        """``blocks``: (text, marked) in prompt order -> (read tokens, written tokens).  As Anthropic
        documents it, a breakpoint also finds a cached prefix ending at any of the ``lookback``
        block boundaries before it; the prefixes ending at marked blocks are written."""
        text, ends, marked = "", [], []
        for chunk, mark in blocks:
            text += chunk
            ends.append(len(text))
            if mark:
                marked.append(len(ends) - 1)
        with self.lock:
            read = max(
                (ends[i] for j in marked for i in range(max(0, j - lookback), j + 1) if text[: ends[i]] in self.marked),
                default=0,
            )
            written = max((ends[j] for j in marked), default=0)
            self.marked.update(text[: ends[j]] for j in marked)
        return read // 2, max(0, written - read) // 2


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True  # a reply is two writes: without this the client's delayed ACK adds ~35 ms

    def log_message(self, *args) -> None:  # quiet
        return

    def _send_json(self, status: int, body: dict, headers: dict | None = None) -> None:
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
        if self.path.rstrip("/").endswith("/messages"):
            self._anthropic(server, body)
            return
        server._record(body)
        if body.get("response_format") and server.response_format == "refuse":
            self._send_json(
                400,
                {
                    "error": {
                        "message": "response_format is not supported by this server",
                        "type": "invalid_request_error",
                        "code": 400,
                    }
                },
            )
            return
        reply = server.script(body)
        if isinstance(reply, str):
            reply = Reply(text=reply)
        if reply.delay:
            time.sleep(reply.delay)
        if reply.reset:
            self._reset()
            return
        if reply.status != 200:
            self._send_json(
                reply.status,
                {
                    "error": {
                        "message": reply.error or f"scripted {reply.status}",
                        "type": "server_error",
                        "code": reply.status,
                    }
                },
                reply.headers,
            )
            return
        model = body.get("model", "scripted")
        prompt_tokens = sum(_tokens(_text(m.get("content"))) for m in body.get("messages", []))
        usage: dict[str, Any] = {"prompt_tokens": prompt_tokens}
        if server.prompt_cache is not None:
            usage["prompt_tokens_details"] = {
                "cached_tokens": min(prompt_tokens, server.prompt_cache.automatic(body.get("messages", [])))
            }
        if body.get("stream"):
            self._stream(reply, model, usage, bool((body.get("stream_options") or {}).get("include_usage")))
        else:
            message: dict[str, Any] = {"role": "assistant", "content": reply.text}
            finish = "stop"
            if reply.tool_calls:
                message["tool_calls"] = [
                    {
                        "id": f"call_{i}",
                        "type": "function",
                        "function": {
                            "name": t["name"],
                            "arguments": json.dumps(t.get("arguments", {}), ensure_ascii=False),
                        },
                    }
                    for i, t in enumerate(reply.tool_calls)
                ]
                message["content"] = reply.text or None
                finish = "tool_calls"
            self._send_json(
                200,
                {
                    "id": "chatcmpl-scripted",
                    "object": "chat.completion",
                    "created": int(time.time()),
                    "model": model,
                    "choices": [{"index": 0, "message": message, "finish_reason": finish}],
                    "usage": {
                        **usage,
                        "completion_tokens": _tokens(reply.text),
                        "total_tokens": prompt_tokens + _tokens(reply.text),
                    },
                },
                reply.headers,
            )

    def _anthropic(self, server: ScriptedServer, body: dict) -> None:
        """Anthropic's Messages API (``/v1/messages``), non-streaming: the script sees the request
        as chat messages (system first); the raw request, ``cache_control`` marks and all, is kept
        in ``server.requests`` under ``"anthropic"``."""
        system = body.get("system") or []
        sys_blocks = [{"type": "text", "text": system}] if isinstance(system, str) else list(system)
        blocks: list[tuple[str, bool]] = []
        chat: list[dict] = []
        if sys_blocks:
            chat.append({"role": "system", "content": "".join(str(b.get("text") or "") for b in sys_blocks)})
            blocks += [(f"\x1esystem\x1f{b.get('text') or ''}", bool(b.get("cache_control"))) for b in sys_blocks]
        for m in body.get("messages", []):
            content = m.get("content")
            parts = [{"type": "text", "text": content}] if isinstance(content, str) else list(content or [])
            chat.append({"role": m.get("role"), "content": "".join(str(b.get("text") or "") for b in parts)})
            blocks += [
                (
                    f"\x1e{m.get('role')}\x1f{b.get('text') or ''}" if i == 0 else str(b.get("text") or ""),
                    bool(b.get("cache_control")),
                )
                for i, b in enumerate(parts)
            ]
        view = {"model": body.get("model", "scripted"), "messages": chat, "anthropic": body}
        server._record(view)
        reply = server.script(view)
        if isinstance(reply, str):
            reply = Reply(text=reply)
        if reply.delay:
            time.sleep(reply.delay)
        if reply.status != 200 or body.get("stream"):
            status = reply.status if reply.status != 200 else 400
            self._send_json(
                status,
                {
                    "type": "error",
                    "error": {
                        "type": "api_error",
                        "message": reply.error
                        or (
                            "streaming is not scripted for /v1/messages" if body.get("stream") else f"scripted {status}"
                        ),
                    },
                },
            )
            return
        total = sum(_tokens(t) for t, _ in blocks)
        read, written = server.prompt_cache.breakpoints(blocks) if server.prompt_cache is not None else (0, 0)
        read, written = min(read, total), min(written, max(0, total - read))
        self._send_json(
            200,
            {
                "id": "msg_scripted",
                "type": "message",
                "role": "assistant",
                "model": view["model"],
                "content": [{"type": "text", "text": reply.text}],
                "stop_reason": "end_turn",
                "stop_sequence": None,
                "usage": {
                    "input_tokens": total - read - written,
                    "output_tokens": _tokens(reply.text),
                    "cache_read_input_tokens": read,
                    "cache_creation_input_tokens": written,
                },
            },
        )

    def _stream(self, reply: Reply, model: str, usage: dict, include_usage: bool) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Connection", "close")
        self.end_headers()
        self.close_connection = True

        def send(obj: dict) -> None:
            self.wfile.write(b"data: " + json.dumps(obj, ensure_ascii=False).encode() + b"\n\n")
            self.wfile.flush()

        base = {
            "id": "chatcmpl-scripted",
            "object": "chat.completion.chunk",
            "created": int(time.time()),
            "model": model,
        }
        pieces = [reply.text[i : i + reply.chunk_chars] for i in range(0, len(reply.text), reply.chunk_chars)]
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
            send(
                {
                    **base,
                    "choices": [],
                    "usage": {
                        **usage,
                        "completion_tokens": _tokens(reply.text),
                        "total_tokens": usage["prompt_tokens"] + _tokens(reply.text),
                    },
                }
            )
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

    def __init__(
        self,
        script: Script | None = None,
        host: str = "127.0.0.1",
        port: int = 0,
        *,
        prompt_cache: bool | PromptCache | None = None,
        response_format: str = "accept",
    ):
        self.script: Script = script or (lambda body: Reply(text="ok"))
        # "accept": a request's response_format is kept (and the script answers); "refuse": a 400 for it
        self.response_format = response_format
        # a provider's prompt cache, simulated (usage reports cached input tokens); off by default
        self.prompt_cache = PromptCache() if prompt_cache is True else (prompt_cache or None)
        self.requests: list[dict] = []
        self._lock = threading.Lock()
        self._httpd = _Server((host, port), _Handler)
        self._httpd.owner = self  # type: ignore[attr-defined]
        self._thread: threading.Thread | None = None

    @property
    def url(self) -> str:
        host, port = self._httpd.server_address[:2]
        return f"http://{host!s}:{port}/v1"

    def _record(self, body: dict) -> None:
        with self._lock:
            self.requests.append(body)

    def messages(self) -> list[list[dict]]:
        with self._lock:
            return [r.get("messages", []) for r in self.requests]

    def response_formats(self) -> list[dict | None]:
        """Each request's ``response_format`` (None where it sent none), in order."""
        with self._lock:
            return [r.get("response_format") for r in self.requests]

    def start(self) -> ScriptedServer:
        self._thread = threading.Thread(target=self._httpd.serve_forever, name="scripted-llm", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()

    def __enter__(self) -> ScriptedServer:
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()


def sequence(*replies: Reply | str) -> Script:
    """A script that answers with the given replies in order, then repeats the last."""
    items = list(replies)
    lock = threading.Lock()
    state = {"i": 0}

    def script(body: dict) -> Reply | str:
        with lock:
            i = min(state["i"], len(items) - 1)
            state["i"] += 1
        return items[i]

    return script
