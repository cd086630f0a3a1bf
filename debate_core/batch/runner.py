"""Running a batch: its cells in worker threads under a concurrency limit, into the archive.

New cells start through :func:`debate_core.runs.start` and cells whose debate failed,
stopped or was interrupted continue through :func:`debate_core.runs.reopen`; one debate's
error is recorded for its cell and never stops the others.  Model calls go through the
gateway, or through one shared ``litellm.Router`` when the spec lists ``deployments``.

How a cell's debate reaches the archive (``commit``, docs/batch.md "Commit modes"):
``speech`` — every write in its own transaction as it happens; ``group`` — every write queued
and committed with the other debates' writes by one writer thread, at most
:data:`GROUP_INTERVAL` seconds later, a cell reported only once its debate is committed;
``debate`` — the finished debate written whole.  ``auto`` is ``debate`` for offline debates and
``group`` for debates that call a model.  A wide group-mode batch (``concurrency`` ≥
:data:`PROCESS_MIN_CONCURRENCY`) runs its new debates in forked worker processes, one per core
(:mod:`debate_core.batch.workers`), which send their writes to this process's writer: the
debates' Python (litellm, the checks) then uses every core, and the archive still has one writer.
"""

from __future__ import annotations

import multiprocessing as mp
import queue
import threading
import time
from collections.abc import Callable
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from multiprocessing.connection import wait as mp_wait
from pathlib import Path
from typing import Any

from debate_core import runs
from debate_core.archive.connection import GROUP_INTERVAL
from debate_core.archive.writes import Write
from debate_core.batch.claiming import _ClaimedQueue, _Claims, _Committer, _first_line
from debate_core.batch.grid import Cell, Existing, config_for, existing_cells, expand, plan_action
from debate_core.batch.progress import Bar, BatchResult, CellResult
from debate_core.batch.router import build_router, native_client_started, quiet_litellm_loop_noise
from debate_core.batch.spec import BatchSpec, SpecError, load_spec, processes_refused
from debate_core.batch.workers import GROUP_DURABLE, _Child, _cores, _fork_children, _load_pack, _RemoteRecorder
from debate_core.models import Debate
from debate_core.protocols import registry
from debate_core.recorder import NULL_RECORDER, Recorder


class _Tagged(Recorder):
    """Forwards to the archive; stamps the batch id on the debate when it is created."""

    def __init__(self, inner: Recorder, batch_id: str):
        self.inner = inner
        self.batch_id = batch_id
        self.debate: Debate | None = None

    def start(self, debate: Debate) -> None:
        debate.batch_id = self.batch_id
        self.debate = debate
        self.inner.start(debate)

    def speech(self, debate, speech) -> None:
        self.inner.speech(debate, speech)

    def summary(self, debate, summary) -> None:
        self.inner.summary(debate, summary)

    def call(self, debate, call) -> None:
        self.inner.call(debate, call)

    def update(self, debate) -> None:
        self.inner.update(debate)


COMMIT_MODES = ("auto", "speech", "group", "debate")
PROCESS_MIN_CONCURRENCY = 16  # narrower batches run in one process


def _models_called(cells: list[Cell]) -> set[str]:
    """The models the cells' debates call (debaters and judges), offline excluded."""
    return {m for c in cells for m in c.models + ((c.judge_model,) if c.judge_model else ())} - {"offline"}


