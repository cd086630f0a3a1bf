"""A batch on Ray: one debate per Ray task, the driver the archive's one writer.

``python -m debate_core batch spec.yaml --ray auto|ADDRESS`` (or :class:`RayBatchRunner`)
expands the grid and plans every cell against the archive exactly as a local batch does
(finished cells are skipped, failed / stopped / interrupted ones continued), then:

* each cell runs as ONE Ray task, through the path a local cell takes — :func:`debate_core.runs.start`
  with the cell's :func:`~debate_core.batch.grid.config_for`, or for a continued debate its
  protocol's ``runner_for`` — with no archive (the null recorder); the task returns the
  finished :class:`~debate_core.models.Debate` as JSON, keys scrubbed;
* the driver writes the debates into the archive as they arrive, each group in one
  :meth:`Archive.save_many` transaction (DuckDB allows one writing process: this one), and
  reports them like a local batch (progress bar, summary, :class:`BatchResult`);
* provider keys reach the workers only through the tasks' environment (``runtime_env``
  ``env_vars`` copied from the driver's environment), never through the spec or a result.

Ray is imported only by :func:`import_ray`, when a batch runs on it.
"""

from __future__ import annotations

import json
import logging
import os
import socket
import sys
import threading
import time
import uuid
from pathlib import Path
from typing import Any

from debate_core import runs
from debate_core.batch.grid import Cell, Existing, config_for, existing_cells, plan_action
from debate_core.batch.progress import Bar, BatchResult, CellResult
from debate_core.batch.router import build_router, quiet_litellm_loop_noise
from debate_core.batch.runner import BatchRunner
from debate_core.batch.spec import BatchSpec, digest, env_references
from debate_core.errors import ConfigError
from debate_core.models import Debate
from debate_core.protocols import registry
from debate_core.recorder import Recorder
from debate_core.scrub import env_secrets, scrub
from debate_core.settings import SECRET_NAME

RAY_MISSING = "--ray needs Ray: pip install -r requirements-ray.txt"
# settings a worker reads besides the provider variables (SECRET_NAME: keys, api bases, DEBATE_MODEL)
WORKER_SETTINGS = ("DEBATE_BACKOFF", "LITELLM_LOCAL_MODEL_COST_MAP")
UNSHARED_LIMITS = (
    "note: rpm/tpm limits are counted by each Ray worker on its own; name a Redis under "
    "`router:` to share them (docs/scale.md)"
)


def import_ray():
    """The ``ray`` module, or a one-line :class:`ConfigError` saying how to install it."""
    try:
        import ray
    except ImportError:
        raise ConfigError(RAY_MISSING) from None
    return ray


def first_line(exc: BaseException) -> str:
    """One line for a cell's reason (as a local batch words it)."""
    cause = getattr(exc, "cause", None)
    if isinstance(cause, BaseException):  # a RayTaskError carries the task's own exception
        exc = cause
        cause = getattr(exc, "cause", None)
    text = cause if isinstance(cause, str) and cause else (str(exc).strip() or type(exc).__name__)
    text = text.splitlines()[0]
    name = type(exc).__name__
    return text if name in ("InputError", "SpecError", "GatewayError", "ConfigError") else f"{name}: {text}"


def worker_env(spec: BatchSpec, environ: dict[str, str] | None = None) -> dict[str, str]:
    """The variables a debate task gets from the driver's environment (names only are chosen here).

    Provider keys, API bases and versions and ``DEBATE_MODEL`` / ``DEBATE_API_BASE`` (the
    names :data:`debate_core.settings.SECRET_NAME` matches), the worker settings, every
    ``os.environ/NAME`` the spec refers to, and the spec's ``ray.env_vars``.  Ray's own
    variables (``RAY_*``, its auth token among them) are never copied.  ``PYTHONPATH`` gets
    the folder this ``debate_core`` was imported from, unless it is an installed package.
    """
    env = dict(os.environ if environ is None else environ)
    names = (
        {n for n in env if SECRET_NAME.match(n)}
        | set(WORKER_SETTINGS)
        | set(env_references(spec))
        | set(spec.ray.env_vars)
    )
    out = {n: env[n] for n in sorted(names) if env.get(n) and not n.startswith("RAY_")}
    import debate_core

    root = str(Path(debate_core.__file__).resolve().parents[1])
    if not any(part in root for part in ("site-packages", "dist-packages")):
        out["PYTHONPATH"] = os.pathsep.join(p for p in (root, env.get("PYTHONPATH", "")) if p)
    return out


