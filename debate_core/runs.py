"""The one run path: starting, resuming and retrying a debate, for the CLI, the app's jobs and batch.

* :func:`start` validates a config, asks the protocol's spec to create the record (status
  running, reported to the recorder) and returns ``(runner, debate)``;
* :func:`run` starts and runs a debate to its end in this thread;
* :func:`reopen` takes a stored debate back from the archive for a resume or a retry and
  returns ``(runner, debate)``; :func:`resume` and :func:`retry` run it here.

Runners share one interface (:class:`debate_core.protocols.base.Runner`), so the caller
drives every protocol the same way.  The archive only stores and reads.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from debate_core import lang
from debate_core.errors import ArchiveError
from debate_core.models import Debate, DebateConfig, Speech
from debate_core.protocols import registry
from debate_core.protocols.base import Runner
from debate_core.recorder import NULL_RECORDER, Recorder
from debate_core.settings import validate_topic

RESUMABLE = ("interrupted", "stopped", "failed")  # statuses a debate can be resumed from
RETRYABLE = ("failed",)  # a retry reruns the failed round alone


def start(
    config: DebateConfig,
    recorder: Recorder = NULL_RECORDER,
    *,
    probe: bool = True,
    gateway_options: dict[str, Any] | None = None,
) -> tuple[Runner, Debate]:
    """Validate, create the debate record (status running) and return (runner, debate)."""
    topic = validate_topic(config.topic)
    config = config.model_copy(update={"topic": topic, "lang": lang.resolve(topic, config.lang)})
    spec = registry.get(config.protocol)
    spec.check(config)
    return spec.start(config, recorder, probe=probe, gateway_options=gateway_options)


def run(
    config: DebateConfig,
    recorder: Recorder = NULL_RECORDER,
    *,
    on_token: Callable[[str], None] | None = None,
    on_speech: Callable[[Speech], None] | None = None,
    should_stop: Callable[[], bool] | None = None,
) -> Debate:
    """Start a debate and run it to its end (or until ``should_stop``)."""
    runner, debate = start(config, recorder)
    return runner.run(debate, on_token=on_token, on_speech=on_speech, should_stop=should_stop)


def _pack_path(archive: Any, debate: Debate, pack: str | None) -> str | None:
    """The pack folder to continue a debate on: the one passed, else the config's when it still
    exists, else the folder the archive recorded, else None (the protocol has no pack)."""
    if pack:
        return pack
    stored = debate.config.pack
    if stored is None or Path(stored).expanduser().is_dir():
        return stored
    recorded = archive.pack_path(debate.id)
    if recorded and Path(recorded).is_dir():
        return recorded
    raise ArchiveError(f"the pack of debate {debate.id} ({stored}) is not found; pass --pack DIR")


def reopen(
    archive: Any,
    debate_id: str,
    *,
    retry: bool = False,
    pack: str | None = None,
    allowed: tuple[str, ...] | None = None,
    gateway_options: dict[str, Any] | None = None,
) -> tuple[Runner, Debate]:
    """Take a stored debate back for a resume (or, with ``retry``, a rerun of its first round not done).

    Running debates whose writer is gone are marked interrupted first.  The debate must not be
    completed (or, when ``allowed`` is given, must have one of those statuses); this process
    then claims it as its writer, which fails while another live process runs it."""
    archive.mark_interrupted()
    debate = archive.get_debate(debate_id)
    if allowed is not None and debate.status not in allowed:
        what = "retry a round of" if retry else "resume"
        raise ArchiveError(
            f"cannot {what} debate {debate_id}: its status is {debate.status} (allowed: {', '.join(allowed)})"
        )
    if debate.status == "completed":
        raise ArchiveError(
            f"debate {debate_id} is completed; there is no failed round to retry"
            if retry
            else f"debate {debate_id} is already completed; nothing to resume"
        )
    archive.claim(debate_id)
    runner = registry.get(debate.protocol).runner_for(
        debate, archive, gateway_options=gateway_options, pack_path=_pack_path(archive, debate, pack)
    )
    return runner, debate


def resume(
    archive: Any,
    debate_id: str,
    *,
    pack: str | None = None,
    retry: bool = False,
    on_speech: Callable[[Speech], None] | None = None,
    on_token: Callable[[str], None] | None = None,
    gateway_options: dict[str, Any] | None = None,
) -> Debate:
    """Continue a stored debate from its first round not done, in this thread."""
    runner, debate = reopen(archive, debate_id, retry=retry, pack=pack, gateway_options=gateway_options)
    return runner.run(debate, only_one=retry, on_speech=on_speech, on_token=on_token)


def retry(archive: Any, debate_id: str, **kwargs) -> Debate:
    """Rerun the failed round alone (the debate is then interrupted, ready to resume)."""
    return resume(archive, debate_id, retry=True, **kwargs)
