"""In-process local model provider for litellm (``local/...`` model strings).

Registered lazily by :func:`debate_core.gateway.litellm`.  Without the optional
packages of ``requirements-local.txt`` nothing is registered.
"""

from __future__ import annotations


def register(lm) -> None:  # noqa: ARG001 - filled in by the local-model work
    return None
