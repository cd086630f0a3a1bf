"""The batch runner's write and claim helpers: the one writer thread of group commits, and the cells a
run claims in the archive before running them (so that two runs of one spec share the work)."""

from __future__ import annotations

import collections
import queue
import threading
import uuid
from typing import Any

from debate_core.batch.grid import CELL_SEP, Cell, Existing, plan_action
from debate_core.batch.progress import CellResult
from debate_core.models import Debate


def _first_line(exc: BaseException) -> str:
    cause = getattr(exc, "cause", None)
    text = cause if isinstance(cause, str) and cause else (str(exc).strip() or type(exc).__name__)
    text = text.splitlines()[0]
    name = type(exc).__name__
    return text if name in ("InputError", "SpecError", "GatewayError", "ConfigError") else f"{name}: {text}"


class _Committer:
    """Group commit for ``commit: debate``: finished debates are written whole, many per transaction.

    Workers hand over a finished :class:`Debate`; one thread writes whatever has queued up
    with :meth:`Archive.save_many` (one short transaction), so the archive's per-operation
    cost is paid once per group instead of once per speech.
    """

    def __init__(self, archive):
        import queue

        self.archive = archive
        self.queue: queue.Queue[Debate | None] = queue.Queue()
        self.failures: dict[str, str] = {}
        self._thread = threading.Thread(target=self._loop, name="batch-commit", daemon=True)
        self._thread.start()

    def put(self, debate: Debate) -> None:
        self.queue.put(debate)

    def _loop(self) -> None:
        import queue

        done = False
        while not done:
            group = [self.queue.get()]
            while True:
                try:
                    group.append(self.queue.get_nowait())
                except queue.Empty:
                    break
            done = any(d is None for d in group)
            debates = [d for d in group if d is not None]
            if not debates:
                continue
            try:
                self.archive.save_many(debates)
            except Exception as exc:  # noqa: BLE001 - reported per debate, never raised in a worker
                for d in debates:
                    self.failures[d.id] = f"not archived: {_first_line(exc)}"

    def close(self) -> None:
        self.queue.put(None)
        self._thread.join()


class _Claims:
    """One run's claims on its cells in the archive (``batch_claims``), and the heartbeat that
    keeps them while the run holds any.  Released when the run ends; a run that dies leaves
    claims the next run takes over (see :mod:`debate_core.archive.claims`)."""

    def __init__(self, archive, batch_id: str, resume: bool):
        self.archive = archive
        self.batch_id = batch_id
        self.resume = resume
        self.run_id = uuid.uuid4().hex[:16]
        self.used = False  # a claim was asked for: there is something to release
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def claim(self, cells: list[Cell]) -> list[Any]:
        """Claim ``cells`` in one transaction; one :class:`~debate_core.archive.claims.CellClaim` each, in order."""
        resume = self.resume

        def want(rows) -> bool:  # the cell still needs a run, as its debates stand now
            return plan_action([Existing(*r) for r in rows], resume=resume)[0] in ("run", "resume")

        self.used = True
        out = self.archive.claim_cells(self.batch_id, [c.key for c in cells], self.run_id, want, sep=CELL_SEP)
        if self._thread is None and any(o.claimed for o in out):
            self._thread = threading.Thread(target=self._beat, name="batch-claims", daemon=True)
            self._thread.start()
        return out

    def _beat(self) -> None:
        from debate_core.archive.claims import CLAIM_BEAT

        while not self._stop.wait(CLAIM_BEAT):
            try:
                self.archive.beat_claims(self.run_id)
            except Exception:  # noqa: BLE001 - a missed beat only shortens the lease on other hosts
                pass

    def close(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(5)
        if self.used:
            try:
                self.archive.release_claims(self.run_id)
            except Exception:  # noqa: BLE001 - claims of a process that has ended are taken over anyway
                pass


class _ClaimedQueue:
    """A run's cells, claimed ``chunk`` at a time just before they run (:meth:`BatchRunner._next_to_run`).

    A cell another live run holds is settled ``busy`` (saying which process has it); a cell whose
    debates changed since the run planned (another run finished it) is planned again from what
    the claim read."""

    def __init__(self, runner: Any, claims: _Claims, todo, chunk: int):
        self.runner = runner
        self.claims = claims
        self.items = iter(todo)
        self.chunk = chunk
        self.ready: collections.deque[tuple[Cell, list[Existing], str, str | None]] = collections.deque()

    def next(self, settle) -> tuple[Cell, list[Existing], str, str | None] | None:
        resume = self.runner.spec.resume
        while not self.ready:
            batch: list[Cell] = []
            for c, prior in self.items:
                if plan_action(prior, resume=resume)[0] == "skip":
                    settle(self.runner.run_cell(c, prior))  # completed: final, whatever runs now
                    continue
                # a cell running when the run planned goes to the claim too: the claim says which run holds it
                batch.append(c)
                if len(batch) >= self.chunk:
                    break
            if not batch:
                return None
            for c, got in zip(batch, self.claims.claim(batch), strict=False):
                fresh = [Existing(*d) for d in got.debates]
                if got.holder:
                    settle(
                        CellResult(
                            c,
                            "busy",
                            fresh[0].debate_id if fresh else None,
                            f"claimed by {got.holder} (another run of this batch)",
                        )
                    )
                    continue
                action, old_id = plan_action(fresh, resume=resume)
                if got.claimed and action in ("run", "resume"):
                    self.ready.append((c, fresh, action, old_id))
                else:
                    settle(self.runner.run_cell(c, fresh))  # finished or running elsewhere by now
        return self.ready.popleft()
