"""A wide batch's worker processes: forked from the batch's process (one per core), each runs the
cells it is sent in threads and sends every archive write its debates make, built here by a
:class:`~debate_core.archive.writes.WriteBuilder`, to the parent, whose one writer thread commits
them (docs/batch.md, "Commit modes").  The parent's side of the conversation is
:meth:`~debate_core.batch.runner.BatchRunner._run_children`.
"""

from __future__ import annotations

import gc
import itertools
import multiprocessing as mp
import os
import signal
import sys
import threading
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from debate_core.archive.connection import FINISHED
from debate_core.archive.writes import Write, WriteBuilder
from debate_core.batch.claiming import _first_line
from debate_core.batch.grid import Cell, Existing
from debate_core.batch.progress import CellResult
from debate_core.batch.spec import BatchSpec
from debate_core.errors import ArchiveError
from debate_core.models import Debate
from debate_core.recorder import Recorder

GROUP_DURABLE = "finish"  # what a debate waits for in group mode (GroupedRecorder: finish, speech, all)


def _cores() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:
        return os.cpu_count() or 1


class _Child:
    """The parent's handle on one worker process."""

    def __init__(self, proc, conn, threads: int):
        self.proc, self.conn = proc, conn
        self.free = threads + 1  # cells it may hold: one queued behind its threads
        self.assigned: dict[int, Cell] = {}
        self.open: set[str] = set()  # debates it writes that have not reported a result
        self.done = False
        self._lock = threading.Lock()  # the main thread feeds, the writer thread acknowledges

    def send(self, msg: tuple) -> None:
        with self._lock:
            try:
                self.conn.send(msg)
            except (OSError, ValueError):
                pass  # gone: noticed by the reader

    def feed(self, feed, stop: threading.Event) -> None:
        while self.free > 0 and not stop.is_set():
            item = next(feed, None)
            if item is None:
                break
            idx, cell, prior = item
            self.assigned[idx] = cell
            self.free -= 1
            self.send(("cell", idx, cell, prior))
        else:
            if not stop.is_set():
                return
        if not self.done:
            self.done = True
            self.send(("done",))

    def end(self) -> None:
        self.proc.join(5)
        if self.proc.is_alive():
            self.proc.kill()
            self.proc.join(5)
        self.conn.close()


def _load_pack(name: str, version: str, path: str | None) -> Any:
    from debate_core.content.packs import get_pack

    try:
        pack = get_pack(path)
    except Exception:  # noqa: BLE001 - a pack that moved is simply not linked
        return None
    return pack if (pack.name, pack.version) == (name, version) else None


def _fork_children(parent: Any, n: int) -> list[_Child]:
    """Fork ``n`` worker processes for ``parent`` (a :class:`~debate_core.batch.runner.BatchRunner`),
    before it starts any thread; each builds its own runner of the same class."""
    ctx = mp.get_context("fork")
    children: list[_Child] = []
    for i in range(n):
        threads = parent.concurrency // n + (1 if i < parent.concurrency % n else 0)
        mine, theirs = ctx.Pipe()
        siblings = [ch.conn for ch in children]  # the earlier workers' pipes: not this one's to hold open
        proc = ctx.Process(
            target=_child_main,
            args=(
                theirs,
                type(parent),
                parent.spec,
                threads,
                parent.archive is not None,
                parent.durable,
                os.getpid(),
                siblings,
            ),
            name=f"batch-worker-{i}",
            daemon=True,
        )
        proc.start()
        theirs.close()
        children.append(_Child(proc, mine, threads))
    return children


