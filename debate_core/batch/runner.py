"""Running a batch: its cells in worker threads under a concurrency limit, into the archive.

New cells start through :func:`debate_core.runs.start` and cells whose debate failed,
stopped or was interrupted continue through :func:`debate_core.runs.reopen`; one debate's
error is recorded for its cell and never stops the others.  Model calls go through the
gateway, or through one shared ``litellm.Router`` when the spec lists ``deployments``.
"""

from __future__ import annotations

import threading
import time
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from pathlib import Path
from typing import Any, Callable, Optional, Union

from debate_core import runs
from debate_core.models import Debate
from debate_core.protocols import registry
from debate_core.recorder import NULL_RECORDER, Recorder
from debate_core.batch.grid import Cell, Existing, config_for, existing_cells, expand, plan_action
from debate_core.batch.progress import Bar, BatchResult, CellResult
from debate_core.batch.router import build_router, quiet_litellm_loop_noise
from debate_core.batch.spec import BatchSpec, load_spec


class _Tagged(Recorder):
    """Forwards to the archive; stamps the batch id on the debate when it is created."""

    def __init__(self, inner: Recorder, batch_id: str):
        self.inner = inner
        self.batch_id = batch_id
        self.debate: Optional[Debate] = None

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
        self.queue: "queue.Queue[Optional[Debate]]" = queue.Queue()
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


def _models_called(cells: list[Cell]) -> set[str]:
    """The models the cells' debates call (debaters and judges), offline excluded."""
    return {m for c in cells for m in c.models + ((c.judge_model,) if c.judge_model else ())} - {"offline"}


