"""The one road to a model: every LLM call goes through :class:`Gateway` over litellm.

* litellm is imported lazily (and with ``LITELLM_LOCAL_MODEL_COST_MAP=True`` so it
  never fetches its price list): paths that call no model never pay its import.
* bounded retries with exponential backoff on 429 / 5xx / timeouts / dropped
  connections, honouring ``Retry-After``;
* streaming with a per-token callback; token usage and cost per call;
* every call, failed or not, is reported to ``on_call`` as an :class:`LLMCall`.

API keys are read by litellm from the environment; they never pass through here,
so they cannot reach a record.
"""

from __future__ import annotations

import asyncio
import logging
import os
import random
import re
import socket
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlparse

from debate_core.engines.causes import CAUSE_OTHER as CAUSE_OTHER  # (the causes, re-exported)
from debate_core.engines.causes import CAUSES as CAUSES
from debate_core.engines.causes import cause_detail as cause_detail
from debate_core.engines.causes import cause_in as cause_in
from debate_core.engines.causes import cause_words as cause_words
from debate_core.engines.causes import read_cause as read_cause
from debate_core.errors import ConfigError, DebateError
from debate_core.models import LLMCall
from debate_core.scrub import env_secrets, scrub

TokenCallback = Callable[[str], None]
CallSink = Callable[[LLMCall], None]

OFFLINE = "offline"
KEYLESS_PROVIDERS = {"ollama", "ollama_chat", "local", "hosted_vllm", "lm_studio", "llamafile"}


class GatewayError(DebateError):
    """A model call failed for good; ``cause`` is a one-line reason for people."""

    def __init__(self, cause: str, *, retryable: bool = False, status: int | None = None):
        cause = redact(cause)
        super().__init__(cause)
        self.cause = cause
        self.retryable = retryable
        self.status = status


_litellm = None


def litellm():
    """Import litellm once, offline-safe."""
    global _litellm
    if _litellm is None:
        os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
        os.environ.setdefault("LITELLM_LOG", "ERROR")
        import litellm as _lm  # noqa: PLC0415 - deliberately lazy

        _lm.suppress_debug_info = True
        _lm.telemetry = False
        _quiet_litellm(_lm)
        _litellm = _lm
        from debate_core.engines import local_provider

        local_provider.register(_lm)
    return _litellm


LITELLM_LOGGERS = ("LiteLLM", "LiteLLM Router", "LiteLLM Proxy", "litellm")


def redact(text: str) -> str:
    """``text`` through the one scrubber (a server may echo the key back in an error)."""
    return scrub(text) if text else text


STOPPED_CAUSE = "stopped by the user mid-reply"


def _close_stream(it: Any) -> None:
    """Close an abandoned stream's HTTP response now rather than at garbage collection."""
    for obj in (it, getattr(it, "completion_stream", None), getattr(it, "response", None)):
        close = getattr(obj, "close", None)
        if callable(close):
            try:
                close()
            except Exception:  # noqa: BLE001 - best effort
                pass


class StopRequested(BaseException):
    """Raised by a token callback to abandon the call in progress (the user pressed Stop).  A
    BaseException, so the retry loops, which catch Exception, let it straight through."""


class _TokenGuard:
    """Streams tokens to ``sink`` with environment key values redacted, even when a key is
    split across chunks: the last (longest key - 1) characters are held back until more
    text or the end of the stream shows they are not part of a key."""

    def __init__(self, sink: TokenCallback):
        self.sink = sink
        self.secrets = env_secrets()
        self.keep = max((len(x) for x in self.secrets), default=1) - 1
        self.buf = ""

    def feed(self, text: str) -> None:
        if not self.secrets:
            self.sink(text)
            return
        self.buf = scrub(self.buf + text, self.secrets, shapes=False)
        if len(self.buf) > self.keep:
            out, self.buf = self.buf[: len(self.buf) - self.keep], self.buf[len(self.buf) - self.keep :]
            self.sink(out)

    def flush(self) -> None:
        if self.buf:
            out, self.buf = scrub(self.buf, self.secrets, shapes=False), ""
            self.sink(out)


class _RedactSecrets(logging.Filter):
    """Replace any API-key value from the environment in a litellm log record."""

    def filter(self, record: logging.LogRecord) -> bool:
        try:
            text = record.getMessage()
        except Exception:  # noqa: BLE001 - a malformed record is dropped rather than risk a leak
            return False
        clean = scrub(text)
        if clean != text:
            record.msg, record.args = clean, None
        return True