# ------------------------------------------------------------------ in a Ray worker


class _Stamp(Recorder):
    """The null recorder, except that it stamps the batch id and keeps the debate once created."""

    def __init__(self, batch_id: str):
        self.batch_id = batch_id
        self.debate: Debate | None = None

    def start(self, debate: Debate) -> None:
        debate.batch_id = self.batch_id
        self.debate = debate


class _StopFlag:
    """A named Ray actor whose existence tells the batch's tasks to stop at their next round."""

    def ping(self) -> bool:
        return True


_ROUTERS: dict[str, Any] = {}
_ROUTERS_LOCK = threading.Lock()


def _router_for(spec: BatchSpec):
    """One router per worker process and spec (with Redis in the spec, its limits are shared)."""
    if not spec.deployments:
        return None
    key = digest(spec.model_dump(mode="json"), 16)
    with _ROUTERS_LOCK:
        if key not in _ROUTERS:
            _ROUTERS[key] = build_router(spec)
        return _ROUTERS[key]


def _stop_requested(flag: str | None) -> bool:
    if not flag:
        return False
    import ray

    try:
        ray.get_actor(flag)
    except Exception:  # noqa: BLE001 - no such actor: nobody asked to stop
        return False
    return True


def run_remote_cell(
    spec: BatchSpec, cell: Cell, action: str, stored: str | None, pack_path: str | None, flag: str | None
) -> dict[str, Any]:
    """One cell's debate with no archive (in a Ray worker): ``{status, reason, debate (JSON), seconds}``.

    ``action`` is ``run`` (a new debate) or ``resume`` (``stored``: the archived debate as JSON).
    An error is reported as status ``error`` with one line, and the debate (when one was
    created) comes back ``failed``, as a local batch records it.
    """
    t0 = time.perf_counter()
    stamp = _Stamp(spec.batch_id or "")
    debate: Debate | None = None
    status: str  # a debate's status, or "error"
    try:
        options: dict[str, Any] = dict(spec.gateway)
        router = _router_for(spec)
        if router is not None:
            options["router"] = router
        if router is not None or set(cell.models) - {"offline"} or cell.judge_model:
            quiet_litellm_loop_noise()
        if action == "resume":
            debate = Debate.model_validate_json(stored or "{}")
            runner = registry.get(debate.protocol).runner_for(
                debate, stamp, gateway_options=options, pack_path=pack_path
            )
        else:
            runner, debate = runs.start(config_for(spec, cell), stamp, probe=False, gateway_options=options)
        debate = runner.run(debate, should_stop=lambda: _stop_requested(flag))
        status, reason = debate.status, debate.stop_reason
    except Exception as exc:  # noqa: BLE001 - one debate's error never stops the batch
        reason = first_line(exc)
        debate = stamp.debate or debate
        if debate is not None and debate.status == "running":
            debate.status, debate.stop_reason = "failed", f"batch: {reason}"
        status = "error"
    secrets = env_secrets()
    data = None
    if debate is not None:
        debate.batch_id = spec.batch_id
        data = json.dumps(scrub(debate.model_dump(mode="json"), secrets), ensure_ascii=False)
    return {
        "status": status,
        "reason": scrub(reason, secrets) if reason else reason,
        "debate": data,
        "seconds": time.perf_counter() - t0,
    }


# ------------------------------------------------------------------ the driver


