"""Background debate runs for the app: one process-wide :class:`JobManager` per archive.

A page never runs a debate in its own script thread (that would freeze it until
the last round).  It asks the manager, which

* creates the debate through :func:`debate_core.runs.start` with the archive
  as recorder (so the record exists, status running, before the page moves on),
* runs ``runner.run(debate, on_token=…, on_speech=…, should_stop=…)`` in a daemon
  thread: every protocol through the same runner interface,
* keeps a per-debate :class:`Job`: the tokens of the round being written (cleared
  when a speech is finished, because finished speeches are read back from the
  archive), a stop flag the runner polls before each round, and the outcome,
* retries a failed round (``runner.run(debate, only_one=True)``) and resumes an
  interrupted or stopped debate on a runner rebuilt from the stored record.

The live page polls: it reads finished rounds from the archive (so a reload or a
second tab shows the same debate) and the text in progress from :meth:`Job.live`.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field
from typing import Any

from debate_core import runs
from debate_core.engines.gateway import StopRequested
from debate_core.errors import ArchiveError, JobError
from debate_core.models import Debate, DebateConfig, Speech, utcnow

RUNNING = "running"
RESUMABLE = runs.RESUMABLE


def one_line(exc: BaseException) -> str:
    text = str(exc).strip()
    if isinstance(exc, KeyError) and exc.args:
        text = str(exc.args[0])
    return (text.splitlines()[0] if text else type(exc).__name__)[:300]


@dataclass
class Job:
    """One background run of one debate (a start, a retry or a resume)."""

    debate_id: str
    kind: str  # run / retry / resume
    planned_rounds: int = 0
    started_at: float = field(default_factory=time.time)
    ended_at: float | None = None
    error: str = ""
    status: str = RUNNING  # the debate's status when the job ended
    speeches: int = 0  # speeches finished by this job
    _tokens: list[str] = field(default_factory=list, repr=False)
    _stop: threading.Event = field(default_factory=threading.Event, repr=False)
    _done: threading.Event = field(default_factory=threading.Event, repr=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)
    thread: threading.Thread | None = field(default=None, repr=False)

    # ---------------------------------------------------------- runner hooks
    def on_token(self, token: str) -> None:
        if self._stop.is_set():  # Stop pressed: abandon the reply being streamed
            raise StopRequested()
        with self._lock:
            self._tokens.append(token)

    def on_speech(self, speech: Speech) -> None:
        with self._lock:
            self._tokens.clear()
            self.speeches += 1

    def should_stop(self) -> bool:
        return self._stop.is_set()

    # ---------------------------------------------------------------- reads
    def live(self) -> str:
        """The text streamed so far for the round in progress ('' between rounds)."""
        with self._lock:
            return "".join(self._tokens)

    @property
    def alive(self) -> bool:
        return not self._done.is_set()

    @property
    def stop_requested(self) -> bool:
        return self._stop.is_set()

    def request_stop(self) -> None:
        self._stop.set()

    def wait(self, timeout: float | None = None) -> bool:
        return self._done.wait(timeout)


class JobManager:
    """Runs debates in background threads against one archive.  Thread-safe."""

    def __init__(self, archive: Any):
        self.archive = archive
        self._jobs: dict[str, Job] = {}
        self._lock = threading.Lock()

    # ------------------------------------------------------------ lookups
    def job(self, debate_id: str) -> Job | None:
        with self._lock:
            return self._jobs.get(debate_id)

    def running(self, debate_id: str) -> bool:
        job = self.job(debate_id)
        return job is not None and job.alive

    def active(self) -> list[Job]:
        with self._lock:
            return [j for j in self._jobs.values() if j.alive]

    def wait(self, debate_id: str, timeout: float | None = None) -> bool:
        job = self.job(debate_id)
        return True if job is None else job.wait(timeout)

    # ------------------------------------------------------------- actions
    def start(self, config: DebateConfig, *, probe: bool = True) -> Debate:
        """Create the debate in the archive (status running) and run it in the background.

        Input and configuration errors (InputError, ConfigError, PackError) are raised
        here, before anything runs, so the page can show them next to the form.
        """
        runner, debate = runs.start(config, self.archive, probe=probe)
        self._launch(debate, runner, kind="run", only_one=False)
        return debate

    def retry(self, debate_id: str) -> Job:
        """Rerun the failed round alone (``only_one=True``)."""
        return self._continue(debate_id, only_one=True, kind="retry", allowed=("failed",))

    def resume(self, debate_id: str) -> Job:
        """Continue an interrupted, stopped or failed debate from its first round not done."""
        return self._continue(debate_id, only_one=False, kind="resume", allowed=RESUMABLE)

    def stop(self, debate_id: str) -> str:
        """Ask a running debate to stop before its next round; what is done is kept."""
        job = self.job(debate_id)
        if job is not None and job.alive:
            job.request_stop()
            return (
                "stop requested: a reply being streamed is abandoned at its next token (topic debaters' "
                "round finishes first), then the debate stops"
            )
        self.archive.mark_interrupted()
        status = self._status(debate_id)
        if status != RUNNING:
            return f"debate {debate_id} is not running (status {status})"
        raise JobError(
            f"debate {debate_id} is being run by another process; stop it there "
            "(or wait: it is marked interrupted as soon as that process is gone)"
        )

    # ------------------------------------------------------------ internals
    def _status(self, debate_id: str) -> str:
        return self.archive.debate_status(debate_id)

    def _continue(self, debate_id: str, *, only_one: bool, kind: str, allowed: tuple[str, ...]) -> Job:
        if self.running(debate_id):
            raise JobError(f"debate {debate_id} is already running here; wait for it or stop it first")
        try:
            runner, debate = runs.reopen(self.archive, debate_id, retry=only_one, allowed=allowed)
        except ArchiveError as exc:
            raise JobError(str(exc)) from None
        return self._launch(debate, runner, kind=kind, only_one=only_one)

    def _launch(self, debate: Debate, runner: Any, *, kind: str, only_one: bool) -> Job:
        job = Job(debate_id=debate.id, kind=kind, planned_rounds=debate.planned_rounds)
        with self._lock:
            old = self._jobs.get(debate.id)
            if old is not None and old.alive:
                raise JobError(f"debate {debate.id} is already running here")
            self._jobs[debate.id] = job

        def body() -> None:
            try:
                result = runner.run(
                    debate,
                    on_token=job.on_token,
                    on_speech=job.on_speech,
                    should_stop=job.should_stop,
                    only_one=only_one,
                )
                job.status = getattr(result, "status", debate.status)
                if job.status == "failed":
                    job.error = getattr(result, "stop_reason", "") or "the debate failed"
            except StopRequested:
                job.status = self._record_stop(debate)
            except Exception as exc:  # noqa: BLE001 - recorded on the debate, shown by the page
                job.error = one_line(exc)
                job.status = "failed"
                self._record_crash(debate, job.error)
            finally:
                job.ended_at = time.time()
                with job._lock:
                    job._tokens.clear()
                job._done.set()

        job.thread = threading.Thread(target=body, name=f"debate-{debate.id}", daemon=True)
        job.thread.start()
        return job

    def _record_stop(self, debate: Debate) -> str:
        """Stop pressed while a reply streamed: what was committed stays, the unfinished speech
        (never appended to the debate) is dropped, and the debate can be resumed."""
        debate.status, debate.stop_reason = "stopped", "用户在发言中途停止；未写完的发言已舍弃"
        debate.updated_at = utcnow()
        self.archive.update(debate)
        return debate.status

    def _record_crash(self, debate: Debate, cause: str) -> None:
        try:
            debate.status, debate.stop_reason = "failed", f"意外错误：{cause}"
            debate.updated_at = utcnow()
            self.archive.update(debate)
        except Exception:  # noqa: BLE001 - the archive itself may be the cause
            try:
                self.archive.set_status(debate.id, "failed", f"意外错误：{cause}")
            except Exception:  # noqa: BLE001
                pass


_MANAGERS: dict[str, JobManager] = {}
_MANAGERS_LOCK = threading.Lock()


def manager_for(archive: Any) -> JobManager:
    """The process-wide manager of ``archive`` (one per archive file)."""
    key = str(getattr(archive, "path", id(archive)))
    with _MANAGERS_LOCK:
        mgr = _MANAGERS.get(key)
        if mgr is None:
            mgr = JobManager(archive)
            _MANAGERS[key] = mgr
        return mgr


__all__ = ["Job", "JobError", "JobManager", "manager_for", "one_line"]