def _quiet_litellm(lm) -> None:
    """litellm's own logging off (errors only), whatever LITELLM_LOG says, and never a key in it.

    litellm's debug mode prints request headers and curl commands; the workbench keeps it
    at ERROR and redacts environment key values from whatever it still logs.
    """
    try:
        lm.set_verbose = False
    except Exception:  # noqa: BLE001
        pass
    if hasattr(lm, "redact_messages_in_exceptions"):
        lm.redact_messages_in_exceptions = True
    redact_logged_messages(lm)
    for name in LITELLM_LOGGERS:
        log = logging.getLogger(name)
        log.setLevel(logging.ERROR)
        if not any(isinstance(f, _RedactSecrets) for f in log.filters):
            log.addFilter(_RedactSecrets())
        for handler in log.handlers:
            if not any(isinstance(f, _RedactSecrets) for f in handler.filters):
                handler.addFilter(_RedactSecrets())


# Where litellm hands a call's logging payload (prompt and reply included): its callbacks, and stdout
# with LITELLM_PRINT_STANDARD_LOGGING_PAYLOAD set.
_LOG_RECEIVERS = (
    "callbacks",
    "success_callback",
    "failure_callback",
    "_async_success_callback",
    "_async_failure_callback",
    "input_callback",
    "_async_input_callback",
    "service_callback",
)


def redact_logged_messages(lm: Any) -> None:
    """Prompts and replies are blanked (``turn_off_message_logging``) in whatever litellm logs, once
    anything receives its logs.  litellm blanks them by deep-copying every call's payload in its
    logging thread, received or not (about 0.6 ms of CPU a master-debate call): with no receiver the
    switch stays off.  Checked before every call; once on, it stays on."""
    if getattr(lm, "turn_off_message_logging", True):
        return
    if os.environ.get("LITELLM_PRINT_STANDARD_LOGGING_PAYLOAD") or any(getattr(lm, a, None) for a in _LOG_RECEIVERS):
        lm.turn_off_message_logging = True


def provider_of(model: str) -> str:
    return model.split("/", 1)[0] if "/" in model else ""


# ---------------------------------------------------------------- prompt caching
#
# Providers bill a repeated prompt prefix at a fraction of the price: OpenAI and DeepSeek
# automatically, Anthropic where the request marks a cache breakpoint (``cache_control``).
# Prompt builders put what stays the same between one speaker's calls first; a message
# whose content begins with such a stable part and ends with this call's request says how
# long the stable part is under STABLE_PREFIX (the gateway strips the key before anything
# is sent or recorded).

STABLE_PREFIX = "stable_prefix"
_CACHE_MARK = {"type": "ephemeral"}
_CLAUDE_HOSTS = ("anthropic", "bedrock", "vertex_ai", "openrouter")


def plain_messages(messages: list[dict]) -> list[dict]:
    """The messages without the gateway's layout keys: what is recorded and counted."""
    return [{k: v for k, v in m.items() if k != STABLE_PREFIX} if STABLE_PREFIX in m else m for m in messages]


def wants_cache_control(model: str) -> bool:
    """Anthropic's models (directly or through Bedrock, Vertex AI, OpenRouter) cache only at marked breakpoints."""
    provider = provider_of(model)
    return provider == "anthropic" or (provider in _CLAUDE_HOSTS and "claude" in model.lower())


def cache_layout(messages: list[dict]) -> list[dict]:
    """Anthropic breakpoints on the stable part: the system message, and the end of the stable
    prefix (the STABLE_PREFIX part of the last message that declares one, else the message
    before the last).  Contents become text blocks; at most 2 of Anthropic's 4 breakpoints."""
    out = [dict(m) for m in plain_messages(messages)]
    marks = 0
    for i, m in enumerate(out):
        if m.get("role") == "system" and isinstance(m.get("content"), str) and m["content"]:
            out[i]["content"] = [{"type": "text", "text": m["content"], "cache_control": _CACHE_MARK}]
            marks += 1
            break
    split = next((i for i in range(len(messages) - 1, -1, -1) if messages[i].get(STABLE_PREFIX)), None)
    if split is not None:
        text, n = str(messages[split].get("content") or ""), int(messages[split][STABLE_PREFIX])
        if 0 < n < len(text):
            out[split]["content"] = [
                {"type": "text", "text": text[:n], "cache_control": _CACHE_MARK},
                {"type": "text", "text": text[n:]},
            ]
            return out
    if (
        len(out) >= 3
        and out[-2].get("role") != "system"
        and isinstance(out[-2].get("content"), str)
        and out[-2]["content"]
    ):
        out[-2]["content"] = [{"type": "text", "text": out[-2]["content"], "cache_control": _CACHE_MARK}]
    return out


