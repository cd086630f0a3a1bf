"""Settings read from the environment, and the checks every entry point applies to a topic.

* ``$DEBATE_MODEL``: the model string (empty or ``offline``: the embedded offline engine);
* ``$DEBATE_API_BASE``: an OpenAI-compatible server for every model call;
* ``$DEBATE_BACKOFF``: the retry backoff base in seconds.

Explicit arguments always win over the environment.
"""

from __future__ import annotations

import os
import re
from typing import Mapping, Optional

from debate_core.errors import InputError

MAX_TOPIC_CHARS = 500
MODEL_ENV = "DEBATE_MODEL"
API_BASE_ENV = "DEBATE_API_BASE"
BACKOFF_ENV = "DEBATE_BACKOFF"
OFFLINE = "offline"
SECRET_NAME = re.compile(r"^[A-Z][A-Z0-9_]*_(API_KEY|API_BASE|API_VERSION|KEY|TOKEN)$|^(DEBATE_MODEL|DEBATE_API_BASE)$")


def validate_topic(topic: Optional[str]) -> str:
    """The topic stripped, or :class:`InputError` saying what is wrong with it."""
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
    return None if not m or m == OFFLINE else m


def resolve_api_base(api_base: Optional[str] = None) -> Optional[str]:
    return (api_base or os.environ.get(API_BASE_ENV) or "").strip() or None


def env_backoff() -> Optional[float]:
    """``$DEBATE_BACKOFF`` (seconds): the retry backoff base, or None when unset or not a number."""
    raw = os.environ.get(BACKOFF_ENV, "").strip()
    try:
        return max(0.0, float(raw)) if raw else None
    except ValueError:
        return None


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