class _RemoteRecorder(Recorder):
    """In a worker process: the archive's writes, built here and committed by the parent's writer."""

    def __init__(self, conn, durable: str = GROUP_DURABLE):
        self.conn = conn
        self.durable = durable
        self.builder = WriteBuilder()
        self._lock = threading.Lock()
        self._tokens = itertools.count(1)
        self._waiting: dict[int, list] = {}

    def send(self, msg: tuple) -> None:
        with self._lock:
            self.conn.send(msg)

    def _submit(self, write: Write, wait: bool, checkpoint: bool = False, pack: Any = None) -> None:
        token = next(self._tokens)
        if wait:
            slot = self._waiting[token] = [threading.Event(), None]
        self.send(("write", token, write, wait, checkpoint, pack))
        if wait:
            slot[0].wait()
            self._waiting.pop(token, None)
            if slot[1]:
                raise ArchiveError(slot[1])

    def acked(self, token: int, error: str | None) -> None:
        slot = self._waiting.get(token)
        if slot is not None:
            slot[1] = error
            slot[0].set()

    def start(self, debate: Debate) -> None:
        write = self.builder.write_start(debate)
        pack: tuple[str, str, str | None] | None = None
        if write.pack is not None:  # the parent loads the pack itself rather than receive it
            pack, write.pack = (write.pack.name, write.pack.version, debate.config.pack), None
        self._submit(write, False, pack=pack)

    def speech(self, debate: Debate, speech) -> None:
        self._submit(self.builder.write_speech(debate, speech), self.durable in ("speech", "all"))

    def summary(self, debate: Debate, summary) -> None:
        self._submit(self.builder.write_summary(debate, summary), self.durable == "all")

    def call(self, debate: Debate, call) -> None:
        self._submit(self.builder.write_call(debate, call), self.durable == "all")

    def update(self, debate: Debate) -> None:
        # a finished debate does not wait here: the parent reports its cell once it is committed
        self._submit(self.builder.write_update(debate), self.durable == "all", checkpoint=debate.status in FINISHED)

    def set_status(self, debate_id: str, status: str, reason: str = "") -> None:
        self.send(("status", debate_id, status, reason))


def _child_main(
    conn, runner_class: Any, spec: BatchSpec, threads: int, archived: bool, durable: str, parent: int, siblings: list
) -> None:
    """A worker process: runs the cells the parent sends in ``threads`` threads, reports each result.
    It exits at once when the parent is gone (it holds nothing the archive still needs)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's: it says stop
    for other in siblings:
        other.close()
    gc.freeze()  # what came from the parent (litellm, the packs …) lives on here: the collector skips it
    lm = sys.modules.get("litellm")  # HTTP clients copied from the parent share its sockets: start afresh
    cache = getattr(lm, "in_memory_llm_clients_cache", None) if lm is not None else None
    if cache is not None and hasattr(cache, "flush_cache"):
        cache.flush_cache()
    runner = runner_class(spec, None, concurrency=threads, probe=False)
    remote = _RemoteRecorder(conn, durable)
    runner._remote = remote if archived else None
    running = [0]
    lock = threading.Lock()

    def work(idx: int, cell: Cell, prior: list[Existing]) -> None:
        try:
            r = runner.run_cell(cell, prior)
        except BaseException as exc:  # noqa: BLE001 - reported as the cell's error
            r = CellResult(cell, "error", None, _first_line(exc))
        try:
            remote.send(("result", idx, r))
        finally:
            with lock:
                running[0] -= 1

    done = False
    with ThreadPoolExecutor(max_workers=threads, thread_name_prefix="batch") as pool:
        while True:
            if os.getppid() != parent:
                os._exit(1)  # the parent is gone: nothing here is worth keeping
            if conn.poll(0.2):
                try:
                    msg = conn.recv()
                except (EOFError, OSError):
                    os._exit(1)
                if msg[0] == "cell":
                    with lock:
                        running[0] += 1
                    pool.submit(work, *msg[1:])
                elif msg[0] == "ack":
                    remote.acked(msg[1], msg[2])
                elif msg[0] == "stop":
                    runner.stop.set()
                elif msg[0] == "done":
                    done = True
            with lock:
                if done and running[0] == 0:
                    break
    remote.send(("exit",))