_UNPRICED: set[str] = set()  # models litellm's cost map has no price for: not looked up again


def reply_cost(lm: Any, resp: Any, model: str) -> float:
    """The price of one reply, computed once: litellm prices every reply it returns (``response_cost``
    in its hidden params), so that figure is used; a reply without it is priced here, and a model the
    cost map does not know is remembered, so its later replies cost no second lookup."""
    hidden = getattr(resp, "_hidden_params", None) or {}
    priced = hidden.get("response_cost") if isinstance(hidden, dict) else None
    if priced is not None:
        try:
            return float(priced or 0.0)
        except (TypeError, ValueError):
            return 0.0
    if model in _UNPRICED:
        return 0.0
    try:
        return float(lm.completion_cost(completion_response=resp) or 0.0)
    except Exception:  # noqa: BLE001 - no price in the cost map: the reply costs 0, said once per model
        _UNPRICED.add(model)
        return 0.0


def usage_cached_tokens(usage: Any) -> int:
    """The cached input tokens a provider reports: ``prompt_tokens_details.cached_tokens``
    (OpenAI, DeepSeek through litellm), ``cache_read_input_tokens`` (Anthropic),
    ``prompt_cache_hit_tokens`` (DeepSeek's own field)."""
    if usage is None:
        return 0

    def get(obj: Any, key: str) -> Any:
        return obj.get(key) if isinstance(obj, dict) else getattr(obj, key, None)

    found = [
        get(get(usage, "prompt_tokens_details") or {}, "cached_tokens"),
        get(usage, "cache_read_input_tokens"),
        get(usage, "prompt_cache_hit_tokens"),
    ]
    return max((int(v) for v in found if isinstance(v, (int, float))), default=0)


def check_model_config(model: str, api_base: str | None = None, *, probe: bool = True) -> None:
    """Raise :class:`ConfigError` naming what is wrong before a debate starts."""
    if not model or not model.strip():
        raise ConfigError("empty model string")
    if api_base:
        parsed = urlparse(api_base)
        if parsed.scheme not in ("http", "https") or not parsed.hostname:
            raise ConfigError(f"api_base {api_base!r} is not an http(s) URL")
        if probe:
            port = parsed.port or (443 if parsed.scheme == "https" else 80)
            try:
                with socket.create_connection((parsed.hostname, port), timeout=3):
                    pass
            except OSError as exc:
                raise ConfigError(f"cannot reach api_base {api_base}: {exc.strerror or exc}") from None
        return
    if provider_of(model) == "local":
        from debate_core.engines import local_provider

        problem = local_provider.unavailable_reason(model)
        if problem:
            raise ConfigError(problem)
        return
    if provider_of(model) in KEYLESS_PROVIDERS:
        return
    missing = missing_keys(model)
    if missing:
        raise ConfigError(
            f"model {model!r} needs {', '.join(missing)} in the environment "
            f"(export {missing[0]}=...), or pass --api-base for an OpenAI-compatible server"
        )


def missing_keys(model: str) -> list[str]:
    """The key variables ``model`` needs that are unset or blank.  litellm counts an exported but
    empty variable as present, so blank ones are hidden from it while it looks, and restored."""
    blank = {k for k, v in os.environ.items() if not v.strip() and k.endswith(("_API_KEY", "_TOKEN", "_KEY"))}
    lm = litellm()
    if blank:
        import unittest.mock

        with unittest.mock.patch.dict(os.environ, {}, clear=False):  # restored on exit, whatever happens
            for k in blank:
                os.environ.pop(k, None)
            env = lm.validate_environment(model=model)
    else:
        env = lm.validate_environment(model=model)
    return [k for k in env.get("missing_keys", []) if not k.endswith("_API_BASE")]


