"""The protocol registry: every protocol's :class:`~debate_core.protocols.base.ProtocolSpec`.

Callers ask here instead of branching on a protocol's name::

    spec = registry.get(debate.protocol)
    runner, debate = spec.start(config, recorder)
    markdown = spec.render(debate)
"""

from __future__ import annotations

import importlib

from debate_core.errors import InputError
from debate_core.models import Debate
from debate_core.protocols.base import ProtocolSpec

# name -> module defining SPEC, in the order Setup lists them: the protocols that run here
MODULES = {
    "master": "debate_core.protocols.master",
    "topic": "debate_core.protocols.topic",
    "trial": "debate_core.protocols.trial",
}
# protocols whose debates are only imported (never started): rendered, listed, analysed
IMPORTED = {"benchmark": "debate_core.protocols.benchmark"}
_SPECS: dict[str, ProtocolSpec] = {}


def names() -> tuple[str, ...]:
    """The protocols that run here (Setup, the CLI's ``debate``, batch specs)."""
    return tuple(MODULES)


def get(name: str) -> ProtocolSpec:
    """The spec of protocol ``name``, or :class:`InputError` naming the known ones."""
    spec = _SPECS.get(name)
    if spec is None:
        module = MODULES.get(name) or IMPORTED.get(name)
        if module is None:
            raise InputError(f"unknown protocol {name!r} (known: {', '.join(stored_names())})")
        spec = _SPECS[name] = importlib.import_module(module).SPEC
    return spec


def stored_names() -> tuple[str, ...]:
    """Every protocol an archive may hold: the ones that run here and the imported ones."""
    return tuple(MODULES) + tuple(IMPORTED)


def specs() -> list[ProtocolSpec]:
    return [get(n) for n in MODULES]


def judged() -> tuple[str, ...]:
    """The protocols that end in a judge's verdict (audits, winners, ratings)."""
    return tuple(s.name for s in specs() if s.judged)


def render(debate: Debate) -> str:
    """``debate`` as Markdown in its own protocol's framework."""
    return get(debate.protocol).render(debate)
