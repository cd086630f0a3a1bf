"""Tests only: make one round of a debate slow to commit, so a test can act in its middle.

``DEBATE_TEST_SLOW_ROUND=ROUND:SECONDS`` makes ``Archive.speech`` sleep SECONDS before it
commits a speech of round ROUND.  The library knows nothing of it:

* a subprocess gets it through :func:`slow_env`, which puts ``tests/slow_site`` on
  ``PYTHONPATH``; that folder's ``sitecustomize.py`` runs :func:`install_from_env` when
  Python starts, and wraps ``Archive.speech`` when the variable is set;
* an in-process test (AppTest) monkeypatches ``Archive.speech`` with :func:`slowed`.
"""

from __future__ import annotations

import functools
import os
import time
from pathlib import Path
from typing import Callable, Mapping

ENV = "DEBATE_TEST_SLOW_ROUND"
SITE = Path(__file__).resolve().parent / "slow_site"
REPO = Path(__file__).resolve().parent.parent


def slowed(speech: Callable, round_no: int, seconds: float) -> Callable:
    """``Archive.speech`` that sleeps ``seconds`` before committing a speech of round ``round_no``
    (the original stays reachable as ``__wrapped__``)."""

    @functools.wraps(speech)
    def slow_speech(self, debate, sp):
        if sp.round == round_no:
            time.sleep(seconds)
        return speech(self, debate, sp)

    return slow_speech


def install_from_env() -> None:
    """Wrap ``Archive.speech`` as ``$DEBATE_TEST_SLOW_ROUND`` says; nothing when it is unset."""
    raw = os.environ.get(ENV, "").strip()
    if not raw:
        return
    round_no, seconds = raw.split(":", 1)
    from debate_core.archive import Archive

    Archive.speech = slowed(Archive.speech, int(round_no), float(seconds))


def slow_env(env: Mapping[str, str], round_no: int, seconds: float) -> dict[str, str]:
    """``env`` for a subprocess whose round ``round_no`` takes ``seconds`` more to commit."""
    out = dict(env)
    out[ENV] = f"{round_no}:{seconds:g}"
    path = [str(SITE), str(REPO)] + [p for p in out.get("PYTHONPATH", "").split(os.pathsep) if p]
    out["PYTHONPATH"] = os.pathsep.join(path)
    return out
