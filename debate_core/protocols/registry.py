"""Protocols other than the master debate plug in here.

* :func:`start` — ``(runner, debate)`` for a new topic debate or trial (what
  :func:`debate_core.api.start_debate` dispatches to);
* :func:`runner_for` / :func:`resume` — a runner for an existing record (the
  archive's resume and retry): ``runner.run(debate, only_one=False, ...)``.

Each runner has ``run(debate, *, on_token=None, on_speech=None, should_stop=None,
only_one=False) -> Debate``.
"""

from __future__ import annotations

from typing import Any, Optional

from debate_core.models import Debate, DebateConfig
from debate_core.recorder import NULL_RECORDER, Recorder

PROTOCOLS = ("topic", "trial")


def _module(protocol: str):
    if protocol == "topic":
        from debate_core.protocols import topic

        return topic
    if protocol == "trial":
        from debate_core.protocols import trial

        return trial
    from debate_core.api import InputError

    raise InputError(f"protocol {protocol!r} is not available in this build (known: master, {', '.join(PROTOCOLS)})")


def start(config: DebateConfig, recorder: Recorder = NULL_RECORDER, *, probe: bool = True,
          gateway_options: Optional[dict[str, Any]] = None):
    """Validate ``config``, create the record (status running, reported to ``recorder``) and return (runner, debate)."""
    return _module(config.protocol).start(config, recorder, probe=probe, gateway_options=gateway_options)


def runner_for(debate: Debate, recorder: Recorder = NULL_RECORDER, *,
               gateway_options: Optional[dict[str, Any]] = None):
    """A runner that resumes ``debate`` from its first unfinished round (or reruns one with only_one=True)."""
    mod = _module(debate.protocol)
    if debate.protocol == "topic":
        return mod.TopicDebate(recorder=recorder, gateway_options=dict(gateway_options or {}))
    return mod.TrialRunner(recorder=recorder, gateway_options=dict(gateway_options or {}))


def resume(debate: Debate, recorder: Recorder = NULL_RECORDER, **kw):
    """Alias of :func:`runner_for`."""
    return runner_for(debate, recorder, **kw)
