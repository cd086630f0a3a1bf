"""The public façade: what the CLI, the app, batches and notebooks call.

Everything here is thin: it validates input, picks an engine and hands over to a
protocol.  No model is contacted and litellm is not imported unless a model is
configured.
"""

from __future__ import annotations

import os
import re
from functools import lru_cache
from pathlib import Path
from typing import Callable, Mapping, Optional

from debate_core.engines.gateway import Gateway, check_model_config
from debate_core.errors import ConfigError, InputError, PackError
from debate_core.models import Debate, DebateConfig, Pack, Speech
from debate_core.content.packs import load_pack
from debate_core.recorder import NULL_RECORDER, Recorder
from debate_core.settings import (API_BASE_ENV, BACKOFF_ENV, MAX_TOPIC_CHARS, MODEL_ENV, apply_secrets, env_backoff,
                                  resolve_api_base, resolve_model, validate_topic)

@lru_cache(maxsize=8)
def _cached_pack(path: str, stamp: float) -> Pack:
    return load_pack(path or None)


def get_pack(path: Optional[str | Path] = None) -> Pack:
    """Load a pack, cached until any meta.json in it changes."""
    from debate_core.content.packs import DEFAULT_PACK

    root = Path(path).expanduser() if path else DEFAULT_PACK
    if not root.is_dir():
        raise PackError(f"pack folder not found: {root}")
    stamp = max((p.stat().st_mtime for p in root.glob("*/meta.json")), default=0.0)
    return _cached_pack(str(root), stamp)


def make_gateway(model: str, *, api_base: Optional[str] = None, temperature: float = 0.7, timeout: float = 60.0,
                 max_retries: int = 3, probe: bool = True, options: Optional[dict] = None) -> Gateway:
    """A checked Gateway; ``options`` sets further Gateway attributes (backoff, router, …)."""
    if not (options or {}).get("router"):
        check_model_config(model, api_base, probe=probe)
    gw = Gateway(model=model, api_base=api_base, temperature=temperature, timeout=timeout, max_retries=max_retries)
    backoff = env_backoff()
    if backoff is not None:
        gw.backoff = backoff
    for key, value in (options or {}).items():
        setattr(gw, key, value)
    return gw


def make_master_engine(pack: Pack, config: DebateConfig, *, probe: bool = True,
                       gateway_options: Optional[dict] = None):
    model = resolve_model(config.model)
    if model is None:
        from debate_core.engines.offline import OfflineEngine

        return OfflineEngine(pack)
    from debate_core.engines.llm import LLMEngine

    return LLMEngine(make_gateway(model, api_base=resolve_api_base(config.api_base), temperature=config.temperature,
                                  timeout=config.timeout, max_retries=config.max_retries, probe=probe,
                                  options=gateway_options))


def master_runner(config: DebateConfig, recorder: Recorder = NULL_RECORDER, *, probe: bool = True,
                  gateway_options: Optional[dict] = None):
    from debate_core.protocols.master import MasterDebate

    pack = get_pack(config.pack)
    if pack.report.masters < 2:
        raise PackError(f"pack {pack.path} has fewer than two loadable masters; run `pack check` on it")
    engine = make_master_engine(pack, config, probe=probe, gateway_options=gateway_options)
    return MasterDebate(pack=pack, engine=engine, recorder=recorder,
                        auditor=make_auditor(config, probe=probe, gateway_options=gateway_options))


def make_auditor(config: DebateConfig, *, probe: bool = True, gateway_options: Optional[dict] = None):
    """The optional model-graded check layer (``config.check_model``), or None when it is off."""
    if not (config.check_model or "").strip():
        return None
    from debate_core.engines.check_model import ModelAuditor

    return ModelAuditor(make_gateway(config.check_model.strip(), api_base=resolve_api_base(config.api_base),
                                     temperature=0.0, timeout=config.timeout, max_retries=config.max_retries,
                                     probe=probe, options=gateway_options))


def check_rounds(config: DebateConfig, pack: Pack) -> None:
    proto = pack.protocol
    if config.rounds is not None and not proto.min_rounds <= config.rounds <= proto.max_rounds:
        raise InputError(f"rounds {config.rounds} out of range: this pack allows {proto.min_rounds}-{proto.max_rounds}")


def start_debate(config: DebateConfig, recorder: Recorder = NULL_RECORDER, *, probe: bool = True,
                 gateway_options: Optional[dict] = None):
    """Validate, create the debate record (status running) and return (runner, debate)."""
    config = config.model_copy(update={"topic": validate_topic(config.topic)})
    if config.protocol != "master":
        if (config.check_model or "").strip():
            raise InputError(f"check_model applies to master debates only, not to the {config.protocol} protocol")
        from debate_core.protocols import registry

        return registry.start(config, recorder, probe=probe, gateway_options=gateway_options)
    from debate_core.content.pairing import PairError, choose_pair

    runner = master_runner(config, recorder, probe=probe, gateway_options=gateway_options)
    check_rounds(config, runner.pack)
    try:
        pair = choose_pair(config.topic, runner.pack, config.masters or None)
    except PairError as exc:
        raise InputError(str(exc)) from None
    return runner, runner.prepare(config, pair)


def run_debate(config: DebateConfig, recorder: Recorder = NULL_RECORDER, *,
               on_token: Optional[Callable[[str], None]] = None,
               on_speech: Optional[Callable[[Speech], None]] = None,
               should_stop: Optional[Callable[[], bool]] = None) -> Debate:
    runner, debate = start_debate(config, recorder)
    return runner.run(debate, on_token=on_token, on_speech=on_speech, should_stop=should_stop)


__all__ = [
    "ConfigError", "InputError", "PackError", "get_pack", "make_gateway", "resolve_model", "run_debate",
    "start_debate", "validate_topic",
]