class RayBatchRunner(BatchRunner):
    """Runs one spec's grid on Ray into an archive (or nowhere, with ``archive=None``).

    ``address``: ``auto`` (the cluster this machine belongs to; none running: a local Ray
    instance is started, and stopped after the batch) or a cluster address (``HOST:PORT``; a
    ``ray://`` address needs Ray Client, ``ray[client]``).  When Ray is already initialised in
    this process it is used as it is.
    Other keyword arguments as :class:`BatchRunner`.
    """

    def __init__(self, spec, archive=None, *, address: str = "auto", **kwargs: Any):
        super().__init__(spec, archive, **kwargs)
        self.ray = import_ray()
        self.address = (address or "auto").strip()
        self.flag_name = f"debate-batch-stop-{uuid.uuid4().hex[:12]}"
        self._flag: Any = None

    # ---------------------------------------------------------------- set-up
    def connect(self) -> bool:
        """Join (or start) the Ray cluster; True when this call initialised Ray here."""
        ray = self.ray
        if ray.is_initialized():
            return False
        quiet = dict(logging_level=logging.ERROR, log_to_driver=False)
        if self.address == "auto":
            try:
                ray.init(address="auto", **quiet)
            except ConnectionError:
                ray.init(include_dashboard=False, **quiet)
                self._say(
                    f"no Ray cluster is running here: started a local Ray instance "
                    f"({int(ray.cluster_resources().get('CPU', 0))} CPUs) for this batch"
                )
            except Exception as exc:  # noqa: BLE001 - one line, not Ray's traceback
                raise ConfigError(f"--ray auto: cannot join the Ray cluster running here: {first_line(exc)}") from None
            return True
        self._reachable(self.address)
        try:
            ray.init(address=self.address, **quiet)
        except Exception as exc:  # noqa: BLE001 - one line, not Ray's traceback
            raise ConfigError(f"--ray {self.address}: cannot join that Ray cluster: {first_line(exc)}") from None
        return True

    @staticmethod
    def _reachable(address: str) -> None:
        """Refuse a ``HOST:PORT`` nothing listens on at once (Ray itself retries for minutes)."""
        target = address.split("://", 1)[-1]
        host, sep, port = target.rpartition(":")
        if not sep or not port.isdigit():
            raise ConfigError(f"--ray {address!r}: give auto or a cluster address, HOST:PORT")
        try:
            socket.create_connection((host.strip("[]") or "127.0.0.1", int(port)), timeout=5).close()
        except OSError as exc:
            raise ConfigError(
                f"--ray {address}: nothing answers there ({exc.strerror or exc}); start the cluster "
                "with `ray start --head` or use --ray auto"
            ) from None

    def _say(self, text: str) -> None:
        if self.progress:
            sys.stderr.write(text + "\n")

    def _reopen(self, debate_id: str) -> tuple[str, str | None]:
        """A stored debate to continue on Ray: claimed by this process (its one writer), as JSON, and its pack."""
        debate = self.archive.get_debate(debate_id)
        self.archive.claim(debate_id)
        return debate.model_dump_json(), runs._pack_path(self.archive, debate, None)

    def _raise_flag(self) -> None:
        if self._flag is None:
            self._flag = self.ray.remote(num_cpus=0)(_StopFlag).options(name=self.flag_name).remote()

    # -------------------------------------------------------------- the batch
    def run(self) -> BatchResult:
        t0 = time.perf_counter()
        cells = self.cells()
        self.preflight(cells)
        if self.spec.deployments:
            _ = self.router  # a bad router or an unreachable Redis is said once, before any task
        if self.archive is not None:
            self.archive.mark_interrupted()
            existing = existing_cells(self.archive, self.batch_id)
        else:
            existing = {}
        todo = [(c, existing.get(c.key, [])) for c in cells]
        # Ray is joined (or started) only when some cell has a debate to run
        work = any(plan_action(prior, resume=self.spec.resume)[0] not in ("skip", "busy") for _c, prior in todo)
        started = self.connect() if work else False
        try:
            return self._run(todo, t0)
        finally:
            if self._flag is not None:
                try:
                    self.ray.kill(self._flag)
                except Exception:  # noqa: BLE001
                    pass
                self._flag = None
            if started:
                self.ray.shutdown()

    def _run(self, todo: list[tuple[Cell, list[Existing]]], t0: float) -> BatchResult:
        ray = self.ray
        result = BatchResult(
            batch_id=self.batch_id, protocol=self.spec.protocol, archive=str(getattr(self.archive, "path", "")) or None
        )
        bar = Bar(len(todo), self.batch_id, self.progress)
        by_key: dict[str, CellResult] = {}
        remote: dict[str, Any] = {}  # the task and the spec in Ray's object store, made at the first submission
        pending: dict[Any, tuple[Cell, str, str | None]] = {}
        queue = self._claiming(todo, ahead=self.concurrency)  # each cell claimed before its task is submitted

        def finish(r: CellResult) -> None:
            by_key[r.cell.key] = r
            bar.done(r)
            self._emit(r)

        def submit_more() -> None:
            while len(pending) < self.concurrency and not self.stop.is_set():
                nxt = self._next_to_run(queue, finish)
                if nxt is None:
                    return
                c, _prior, action, old_id = nxt
                stored = pack_path = None
                if action == "resume":
                    assert old_id is not None  # _next_to_run names the debate it resumes
                    try:
                        stored, pack_path = self._reopen(old_id)
                    except Exception as exc:  # noqa: BLE001 - this cell errors, the others run
                        finish(CellResult(c, "error", old_id, first_line(exc), resumed=True))
                        continue
                if not remote:
                    remote["task"] = ray.remote(run_remote_cell).options(
                        num_cpus=self.spec.ray.num_cpus, runtime_env={"env_vars": worker_env(self.spec)}
                    )
                    remote["spec"] = ray.put(self.spec)
                ref = remote["task"].remote(remote["spec"], c, action, stored, pack_path, self.flag_name)
                pending[ref] = (c, action, old_id)

        def collect(block: bool) -> None:
            refs = list(pending)
            ready, rest = ray.wait(refs, num_returns=1, timeout=0.5 if block else 0)
            if ready and rest:
                ready += ray.wait(rest, num_returns=len(rest), timeout=0)[0]
            if ready:
                self._write([(ref, pending.pop(ref)) for ref in ready], finish)

        try:
            with bar:
                if (
                    any(d.litellm_params.get("rpm") or d.litellm_params.get("tpm") for d in self.spec.deployments)
                    and not self.spec.redis
                ):
                    bar.note(UNSHARED_LIMITS)
                submit_more()
                try:
                    while pending:
                        collect(block=True)
                        if self.stop.is_set():
                            self._raise_flag()
                        submit_more()
                except KeyboardInterrupt:
                    self.stop.set()
                    self._raise_flag()
                    bar.note("stopping: debates running on Ray halt at their next round; rerun the spec to resume")
                    while pending:
                        collect(block=True)
        finally:
            self._release_claims()  # every finished debate is written by now (in _write)
            self._settle(result, todo, by_key, t0)
        return self._audit_after(result)

    def _write(self, done: list[tuple[Any, tuple[Cell, str, str | None]]], finish) -> None:
        """Finished tasks → their debates into the archive in one transaction → their cell results."""
        outs: list[tuple[CellResult, Debate | None]] = []
        for ref, (c, action, old_id) in done:
            resumed = action == "resume"
            try:
                out = self.ray.get(ref)
            except Exception as exc:  # noqa: BLE001 - the task itself failed (its worker died, ...)
                outs.append((CellResult(c, "error", old_id, first_line(exc), resumed=resumed), None))
                continue
            debate = Debate.model_validate_json(out["debate"]) if out["debate"] else None
            if debate is not None:
                debate.batch_id = self.batch_id
            outs.append(
                (
                    CellResult(
                        c,
                        out["status"],
                        debate.id if debate else None,
                        out["reason"],
                        resumed=resumed,
                        seconds=out["seconds"],
                    ),
                    debate,
                )
            )
        debates = [d for _r, d in outs if d is not None]
        if debates and self.archive is not None:
            try:
                self.archive.save_many(debates)
            except Exception as exc:  # noqa: BLE001 - reported per cell
                for r, d in outs:
                    if d is not None:
                        r.status, r.reason = "error", f"not archived: {first_line(exc)}"
        for r, _d in outs:
            finish(r)


def run_batch_ray(spec, archive=None, *, address: str = "auto", **kwargs: Any) -> BatchResult:
    """:func:`~debate_core.batch.run_batch` on Ray: ``archive`` an Archive, a path or None."""
    if isinstance(archive, (str, Path)):
        from debate_core.archive import open_archive

        archive = open_archive(archive)
    return RayBatchRunner(spec, archive, address=address, **kwargs).run()