class BatchRunner:
    """Runs one spec's grid into an archive (or nowhere, with ``archive=None``)."""

    def __init__(
        self,
        spec: BatchSpec | dict | str | Path,
        archive=None,
        *,
        concurrency: int | None = None,
        progress: bool | str = False,
        on_result: Callable[[CellResult], None] | None = None,
        stop: threading.Event | None = None,
        router: Any = None,
        probe: bool = True,
        commit: str | None = None,
        group_interval: float = GROUP_INTERVAL,
        durable: str = GROUP_DURABLE,
        processes: int | str | None = None,
    ):
        self.spec = load_spec(spec)
        self.commit = commit or self.spec.commit
        if self.commit not in COMMIT_MODES:
            raise ValueError(f"commit: {self.commit!r} is not one of {', '.join(COMMIT_MODES)}")
        self.group_interval = group_interval
        self.durable = durable
        # worker processes: a number, "auto", or None for the spec's ``processes`` (itself None: auto)
        self.processes: int | None = None if processes == "auto" else self.spec.processes
        if processes is not None and processes != "auto":
            if isinstance(processes, bool) or not isinstance(processes, int) or processes < 1:
                raise SpecError(f"processes {processes!r}: a number of worker processes (1 or more) or 'auto'")
            self.processes = processes
        why = processes_refused(self.spec, self.processes, self.commit)
        if why:
            raise SpecError(f"batch spec: {why}")
        self._grouped: Any = None  # archive.GroupedRecorder while a run has group-mode cells
        self._remote: _RemoteRecorder | None = None  # in a worker process: its writes go to the parent
        self.archive = archive
        self.concurrency = max(1, int(concurrency or self.spec.concurrency))
        self.progress = progress
        self.on_result = on_result
        self.stop = stop or threading.Event()
        self.probe = probe
        self._router = router
        self._router_built = router is not None
        self._router_given = router is not None  # the caller's router: its counts live in this process
        self._lock = threading.Lock()
        self._committer: _Committer | None = None
        self._claims: _Claims | None = None  # this run's claims on its cells (an archive is written)

    # ---------------------------------------------------------------- set-up
    @property
    def batch_id(self) -> str:
        assert self.spec.batch_id
        return self.spec.batch_id

    def cells(self) -> list[Cell]:
        return expand(self.spec)

    @property
    def router(self):
        if not self._router_built:
            self._router = build_router(self.spec)
            self._router_built = True
        return self._router

    def gateway_options(self) -> dict[str, Any]:
        opts = dict(self.spec.gateway)
        if self.router is not None:
            opts["router"] = self.router
        return opts

    def preflight(self, cells: list[Cell]) -> None:
        """Check every model configuration once (key present, api_base reachable) before any debate."""
        from debate_core.engines.gateway import check_model_config

        if self.spec.deployments:
            return  # every call goes through the router, whose deployments carry their own endpoints
        models = sorted(_models_called(cells))
        probe = self.probe
        for m in models:
            check_model_config(m, self.spec.api_base, probe=probe)
            probe = False
        if models:
            from debate_core.engines.gateway import litellm

            litellm()  # import it once here, not in every worker thread at the same time

    def plan(self) -> Any:
        """The grid as a DataFrame with what a run would do per cell: run, resume or skip."""
        import pandas as pd

        cells = self.cells()
        existing = existing_cells(self.archive, self.batch_id) if self.archive is not None else {}
        held = self.archive.live_claims(self.batch_id) if hasattr(self.archive, "live_claims") else {}
        rows = []
        for c in cells:
            action, debate_id = plan_action(existing.get(c.key, []), resume=self.spec.resume)
            if action in ("run", "resume") and c.key in held:
                action = "busy"  # another run of the spec holds it now
            rows.append({**c.as_row(), "action": action, "debate_id": debate_id, "held_by": held.get(c.key)})
        return pd.DataFrame(rows)

    # ------------------------------------------------------------- one cell
    def run_cell(self, cell: Cell, prior: list[Existing] | None = None) -> CellResult:
        t0 = time.perf_counter()
        action, old_id = plan_action(prior or [], resume=self.spec.resume)
        if action == "skip":
            return CellResult(cell, "skipped", old_id, "completed in an earlier run")
        if action == "busy":
            return CellResult(cell, "busy", old_id, "a live process is running this cell's debate")
        if self.stop.is_set():
            return CellResult(cell, "cancelled", None, "the batch was stopped before this cell")
        mode = self._mode(cell) if self.archive is not None else "none"
        buffered = mode == "debate" and action == "run"
        store = self._grouped if mode == "group" and self._grouped is not None else self.archive
        if self._remote is not None:
            store, buffered = self._remote, False
        inner = store if store is not None and not buffered else NULL_RECORDER
        tag = _Tagged(inner, self.batch_id)
        debate: Debate | None = None
        try:
            if action == "resume":
                assert old_id is not None  # plan_action names the debate it resumes
                runner, debate = runs.reopen(store, old_id, gateway_options=self.gateway_options())
            else:
                runner, debate = runs.start(
                    config_for(self.spec, cell), tag, probe=False, gateway_options=self.gateway_options()
                )
            debate = runner.run(debate, should_stop=self.stop.is_set)
        except Exception as exc:  # noqa: BLE001 - one debate's error never stops the batch
            reason = _first_line(exc)
            live = tag.debate or debate
            if live is not None and live.status == "running":
                live.status, live.stop_reason = "failed", f"batch: {reason}"
                if buffered:
                    self._commit(live)
                elif store is not None:
                    try:
                        store.set_status(live.id, "failed", live.stop_reason)
                    except Exception:  # noqa: BLE001
                        pass
            return CellResult(
                cell,
                "error",
                live.id if live else None,
                reason,
                resumed=action == "resume",
                seconds=time.perf_counter() - t0,
            )
        if buffered:
            self._commit(debate)
        return CellResult(
            cell,
            debate.status,
            debate.id,
            debate.stop_reason,
            resumed=action == "resume",
            seconds=time.perf_counter() - t0,
        )

    def _mode(self, cell: Cell) -> str:
        """How the cell's debate is written: ``speech``, ``group`` or ``debate`` (``auto``: ``debate``
        for debates on the offline engine, which take milliseconds; ``group`` for the rest)."""
        if self.commit != "auto":
            return self.commit
        offline = registry.get(cell.protocol).offline and (not cell.models or cell.models[0] == "offline")
        return "debate" if offline else "group"

    def _commit(self, debate: Debate) -> None:
        with self._lock:
            if self._committer is None:
                self._committer = _Committer(self.archive)
        self._committer.put(debate)

    # -------------------------------------------------------------- the batch
    def run(self) -> BatchResult:
        t0 = time.perf_counter()
        cells = self.cells()
        self.preflight(cells)
        if self.spec.deployments or (self.concurrency > 1 and _models_called(cells)):
            quiet_litellm_loop_noise()  # debates call models from many threads, each with its own loop
        if self.archive is not None:
            self.archive.mark_interrupted()
            existing = existing_cells(self.archive, self.batch_id)
        else:
            existing = {}
        result = BatchResult(
            batch_id=self.batch_id, protocol=self.spec.protocol, archive=str(getattr(self.archive, "path", "")) or None
        )
        todo = [(c, existing.get(c.key, [])) for c in cells]
        nproc = self.processes_for(cells)
        remote = (
            [
                (i, c, prior)
                for i, (c, prior) in enumerate(todo)
                if plan_action(prior, resume=self.spec.resume)[0] == "run"
            ]
            if nproc > 1
            else []
        )
        children = _fork_children(self, nproc) if remote else []  # before this process starts any thread
        if children and self.spec.deployments:
            try:
                _ = self.router  # after the fork: a router on Redis starts threads that do not survive it
            except BaseException:
                for ch in children:
                    ch.send(("done",))
                    ch.end()
                raise
        if self.archive is not None and any(self._mode(c) == "group" for c in cells):
            self._grouped = self.archive.grouped(interval=self.group_interval, durable=self.durable)
        away = {c.key for _, c, _ in remote}
        bar = Bar(len(todo), self.batch_id, self.progress)
        by_key: dict[str, CellResult] = {}
        try:
            with bar:
                self._run_here([(c, prior) for c, prior in todo if c.key not in away], by_key, bar)
                if children:
                    self._run_children(children, remote, by_key, bar)
        finally:
            for ch in children:
                ch.end()
            try:
                self._finish_writes(by_key)
            finally:
                self._release_claims()  # after every write of this run is committed
            self._settle(result, todo, by_key, t0)
        return self._audit_after(result)

    def _finish_writes(self, by_key: dict[str, CellResult]) -> None:
        """Close the group writer and the committer; a debate they could not store makes its cell an error."""
        if self._grouped is not None:
            self._grouped.close()
            for r in by_key.values():
                why = self._grouped.failures.get(r.debate_id or "")
                if why and r.status not in ("error", "skipped", "busy"):
                    r.status, r.reason = "error", why
            self._grouped = None
        if self._committer is not None:
            self._committer.close()
            for r in by_key.values():
                why = self._committer.failures.get(r.debate_id or "")
                if why:
                    r.status, r.reason = "error", why
            self._committer = None

    @staticmethod
    def _settle(result: BatchResult, todo, by_key: dict[str, CellResult], t0: float) -> None:
        """The batch's results in cell order; a cell never started is ``cancelled``."""
        for c, _prior in todo:
            if c.key not in by_key:
                by_key[c.key] = CellResult(c, "cancelled", None, "the batch was stopped before this cell")
        result.results = [by_key[c.key] for c, _ in todo]
        result.elapsed = time.perf_counter() - t0

    def _audit_after(self, result: BatchResult) -> BatchResult:
        """``audit: true``: the judge audit of the batch's judged debates (not after a stop)."""
        if (
            self.spec.audit
            and registry.get(self.spec.protocol).judged
            and self.archive is not None
            and not self.stop.is_set()
        ):
            from debate_core.analysis.audit import audit_batch

            result.audit = audit_batch(
                self.archive,
                self.batch_id,
                judges=self.spec.judge_models or None,
                variants=self.spec.audit_variants,
                concurrency=self.concurrency,
                gateway_options=self.gateway_options(),
            )
        return result

    def _done(self, r: CellResult, by_key: dict[str, CellResult], bar: Bar) -> None:
        by_key[r.cell.key] = r
        bar.done(r)
        self._emit(r)

    def _next_to_run(self, queue, settle) -> tuple[Cell, list[Existing], str, str | None] | None:
        """The next cell of ``queue`` that needs a run, with its action and old id; a cell to skip or
        held by another run is settled on the way (``settle``).  None when the queue is empty.

        ``queue`` is an iterator of ``(cell, prior)``, or what :meth:`_claiming` made of one: then
        the cells come claimed, a few at a time, in the archive's write transaction."""
        if isinstance(queue, _ClaimedQueue):
            return queue.next(settle)
        for c, prior in queue:
            action, old_id = plan_action(prior, resume=self.spec.resume)
            if action not in ("skip", "busy"):
                return c, prior, action, old_id
            settle(self.run_cell(c, prior))
        return None

    # ---------------------------------------------------------------- claims
    def _claiming(self, todo, ahead: int | None = None) -> Any:
        """``todo`` (``(cell, prior)`` pairs) as a queue whose cells are claimed before they run, ``ahead``
        at a time (what the caller keeps queued: by default twice the concurrency), when the batch
        writes an archive; else a plain iterator."""
        if self.archive is None or not hasattr(self.archive, "claim_cells"):
            return iter(todo)
        if self._claims is None:
            self._claims = _Claims(self.archive, self.batch_id, self.spec.resume)
        return _ClaimedQueue(self, self._claims, todo, max(1, ahead or self.concurrency * 2))

    def _release_claims(self) -> None:
        if self._claims is not None:
            self._claims.close()
            self._claims = None

    def _interrupted(self, bar: Bar) -> None:
        self.stop.set()
        bar.note("stopping: running debates halt at their next round; rerun the spec to resume")

    def _run_here(self, todo: list[tuple[Cell, list[Existing]]], by_key: dict[str, CellResult], bar: Bar) -> None:
        """The cells in this process's threads, at most ``concurrency`` at a time."""
        if not todo:
            return
        with ThreadPoolExecutor(max_workers=self.concurrency, thread_name_prefix="batch") as pool:
            pending: dict[Future, Cell] = {}
            queue = self._claiming(todo)

            def submit_more() -> None:
                while len(pending) < self.concurrency * 2 and not self.stop.is_set():
                    nxt = self._next_to_run(queue, lambda r: self._done(r, by_key, bar))
                    if nxt is None:
                        return
                    c, prior = nxt[:2]
                    pending[pool.submit(self.run_cell, c, prior)] = c

            submit_more()
            try:
                while pending:
                    finished, _ = wait(list(pending), timeout=0.5, return_when=FIRST_COMPLETED)
                    for fut in finished:
                        pending.pop(fut)
                        self._done(fut.result(), by_key, bar)
                    submit_more()
            except KeyboardInterrupt:
                self._interrupted(bar)
                for fut, _c in list(pending.items()):
                    if fut.cancel():
                        pending.pop(fut)
                for fut, c in pending.items():
                    by_key[c.key] = fut.result()

    def processes_for(self, cells: list[Cell]) -> int:
        """How many worker processes run the batch's new debates (1: all in this process).

        ``processes`` when given (the argument, else the spec's), else: one per core (at most
        ``concurrency // 8``) for a batch of at least :data:`PROCESS_MIN_CONCURRENCY` debates at a time
        that call models; always 1 without ``fork``, with a router given by the caller or built from
        deployments whose rpm / tpm counts are not shared through Redis (each process would count
        on its own), in a process that has built a router on Redis (litellm's native client, whose
        threads do not survive a fork), or when a cell is written otherwise than ``group``."""
        if (
            "fork" not in mp.get_all_start_methods()
            or (self.spec.deployments and (not self.spec.redis or native_client_started()))
            or self._router_given
            or self._remote is not None
        ):
            return 1
        if self.archive is not None and any(self._mode(c) != "group" for c in cells):
            return 1
        n = self.processes
        if n is None:
            if self.concurrency < PROCESS_MIN_CONCURRENCY or not _models_called(cells):
                return 1
            n = min(_cores(), self.concurrency // 8)
        return max(1, min(int(n), self.concurrency))

    def _run_children(
        self,
        children: list[_Child],
        items: list[tuple[int, Cell, list[Existing]]],
        by_key: dict[str, CellResult],
        bar: Bar,
    ) -> None:
        """Hand the cells to the worker processes as their threads free up; commit their writes
        with this process's writer thread (acknowledging the ones a debate waits for).  A cell's
        result is reported once everything its debate wrote is committed (the worker's thread
        has gone on to its next cell by then)."""
        feed = self._claimed_feed(items, lambda r: self._done(r, by_key, bar))
        live = list(children)
        stopping = False
        ready: queue.SimpleQueue[CellResult] = queue.SimpleQueue()
        owed = 0  # results waiting for their debate's writes to be committed
        for ch in children:
            ch.feed(feed, self.stop)
        while live or owed:
            try:
                while owed:
                    try:
                        r = ready.get_nowait()
                    except queue.Empty:
                        break
                    owed -= 1
                    self._done(r, by_key, bar)
                if self.stop.is_set() and not stopping:
                    stopping = True
                    for ch in live:
                        ch.send(("stop",))
                        ch.feed(feed, self.stop)
                if not live:
                    time.sleep(0.02)
                    continue
                for conn in mp_wait([ch.conn for ch in live], timeout=0.05 if owed else 0.5):
                    ch = next(x for x in live if x.conn is conn)
                    try:
                        msg = ch.conn.recv()  # (ch.conn is conn)
                    except (EOFError, OSError):
                        live.remove(ch)
                        self._lost(ch, by_key, bar)
                        continue
                    kind = msg[0]
                    if kind == "write":
                        _, token, write, wait_, checkpoint, pack = msg
                        ch.open.add(write.debate_id)
                        if pack is not None:
                            write.pack = _load_pack(*pack)
                        ack = (lambda err, ch=ch, token=token: ch.send(("ack", token, err))) if wait_ else None
                        self._grouped.writer.submit(write, checkpoint=checkpoint, urgent=wait_, on_done=ack)
                    elif kind == "status":
                        self._grouped.set_status(*msg[1:])
                    elif kind == "result":
                        r = msg[2]
                        ch.assigned.pop(msg[1], None)
                        ch.open.discard(r.debate_id)
                        ch.free += 1
                        ch.feed(feed, self.stop)
                        if self._grouped is not None and r.debate_id:  # after the debate's writes, in order
                            owed += 1
                            self._grouped.writer.submit(Write(r.debate_id), on_done=lambda _err, r=r: ready.put(r))
                        else:
                            self._done(r, by_key, bar)
                    elif kind == "exit":
                        live.remove(ch)
            except KeyboardInterrupt:
                self._interrupted(bar)

    def _claimed_feed(self, items: list[tuple[int, Cell, list[Existing]]], settle):
        """The worker processes' cells, each claimed before it is handed over (a cell another run
        holds or finished meanwhile is settled here, never sent)."""
        index = {c.key: i for i, c, _prior in items}
        queue = self._claiming([(c, prior) for _i, c, prior in items], ahead=self.concurrency + 1)
        while True:
            nxt = self._next_to_run(queue, settle)
            if nxt is None:
                return
            c, prior, action, _old = nxt
            if action != "run":  # only new debates go to a worker (it cannot reopen a stored one)
                settle(
                    CellResult(
                        c, "busy", _old, "its debate changed while this run started; rerun the spec to continue it"
                    )
                )
                continue
            yield index[c.key], c, prior

    def _lost(self, ch: _Child, by_key: dict[str, CellResult], bar: Bar) -> None:
        """A worker process that died: its cells are errors, its debates interrupted (resumable)."""
        ch.proc.join(1)
        why = f"worker process {ch.proc.pid} exited (code {ch.proc.exitcode})"
        for cell in ch.assigned.values():
            self._done(CellResult(cell, "error", None, why), by_key, bar)
        ch.assigned.clear()
        for debate_id in ch.open:
            try:
                self._grouped.set_status(debate_id, "interrupted", why)
            except Exception:  # noqa: BLE001
                pass

    def _emit(self, r: CellResult) -> None:
        if self.on_result is not None:
            with self._lock:
                self.on_result(r)


def run_batch(spec: BatchSpec | dict | str | Path, archive=None, **kwargs) -> BatchResult:
    """Run a spec (a BatchSpec, a mapping or a YAML / JSON path) into ``archive`` (an Archive, a path, or None).

    Keyword arguments go to :class:`BatchRunner` (``concurrency``, ``progress``, ``on_result``, ``stop``,
    ``router``, ``probe``).
    """
    if isinstance(archive, (str, Path)):
        from debate_core.archive import open_archive

        archive = open_archive(archive)
    return BatchRunner(spec, archive, **kwargs).run()