def _retry_after(exc: BaseException) -> float | None:
    headers = getattr(exc, "litellm_response_headers", None)
    resp = getattr(exc, "response", None)
    if headers is None and resp is not None:
        headers = getattr(resp, "headers", None)
    if not headers:
        return None
    try:
        ms = headers.get("retry-after-ms") or headers.get("Retry-After-Ms")
        value = headers.get("retry-after") or headers.get("Retry-After")
    except Exception:
        return None
    if ms is not None:
        try:
            return max(0.0, float(ms) / 1000.0)
        except (TypeError, ValueError):
            pass
    if value is None:
        return None
    try:
        return max(0.0, float(value))
    except (TypeError, ValueError):
        pass
    try:  # the HTTP-date form: "Wed, 21 Oct 2015 07:28:00 GMT"
        from email.utils import parsedate_to_datetime

        return max(0.0, parsedate_to_datetime(str(value)).timestamp() - time.time())
    except (TypeError, ValueError, IndexError, OverflowError):
        return None


def classify(exc: BaseException) -> tuple[bool, int | None, str]:
    """(retryable, status, one-line cause) for any exception out of litellm."""
    status = getattr(exc, "status_code", None)
    name = type(exc).__name__
    msg = str(exc).strip().splitlines()[0] if str(exc).strip() else name
    msg = re.sub(r"^(?:litellm\.\w+:\s*)?(?:\w+Error:\s*)?(?:\w+Exception - )?", "", msg)
    msg = redact(msg)
    if len(msg) > 200:
        msg = msg[:197] + "…"
    low = str(exc).lower()
    if "Timeout" in name or isinstance(exc, (TimeoutError, asyncio.TimeoutError)) or "timed out" in low:
        return True, status, "timed out waiting for the model"
    if "MidStream" in name or "midstream" in low:
        return True, status, "the stream was cut in the middle of the response"
    if "connection error" in low or "connection reset" in low or "APIConnectionError" in name:
        return True, status, "connection failed: the server reset or refused the connection"
    if "RateLimit" in name or status == 429:
        return True, 429, f"rate limited (429): {msg}"
    if "Authentication" in name or status in (401, 403):
        return False, status, f"authentication failed ({status}): check the API key in the environment"
    if "NotFound" in name or status == 404:
        return False, status, f"model or endpoint not found ({status}): {msg}"
    if "APIConnectionError" in name or "ConnectionError" in name or "ServiceUnavailable" in name:
        return True, status, f"connection failed: {msg}"
    if isinstance(status, int) and status >= 500:
        return True, status, f"server error ({status}): {msg}"
    if "InternalServerError" in name or "MidStream" in name or "APIError" == name:
        return True, status, f"server error: {msg}"
    if "BadRequest" in name or "ContextWindow" in name or "ContentPolicy" in name:
        return False, status, f"request rejected ({status}): {msg}"
    return False, status, f"{name}: {msg}"


EMPTY_CAUSE = "the model returned an empty completion"


def _reject_empty(gen: Generation) -> None:
    """An empty reply (no text, no tool call) is a failed call: retried like a 5xx."""
    if not (gen.text or "").strip() and not gen.tool_calls:
        raise GatewayError(EMPTY_CAUSE, retryable=True)


@dataclass
class Generation:
    text: str
    model: str
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost: float = 0.0  # litellm's, which prices cached input tokens at the provider's cache rate
    latency_ms: float = 0.0
    retries: int = 0
    tool_calls: list[dict[str, Any]] = field(default_factory=list)
    cached_tokens: int = 0  # input tokens the provider served from its prompt cache
    raw_message: dict[str, Any] | None = None


