"""What the judged protocols (topic debate, trial) share: the models their debaters get, the
gateways they call them through, running a round's coroutines, and cutting English text at a
word count."""

from __future__ import annotations

import asyncio
import concurrent.futures
import re
from collections.abc import Callable
from typing import Any

from debate_core.engines import gateway
from debate_core.engines.gateway import Gateway, check_model_config
from debate_core.errors import InputError
from debate_core.models import DebateConfig, LLMCall
from debate_core.settings import env_backoff, resolve_api_base, resolve_model


def need_model_error(protocol: str):

    return InputError(
        f"the {protocol} protocol needs a model: pass --model openai/gpt-4o-mini (with OPENAI_API_KEY set) "
        "or --api-base URL for an OpenAI-compatible server, or set DEBATE_MODEL"
    )


def debater_models(config: DebateConfig, protocol: str) -> list[str]:
    """The models to give debaters, in order: --models, else --model / $DEBATE_MODEL."""

    models = [m.strip() for m in config.models if m and m.strip() and m.strip() != "offline"]
    if not models:
        m = resolve_model(config.model)
        if m:
            models = [m]
    if not models:
        raise need_model_error(protocol)
    return models


def api_base_of(config: DebateConfig) -> str | None:

    return resolve_api_base(config.api_base)


def check_models(models: list[str], api_base: str | None, probe: bool) -> None:
    for m in dict.fromkeys(models):
        check_model_config(m, api_base, probe=probe)
        probe = False  # one reachability probe of api_base is enough


def make_gateway(
    config: DebateConfig, model: str, sink: Callable[[LLMCall], None] | None, options: dict[str, Any]
) -> Gateway:
    """A gateway for one participant (the models were checked when the debate was opened)."""
    return gateway.make_gateway(
        model,
        api_base=api_base_of(config),
        temperature=config.temperature,
        timeout=config.timeout,
        max_retries=config.max_retries,
        on_call=sink,
        check=False,
        options=options,
    )


def run_coro(coro):
    """``asyncio.run`` that also works when the caller already runs an event loop (notebooks, apps)."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(coro)
    with concurrent.futures.ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(asyncio.run, coro).result()


def gateway_options_from_env() -> dict[str, Any]:
    """``DEBATE_BACKOFF`` (seconds) tunes the retry backoff, e.g. for fast local servers."""
    backoff = env_backoff()
    return {} if backoff is None else {"backoff": backoff}


def cut_words(text: str, limit: int) -> str:
    """``text`` up to the end of its ``limit``-th word (words: runs of non-space), spacing kept."""
    words = list(re.finditer(r"\S+", text))
    return text[: words[limit - 1].end()] if len(words) > limit else text
