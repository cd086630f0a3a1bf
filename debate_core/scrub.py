"""The one secret scrubber: every archive row, log line, export and streamed token passes here.

Two kinds of secret are removed:

* the values of environment variables whose names mark them as keys (``*_API_KEY``,
  ``*_TOKEN``, ``*_SECRET``, ``*_ACCESS_KEY``, ``*_KEY``), wherever they appear;
* strings shaped like provider keys (``sk-…``, ``AIza…``, ``gsk_…``, ``AKIA…``, bearer
  tokens, ``api_key=…``), even when no such variable is set here;
* credentials inside URLs (``http://user:pass@host/v1`` becomes ``http://[redacted]@host/v1``),
  so an ``--api-base`` with a password is stored without it.
"""

from __future__ import annotations

import os
import re
from typing import Any

REDACTED = "[redacted]"
SECRET_ENV_NAME = re.compile(r"(_API_KEY|_API_TOKEN|_TOKEN|_SECRET|_SECRET_KEY|_ACCESS_KEY|_KEY)$")
MIN_SECRET_CHARS = 8  # shorter values are too likely to occur in ordinary text
KEY_PATTERNS = (
    re.compile(r"sk-(?:ant-|proj-|or-)?[A-Za-z0-9_\-]{16,}"),
    re.compile(r"\bAIza[0-9A-Za-z_\-]{30,}"),
    re.compile(r"\b(?:gsk|xai|hf|ghp|gho|pplx|nvapi|fw|r8)[_-][A-Za-z0-9_\-]{20,}"),
    re.compile(r"\bAKIA[0-9A-Z]{16}\b"),
    re.compile(r"(?i)(bearer\s+)[A-Za-z0-9._\-]{16,}"),
    re.compile(r"(?i)((?:api[_-]?key|access[_-]?token|secret)[\"']?\s*[:=]\s*[\"']?)[A-Za-z0-9._\-]{12,}"),
    # credentials inside a URL (``http://user:pass@host/v1``, ``https://token@host``): the user part goes
    re.compile(r"(?i)(\b[a-z][a-z0-9+.\-]*://)[^/@\s?#]+(?=@)"),
)


def env_secrets() -> list[str]:
    """Key values set in the environment, longest first (so a key containing another goes first)."""
    return sorted(
        {
            v.strip()
            for k, v in os.environ.items()
            if SECRET_ENV_NAME.search(k) and v and len(v.strip()) >= MIN_SECRET_CHARS
        },
        key=len,
        reverse=True,
    )


def scrub(value: Any, secrets: list[str] | None = None, *, shapes: bool = True) -> Any:
    """``value`` (a string, or dicts and lists of them) with every secret replaced by ``[redacted]``.

    ``shapes=False`` replaces only the environment's key values: that is what a stream of
    partial chunks can use, since a key shape cut in two would be redacted only in part."""
    secrets = env_secrets() if secrets is None else secrets
    if isinstance(value, str):
        if not value:
            return value
        for s in secrets:
            if s in value:
                value = value.replace(s, REDACTED)
        for pat in KEY_PATTERNS if shapes else ():
            value = pat.sub((lambda m: m.group(1) + REDACTED) if pat.groups else REDACTED, value)
        return value
    if isinstance(value, dict):
        return {k: scrub(v, secrets, shapes=shapes) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [scrub(v, secrets, shapes=shapes) for v in value]
    return value
