"""The public façade for notebooks and scripts: the few names most callers need, in one place.

Nothing is defined here; each name lives in its own layer (see docs/architecture.md):

* the run path (:mod:`debate_core.runs`): ``start_debate``, ``run_debate``;
* settings and errors (:mod:`debate_core.settings`, :mod:`debate_core.errors`);
* packs (:mod:`debate_core.content.packs`) and the master protocol's runner.
"""

from __future__ import annotations

from debate_core.content.packs import get_pack
from debate_core.engines.gateway import make_gateway
from debate_core.errors import ConfigError, InputError, PackError
from debate_core.protocols.master import make_auditor, master_runner
from debate_core.runs import run as run_debate
from debate_core.runs import start as start_debate
from debate_core.settings import apply_secrets, resolve_api_base, resolve_model, validate_topic

__all__ = [
    "ConfigError",
    "InputError",
    "PackError",
    "apply_secrets",
    "get_pack",
    "make_auditor",
    "make_gateway",
    "master_runner",
    "resolve_api_base",
    "resolve_model",
    "run_debate",
    "start_debate",
    "validate_topic",
]