@dataclass
class Gateway:
    model: str
    api_base: str | None = None
    temperature: float = 0.7
    timeout: float = 60.0
    max_retries: int = 3
    backoff: float = 1.0
    max_backoff: float = 30.0
    max_tokens: int | None = None
    on_call: CallSink | None = None
    sleep: Callable[[float], None] = time.sleep
    # Optional litellm.Router (anything with completion()/acompletion()): when set, calls go to it
    # instead of litellm, and its deployments supply api_base, keys, rpm/tpm limits and fallbacks.
    router: Any | None = None

    # ------------------------------------------------------------------ helpers
    def _kwargs(
        self, messages: list[dict], stream: bool, tools: list | None = None, response_format: dict | None = None
    ) -> dict:
        sent = cache_layout(messages) if wants_cache_control(self.model) else plain_messages(messages)
        kw: dict[str, Any] = dict(
            model=self.model,
            messages=sent,
            temperature=self.temperature,
            timeout=self.timeout,
            num_retries=0,
            max_retries=0,
            stream=stream,
        )
        if self.api_base:
            kw["api_base"] = self.api_base
            if provider_of(self.model) in ("openai", "hosted_vllm", "") and not os.environ.get("OPENAI_API_KEY"):
                kw["api_key"] = "not-needed"  # local OpenAI-compatible servers ignore it
        if self.max_tokens:
            kw["max_tokens"] = self.max_tokens
        if stream:
            kw["stream_options"] = {"include_usage": True}
        if tools:
            kw["tools"] = tools
        if response_format:
            kw["response_format"] = response_format  # structured output (a judge's verdict schema)
        if self.router is not None:
            for key in ("api_base", "api_key", "num_retries", "max_retries"):
                kw.pop(key, None)  # the router's deployments and retry settings govern
        return kw

    def _client(self, lm: Any) -> Any:
        return self.router if self.router is not None else lm

    def _delay(self, attempt: int, exc: BaseException) -> float:
        ra = _retry_after(exc)
        if ra is not None:
            return min(ra, self.max_backoff)
        return min(self.backoff * (2**attempt) * (0.75 + random.random() / 2), self.max_backoff)

    def _record(
        self, purpose: str, messages: list[dict], gen: Generation | None, error: str, latency: float, meta: dict
    ) -> None:
        if self.on_call is None:
            return
        self.on_call(
            LLMCall(
                purpose=purpose,
                model=self.model,
                round=meta.get("round"),
                speaker=meta.get("speaker", ""),
                prompt_tokens=gen.prompt_tokens if gen else 0,
                completion_tokens=gen.completion_tokens if gen else 0,
                cached_tokens=gen.cached_tokens if gen else 0,
                cost=gen.cost if gen else 0.0,
                latency_ms=latency,
                error=error,
                messages=plain_messages(messages),
                response=gen.text if gen else "",
            )
        )

    def _finish(self, resp: Any, messages: list[dict], latency_ms: float) -> Generation:
        lm = litellm()
        choice = resp.choices[0]
        msg = choice.message
        text = redact(msg.content or "")  # a server that echoes the key does not get it into a record
        usage = getattr(resp, "usage", None)
        pt = int(getattr(usage, "prompt_tokens", 0) or 0)
        ct = int(getattr(usage, "completion_tokens", 0) or 0)
        if not pt:
            try:
                pt = lm.token_counter(model=self.model, messages=plain_messages(messages))
            except Exception:
                pt = 0
        cost = reply_cost(lm, resp, self.model)
        tool_calls = []
        for tc in getattr(msg, "tool_calls", None) or []:
            fn = tc.function
            tool_calls.append({"id": tc.id, "name": fn.name, "arguments": fn.arguments})
        raw: dict[str, Any] = {"role": "assistant", "content": text}
        if tool_calls:
            raw["tool_calls"] = [
                {"id": t["id"], "type": "function", "function": {"name": t["name"], "arguments": t["arguments"]}}
                for t in tool_calls
            ]
        return Generation(
            text=text,
            model=self.model,
            prompt_tokens=pt,
            completion_tokens=ct,
            cost=cost,
            latency_ms=latency_ms,
            tool_calls=tool_calls,
            raw_message=raw,
            cached_tokens=usage_cached_tokens(usage),
        )

    # ------------------------------------------------------------------- calls
    def complete(
        self,
        messages: list[dict],
        *,
        purpose: str = "speech",
        on_token: TokenCallback | None = None,
        tools: list | None = None,
        response_format: dict | None = None,
        **meta: Any,
    ) -> Generation:
        """One completion with bounded retries.  Raises :class:`GatewayError`.

        ``response_format`` is passed to litellm as it is (``{"type": "json_schema", …}``)."""
        lm = litellm()
        stream = on_token is not None and not tools
        attempt = 0
        streamed = False  # tokens of a failed attempt already reached on_token
        guard = _TokenGuard(on_token) if stream and on_token is not None else None
        while True:
            redact_logged_messages(lm)
            t0 = time.perf_counter()
            try:
                if guard is not None:  # streaming
                    chunks = []
                    it = self._client(lm).completion(**self._kwargs(messages, True, None, response_format))
                    try:
                        for chunk in it:
                            chunks.append(chunk)
                            delta = chunk.choices[0].delta.content if chunk.choices else None
                            if delta:
                                streamed = True
                                guard.feed(delta)
                        guard.flush()
                    except StopRequested:
                        _close_stream(it)
                        raise
                    if not chunks:
                        raise GatewayError(EMPTY_CAUSE, retryable=True)
                    resp = lm.stream_chunk_builder(chunks, messages=plain_messages(messages))
                else:
                    resp = self._client(lm).completion(**self._kwargs(messages, False, tools, response_format))
                gen = self._finish(resp, messages, (time.perf_counter() - t0) * 1000)
                _reject_empty(gen)
                gen.retries = attempt
                self._record(purpose, messages, gen, "", gen.latency_ms, meta)
                return gen
            except StopRequested:
                self._record(purpose, messages, None, STOPPED_CAUSE, (time.perf_counter() - t0) * 1000, meta)
                raise
            except Exception as exc:  # noqa: BLE001 - classified below
                latency = (time.perf_counter() - t0) * 1000
                if isinstance(exc, GatewayError):
                    retryable, status, cause = exc.retryable, exc.status, exc.cause
                else:
                    retryable, status, cause = classify(exc)
                self._record(purpose, messages, None, cause, latency, meta)
                if guard is not None:
                    guard.flush()
                if not retryable or attempt >= self.max_retries:
                    suffix = f" after {attempt + 1} attempts" if attempt else ""
                    raise GatewayError(cause + suffix, retryable=retryable, status=status) from None
                if streamed and on_token is not None:
                    # the live view already shows part of the failed attempt: say it starts over
                    on_token(f"\n\n[retry: {cause}]\n\n")
                    streamed = False
                self.sleep(self._delay(attempt, exc))
                attempt += 1

    async def acomplete(
        self,
        messages: list[dict],
        *,
        purpose: str = "speech",
        tools: list | None = None,
        response_format: dict | None = None,
        **meta: Any,
    ) -> Generation:
        """Async twin of :meth:`complete` (litellm.acompletion), for parallel debaters."""
        lm = litellm()
        attempt = 0
        while True:
            redact_logged_messages(lm)
            t0 = time.perf_counter()
            try:
                resp = await self._client(lm).acompletion(**self._kwargs(messages, False, tools, response_format))
                gen = self._finish(resp, messages, (time.perf_counter() - t0) * 1000)
                _reject_empty(gen)
                gen.retries = attempt
                self._record(purpose, messages, gen, "", gen.latency_ms, meta)
                return gen
            except Exception as exc:  # noqa: BLE001
                latency = (time.perf_counter() - t0) * 1000
                if isinstance(exc, GatewayError):
                    retryable, status, cause = exc.retryable, exc.status, exc.cause
                else:
                    retryable, status, cause = classify(exc)
                self._record(purpose, messages, None, cause, latency, meta)
                if not retryable or attempt >= self.max_retries:
                    suffix = f" after {attempt + 1} attempts" if attempt else ""
                    raise GatewayError(cause + suffix, retryable=retryable, status=status) from None
                await asyncio.sleep(self._delay(attempt, exc))
                attempt += 1


def make_gateway(
    model: str,
    *,
    api_base: str | None = None,
    temperature: float = 0.7,
    timeout: float = 60.0,
    max_retries: int = 3,
    on_call: CallSink | None = None,
    check: bool = True,
    probe: bool = True,
    options: dict | None = None,
) -> Gateway:
    """The one way to build a :class:`Gateway`.

    ``check`` runs :func:`check_model_config` first (skipped when ``options`` supplies a
    router, whose deployments carry their own keys); ``probe`` lets that check open a
    connection to ``api_base``.  The backoff base comes from ``$DEBATE_BACKOFF`` when it is
    set, and ``options`` sets further attributes (backoff, max_tokens, router, …) last."""
    from debate_core.settings import env_backoff

    options = dict(options or {})
    if check and not options.get("router"):
        check_model_config(model, api_base, probe=probe)
    gw = Gateway(
        model=model,
        api_base=api_base,
        temperature=temperature,
        timeout=timeout,
        max_retries=max_retries,
        on_call=on_call,
    )
    backoff = env_backoff()
    if backoff is not None:
        gw.backoff = backoff
    for key, value in options.items():
        setattr(gw, key, value)
    return gw