class BatchRunner:
    """Runs one spec's grid into an archive (or nowhere, with ``archive=None``)."""

    def __init__(self, spec: Union[BatchSpec, dict, str, Path], archive=None, *,
                 concurrency: Optional[int] = None, progress: Union[bool, str] = False,
                 on_result: Optional[Callable[[CellResult], None]] = None,
                 stop: Optional[threading.Event] = None, router: Any = None, probe: bool = True):
        self.spec = load_spec(spec)
        self.archive = archive
        self.concurrency = max(1, int(concurrency or self.spec.concurrency))
        self.progress = progress
        self.on_result = on_result
        self.stop = stop or threading.Event()
        self.probe = probe
        self._router = router
        self._router_built = router is not None
        self._lock = threading.Lock()
        self._committer: Optional[_Committer] = None

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

    def plan(self) -> "Any":
        """The grid as a DataFrame with what a run would do per cell: run, resume or skip."""
        import pandas as pd

        cells = self.cells()
        existing = existing_cells(self.archive, self.batch_id) if self.archive is not None else {}
        rows = []
        for c in cells:
            action, debate_id = plan_action(existing.get(c.key, []), resume=self.spec.resume)
            rows.append({**c.as_row(), "action": action, "debate_id": debate_id})
        return pd.DataFrame(rows)

    # ------------------------------------------------------------- one cell
    def run_cell(self, cell: Cell, prior: Optional[list[Existing]] = None) -> CellResult:
        t0 = time.perf_counter()
        action, old_id = plan_action(prior or [], resume=self.spec.resume)
        if action == "skip":
            return CellResult(cell, "skipped", old_id, "completed in an earlier run")
        if action == "busy":
            return CellResult(cell, "busy", old_id, "a live process is running this cell's debate")
        if self.stop.is_set():
            return CellResult(cell, "cancelled", None, "the batch was stopped before this cell")
        buffered = self.archive is not None and action == "run" and self._buffered(cell)
        inner = self.archive if self.archive is not None and not buffered else NULL_RECORDER
        tag = _Tagged(inner, self.batch_id)
        debate: Optional[Debate] = None
        try:
            if action == "resume":
                runner, debate = runs.reopen(self.archive, old_id, gateway_options=self.gateway_options())
            else:
                runner, debate = runs.start(config_for(self.spec, cell), tag, probe=False,
                                            gateway_options=self.gateway_options())
            debate = runner.run(debate, should_stop=self.stop.is_set)
        except Exception as exc:  # noqa: BLE001 - one debate's error never stops the batch
            reason = _first_line(exc)
            live = tag.debate or debate
            if live is not None and live.status == "running":
                live.status, live.stop_reason = "failed", f"batch: {reason}"
                if buffered:
                    self._commit(live)
                elif self.archive is not None:
                    try:
                        self.archive.set_status(live.id, "failed", live.stop_reason)
                    except Exception:  # noqa: BLE001
                        pass
            return CellResult(cell, "error", live.id if live else None, reason, resumed=action == "resume",
                              seconds=time.perf_counter() - t0)
        if buffered:
            self._commit(debate)
        return CellResult(cell, debate.status, debate.id, debate.stop_reason, resumed=action == "resume",
                          seconds=time.perf_counter() - t0)

    def _buffered(self, cell: Cell) -> bool:
        """``commit: debate`` (or ``auto`` for debates on the offline engine, which take milliseconds)."""
        if self.spec.commit == "speech":
            return False
        if self.spec.commit == "debate":
            return True
        return registry.get(cell.protocol).offline and (not cell.models or cell.models[0] == "offline")

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
        result = BatchResult(batch_id=self.batch_id, protocol=self.spec.protocol,
                             archive=str(getattr(self.archive, "path", "")) or None)
        todo = [(c, existing.get(c.key, [])) for c in cells]
        bar = Bar(len(todo), self.batch_id, self.progress)
        by_key: dict[str, CellResult] = {}
        try:
            with bar, ThreadPoolExecutor(max_workers=self.concurrency, thread_name_prefix="batch") as pool:
                pending: dict[Future, Cell] = {}
                queue = iter(todo)

                def submit_more() -> None:
                    while len(pending) < self.concurrency * 2 and not self.stop.is_set():
                        try:
                            c, prior = next(queue)
                        except StopIteration:
                            return
                        action, _old = plan_action(prior, resume=self.spec.resume)
                        if action in ("skip", "busy"):
                            r = self.run_cell(c, prior)
                            by_key[c.key] = r
                            bar.done(r)
                            self._emit(r)
                            continue
                        pending[pool.submit(self.run_cell, c, prior)] = c

                submit_more()
                try:
                    while pending:
                        finished, _ = wait(list(pending), timeout=0.5, return_when=FIRST_COMPLETED)
                        for fut in finished:
                            c = pending.pop(fut)
                            r = fut.result()
                            by_key[c.key] = r
                            bar.done(r)
                            self._emit(r)
                        submit_more()
                except KeyboardInterrupt:
                    self.stop.set()
                    bar.note("stopping: running debates halt at their next round; rerun the spec to resume")
                    for fut, c in list(pending.items()):
                        if fut.cancel():
                            pending.pop(fut)
                    for fut, c in pending.items():
                        by_key[c.key] = fut.result()
        finally:
            if self._committer is not None:
                self._committer.close()
                for r in by_key.values():
                    why = self._committer.failures.get(r.debate_id or "")
                    if why:
                        r.status, r.reason = "error", why
                self._committer = None
            for c, _prior in todo:
                if c.key not in by_key:
                    by_key[c.key] = CellResult(c, "cancelled", None, "the batch was stopped before this cell")
            result.results = [by_key[c.key] for c, _ in todo]
            result.elapsed = time.perf_counter() - t0
        if self.spec.audit and registry.get(self.spec.protocol).judged and self.archive is not None \
                and not self.stop.is_set():
            from debate_core.analysis.audit import audit_batch

            result.audit = audit_batch(self.archive, self.batch_id, judges=self.spec.judge_models or None,
                                       variants=self.spec.audit_variants, concurrency=self.concurrency,
                                       gateway_options=self.gateway_options())
        return result

    def _emit(self, r: CellResult) -> None:
        if self.on_result is not None:
            with self._lock:
                self.on_result(r)


def run_batch(spec: Union[BatchSpec, dict, str, Path], archive=None, **kwargs) -> BatchResult:
    """Run a spec (a BatchSpec, a mapping or a YAML / JSON path) into ``archive`` (an Archive, a path, or None).

    Keyword arguments go to :class:`BatchRunner` (``concurrency``, ``progress``, ``on_result``, ``stop``,
    ``router``, ``probe``).
    """
    if isinstance(archive, (str, Path)):
        from debate_core.archive import open_archive

        archive = open_archive(archive)
    return BatchRunner(spec, archive, **kwargs).run()
