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

from debate_core.engines.gateway import ConfigError, Gateway, check_model_config
from debate_core.models import Debate, DebateConfig, Pack, Speech
from debate_core.content.packs import PackError, load_pack
from debate_core.recorder import NULL_RECORDER, Recorder

MAX_TOPIC_CHARS = 500
MODEL_ENV = "DEBATE_MODEL"
API_BASE_ENV = "DEBATE_API_BASE"
BACKOFF_ENV = "DEBATE_BACKOFF"


class InputError(ValueError):
    """Bad user input, with a message that says what is wrong."""


SECRET_NAME = re.compile(r"^[A-Z][A-Z0-9_]*_(API_KEY|API_BASE|API_VERSION|KEY|TOKEN)$|^(DEBATE_MODEL|DEBATE_API_BASE)$")


def apply_secrets(secrets: Mapping[str, object]) -> list[str]:
    """Copy provider keys from a secrets mapping (Streamlit's ``st.secrets``) into the
    environment, where litellm reads them.  Only names shaped like keys are taken, a
    variable already set in the environment wins, and values never go anywhere else.
    Returns the names applied (never the values)."""
    applied = []
    for name, value in secrets.items():
        if isinstance(value, str) and value.strip() and SECRET_NAME.match(str(name)) and not os.environ.get(name):
            os.environ[name] = value.strip()
            applied.append(name)
    return applied


def validate_topic(topic: Optional[str]) -> str:
    if topic is None or not topic.strip():
        raise InputError("the topic is empty: give a question or claim to debate")
    topic = topic.strip()
    if len(topic) > MAX_TOPIC_CHARS:
        raise InputError(f"the topic is {len(topic)} characters; the limit is {MAX_TOPIC_CHARS}")
    if "\x00" in topic:
        raise InputError("the topic contains a NUL character")
    return topic


def resolve_model(model: Optional[str] = None) -> Optional[str]:
    """The configured model string, or None for the embedded offline engine."""
    m = (model or os.environ.get(MODEL_ENV) or "").strip()
    return None if not m or m == "offline" else m


def resolve_api_base(api_base: Optional[str] = None) -> Optional[str]:
    return (api_base or os.environ.get(API_BASE_ENV) or "").strip() or None


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


def env_backoff() -> Optional[float]:
    """``$DEBATE_BACKOFF`` (seconds): the retry backoff base, as the judged protocols read it too."""
    raw = os.environ.get(BACKOFF_ENV, "").strip()
    try:
        return max(0.0, float(raw)) if raw else None
    except ValueError:
        return None


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
