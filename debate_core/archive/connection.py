"""Attaching the archive file: the per-process DuckDB host, lock waits, checkpoints, the
schema on opening, and the writer of a running debate (is it still alive?).

DuckDB lets one process write a file at a time.  The archive never keeps the file open
between operations: each operation attaches the file to a per-process in-memory DuckDB
instance, runs one short transaction and detaches it, which releases the file lock; a lock
held by another process is waited for with bounded exponential backoff (``lock_timeout``).
Within one process, operations are serialised by one lock.

A :class:`GroupWriter` is the other way to write: one thread that commits the writes queued
by many debates together, one transaction per ``interval`` (see docs/batch.md, "Commit
modes"), which is what lets a batch run dozens of model-backed debates at once (the writes it
commits are built by :mod:`debate_core.archive.writes`).
"""

from __future__ import annotations

import os
import random
import socket
import sys
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from datetime import timedelta
from pathlib import Path
from typing import Any

import duckdb
import pandas as pd

from debate_core.archive import migrations
from debate_core.archive.parts import ArchiveParts
from debate_core.archive.values import first_line, now
from debate_core.errors import ArchiveError

REPO_ROOT = Path(__file__).resolve().parents[2]
DEFAULT_ARCHIVE = REPO_ROOT / "data" / "archive.duckdb"
ARCHIVE_ENV = "DEBATE_ARCHIVE"
LOCK_TIMEOUT = 30.0
STALE_FOREIGN_WRITER = timedelta(hours=1)
WAL_CHECKPOINT_BYTES = 32 * 1024  # fold the write-ahead log into the file past this size
FINISHED = ("completed", "failed", "stopped")  # checkpointed on reaching one: the file alone holds the debate
STATUSES = ("running",) + FINISHED + ("interrupted",)


def default_archive_path() -> Path:
    env = os.environ.get(ARCHIVE_ENV, "").strip()
    return Path(env).expanduser() if env else DEFAULT_ARCHIVE


# ------------------------------------------------------------- the writer


def _proc_stat(pid: int) -> tuple[str, str] | None:
    """(state, start time in clock ticks) from /proc, or None where there is no /proc."""
    try:
        raw = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    fields = raw[raw.rfind(")") + 2 :].split()
    return (fields[0], fields[19]) if len(fields) > 19 else None


def writer_identity() -> tuple[int, str, str]:
    pid = os.getpid()
    stat = _proc_stat(pid)
    return pid, socket.gethostname(), stat[1] if stat else ""


def process_alive(pid: int | None, start: str | None = None) -> bool:
    """Is process ``pid`` (started at ``start`` ticks, when known) still running on this host?"""
    if not pid or pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        pass
    except OSError:
        return False
    stat = _proc_stat(pid)
    if stat is not None:
        state, started = stat
        if state in ("Z", "X", "x"):
            return False
        if start and started != start:
            return False  # the pid was reused by another process
    return True


# ---------------------------------------------------------- the DuckDB host

HOST_LOCK = threading.RLock()
_HOST: duckdb.DuckDBPyConnection | None = None
_HOST_PID: int | None = None
_ALIAS = "arc"


def _host() -> duckdb.DuckDBPyConnection:
    """One in-memory DuckDB instance per process; archives are attached to it per operation."""
    global _HOST, _HOST_PID
    if _HOST is None or _HOST_PID != os.getpid():
        _HOST = duckdb.connect(":memory:")
        _HOST_PID = os.getpid()
        try:
            # Detaching would checkpoint (several fsyncs) after every short transaction;
            # the WAL is folded in by _session once it passes WAL_CHECKPOINT_BYTES instead.
            _HOST.execute("SET checkpoint_on_detach = 'DISABLED'")
        except duckdb.Error:
            pass
    return _HOST


def is_lock_error(exc: BaseException) -> bool:
    msg = str(exc)
    return "lock" in msg.lower() and ("Could not set lock" in msg or "Conflicting lock" in msg)


class Connection(ArchiveParts):
    """Sessions on the archive file, its schema, and the ownership of running debates."""

    path: Path
    lock_timeout: float
    _identity: tuple[int, str, str]

    # ------------------------------------------------------------- sessions
    def _check_header(self) -> None:
        try:
            with open(self.path, "rb") as fh:
                head = fh.read(16)
        except OSError as exc:
            raise ArchiveError(f"cannot read archive {self.path}: {exc.strerror}") from None
        if len(head) < 12 or head[8:12] != b"DUCK":
            raise ArchiveError(
                f"{self.path} is not a DuckDB archive (corrupt or another kind of file); it was left untouched"
            )

    def _attach(self, host: duckdb.DuckDBPyConnection, write: bool) -> None:
        opts = "" if write else " (READ_ONLY)"
        path = str(self.path).replace("'", "''")
        deadline = time.monotonic() + self.lock_timeout
        delay = 0.002
        while True:
            try:
                host.execute(f"ATTACH '{path}' AS {_ALIAS}{opts}")
                return
            except duckdb.Error as exc:
                if is_lock_error(exc):
                    if time.monotonic() >= deadline:
                        raise ArchiveError(
                            f"archive {self.path} stayed locked by another process for {self.lock_timeout:.0f} s"
                        ) from None
                    time.sleep(delay * (0.5 + random.random()))
                    delay = min(delay * 2, 0.1)
                    continue
                raise ArchiveError(
                    f"cannot open archive {self.path}: {first_line(exc)} (the file was left untouched)"
                ) from None

    @contextmanager
    def _session(self, write: bool = False, checkpoint: bool = False) -> Iterator[duckdb.DuckDBPyConnection]:
        """Attach, run one transaction (when writing), detach: the file lock is held only inside.
        ``checkpoint`` folds the write-ahead log into the file after the commit (a debate finished)."""
        with HOST_LOCK:
            host = _host()
            if self.path.exists() and self.path.stat().st_size > 0:
                self._check_header()
            elif not write:
                raise ArchiveError(f"archive {self.path} does not exist")
            self._attach(host, write)
            try:
                host.execute(f"USE {_ALIAS}")
                if write:
                    host.execute("BEGIN TRANSACTION")
                try:
                    yield host
                    if write:
                        host.execute("COMMIT")
                        self._maybe_checkpoint(host, force=checkpoint)
                except BaseException:
                    if write:
                        try:
                            host.execute("ROLLBACK")
                        except duckdb.Error:
                            pass
                    raise
            finally:
                try:
                    host.execute("USE memory")
                finally:
                    host.execute(f"DETACH {_ALIAS}")

    def _wal(self) -> Path:
        return self.path.with_name(self.path.name + ".wal")

    def _maybe_checkpoint(self, host, force: bool = False) -> None:
        try:
            size = self._wal().stat().st_size
        except OSError:
            return
        if size > WAL_CHECKPOINT_BYTES or (force and size > 0):
            try:
                host.execute(f"CHECKPOINT {_ALIAS}")
            except duckdb.Error:
                pass  # committed already; the log is folded in by a later write

    def checkpoint(self) -> None:
        """Fold the write-ahead log into the archive file (e.g. before copying the file)."""
        with HOST_LOCK:
            host = _host()
            self._attach(host, True)
            try:
                host.execute(f"CHECKPOINT {_ALIAS}")
            finally:
                host.execute(f"DETACH {_ALIAS}")

    def query(self, sql: str, params: list | None = None) -> pd.DataFrame:
        """A trusted, parameterised read: what the archive's own named reads run (code outside the
        archive calls one of those by name; user SQL goes through :meth:`sql`)."""
        with self._session() as con:
            return con.execute(sql, params or []).df()

    # --------------------------------------------------------------- schema
    def _ensure_schema(self, create: bool) -> None:
        exists = self.path.exists() and self.path.stat().st_size > 0
        if exists:
            with self._session(write=False) as con:
                version = migrations.stored_version(con)
            migrations.check_version(self.path, version)
            if version == migrations.SCHEMA_VERSION:
                return
        elif not create:
            raise ArchiveError(f"archive {self.path} does not exist")
        else:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        with self._session(write=True) as con:
            version = migrations.stored_version(con)  # again, under the write lock: another process may have migrated
            migrations.check_version(self.path, version)
            migrations.migrate(con, version or 0)
        self.checkpoint()  # a new or migrated archive is one self-contained file

    def schema_version(self) -> int:
        with self._session() as con:
            return int(migrations.stored_version(con) or 0)

    # --------------------------------------------------------------- writer
    def _writer_cols(self) -> dict[str, Any]:
        pid, host, start = self._identity
        return {"writer_pid": pid, "writer_host": host, "writer_start": start, "heartbeat_at": now()}

    def set_status(self, debate_id: str, status: str, reason: str = "") -> None:
        if status not in STATUSES:
            raise ArchiveError(f"unknown status {status!r}")
        with self._session(write=True, checkpoint=status in FINISHED) as con:
            if con.execute("SELECT 1 FROM debates WHERE id = ?", [debate_id]).fetchone() is None:
                raise KeyError(f"no debate {debate_id!r} in archive {self.path}")
            con.execute(
                "UPDATE debates SET status = ?, stop_reason = ?, updated_at = ?, "
                "finished_at = CASE WHEN ? IN ('completed', 'failed', 'stopped') THEN ? ELSE finished_at END "
                "WHERE id = ?",
                [status, reason, now(), status, now(), debate_id],
            )

    @staticmethod
    def _dead_writers(rows: Iterable[tuple]) -> list[tuple[str, str]]:
        """(id, reason) for running debates whose writer is gone."""
        here = socket.gethostname()
        at = now()
        out = []
        for debate_id, pid, host, start, beat, rounds_done in rows:
            if pid is None:
                continue  # imported as running: no writer here to lose
            nxt = (rounds_done or 0) + 1
            if host == here:
                if process_alive(pid, start):
                    continue
                out.append((debate_id, f"主机 {host} 上的进程 {pid} 在第 {nxt} 轮中途停止"))
            elif beat is None or at - beat > STALE_FOREIGN_WRITER:
                out.append((debate_id, f"主机 {host} 上的写入进程自 {beat} 起无响应（第 {nxt} 轮）"))
        return out

    def mark_interrupted(self) -> list[str]:
        """Flip running debates whose writer process is gone to ``interrupted``; return their ids."""
        q = (
            "SELECT id, writer_pid, writer_host, writer_start, heartbeat_at, rounds_done FROM debates "
            "WHERE status = 'running'"
        )
        with self._session() as con:
            dead = self._dead_writers(con.execute(q).fetchall())
        if not dead:
            return []
        flipped = []
        with self._session(write=True) as con:
            still_dead = dict(self._dead_writers(con.execute(q).fetchall()))  # re-check under the write lock
            for debate_id, reason in still_dead.items():
                con.execute(
                    "UPDATE debates SET status = 'interrupted', stop_reason = ?, updated_at = ? "
                    "WHERE id = ? AND status = 'running'",
                    [reason, now(), debate_id],
                )
                flipped.append(debate_id)
        return flipped

    def claim(self, debate_id: str) -> None:
        """Take ownership of a debate to continue it; refuses one a live process is running."""
        with self._session(write=True) as con:
            row = con.execute(
                "SELECT status, writer_pid, writer_host, writer_start, heartbeat_at, rounds_done "
                "FROM debates WHERE id = ?",
                [debate_id],
            ).fetchone()
            if row is None:
                raise KeyError(f"no debate {debate_id!r} in archive {self.path}")
            status, pid, host, start, beat, done = row
            mine = (pid, host) == self._identity[:2]
            if (
                status == "running"
                and not mine
                and pid is not None
                and not self._dead_writers([(debate_id, pid, host, start, beat, done)])
            ):
                raise ArchiveError(
                    f"debate {debate_id} is running in process {pid} on {host}; wait for it or stop it first"
                )
            w = self._writer_cols()
            con.execute(
                "UPDATE debates SET writer_pid = ?, writer_host = ?, writer_start = ?, heartbeat_at = ? WHERE id = ?",
                [w["writer_pid"], w["writer_host"], w["writer_start"], w["heartbeat_at"], debate_id],
            )


# ------------------------------------------------------------ group commits

GROUP_INTERVAL = 0.1  # seconds a queued write waits, at most, for others to share its transaction
GROUP_HOLD = 0.5  # seconds the writer keeps the file attached across transactions while writes keep coming


class GroupWriter:
    """One thread that commits the writes of many debates together.

    ``submit(item)`` queues a write (anything with a ``debate_id``); the thread takes whatever
    has queued when the oldest item has waited ``interval`` seconds (at once when a caller
    waits) and hands the lot to ``apply(con, items)`` inside ONE transaction.  While writes
    keep coming the file stays attached across transactions for up to ``hold`` seconds (no
    attach, no replay of the log, no checkpoint in between), then it is folded in, detached and
    left free for other processes and threads until the next transaction.  When a transaction
    fails, each item is retried in its own, so one bad write never takes others down; a write
    that still fails is named in :attr:`failures` (debate id → one line).

    ``submit(..., wait=True)`` returns once the item is committed (raising :class:`ArchiveError`
    when it failed); :meth:`flush` waits for everything queued so far; :meth:`close` flushes
    and stops the thread.  ``checkpoint`` items (a finished debate) make the writer fold the
    log into the file when it lets the file go.
    """

    def __init__(
        self,
        conn: Connection,
        apply: Callable[[Any, Sequence[Any]], None],
        *,
        interval: float = GROUP_INTERVAL,
        hold: float = GROUP_HOLD,
        name: str = "archive-writer",
    ):
        self.conn = conn
        self.apply = apply
        self.interval = max(0.0, float(interval))
        self.hold = max(0.0, float(hold))
        self._checkpoint = False  # a finished debate was written since the file was last folded in
        self._freed = 0.0  # when the writer last let the file go
        self.failures: dict[str, str] = {}
        self.stats = {"transactions": 0, "writes": 0, "seconds": 0.0}
        self._cond = threading.Condition()
        self._queue: list[tuple[int, Any, bool, Any]] = []
        self._oldest = 0.0
        self._seq = 0  # items submitted
        self._done = 0  # items committed (or failed) so far, in order
        self._urgent = False
        self._closing = False
        self._thread = threading.Thread(target=self._loop, name=name, daemon=True)
        self._thread.start()

    # ------------------------------------------------------------ callers
    def submit(
        self,
        item: Any,
        *,
        wait: bool = False,
        checkpoint: bool = False,
        urgent: bool = False,
        on_done: Callable[[str | None], None] | None = None,
    ) -> None:
        """Queue ``item``.  ``wait``: return once it is committed; ``urgent``: commit it now rather
        than after ``interval``; ``on_done(error)``: called by the writer thread once it is
        committed (``error`` None) or failed (one line)."""
        with self._cond:
            if self._closing:
                raise ArchiveError("the archive writer is closed")
            self._seq += 1
            seq = self._seq
            if not self._queue:
                self._oldest = time.monotonic()
            self._queue.append((seq, item, checkpoint, on_done))
            self._urgent = self._urgent or wait or urgent
            self._cond.notify_all()
            if not wait:
                return
            self._wait_for(seq)
        why = self.failures.get(getattr(item, "debate_id", ""))
        if why:
            raise ArchiveError(why)

    def flush(self) -> None:
        """Return once every write submitted so far is committed (or failed)."""
        if threading.current_thread() is self._thread:
            return
        with self._cond:
            if self._seq > self._done:
                self._urgent = True
                self._cond.notify_all()
                self._wait_for(self._seq)

    def close(self) -> None:
        self.flush()
        with self._cond:
            self._closing = True
            self._cond.notify_all()
        self._thread.join()

    def _wait_for(self, seq: int) -> None:
        while self._done < seq:
            if not self._thread.is_alive():
                raise ArchiveError("the archive writer stopped")
            self._cond.wait(0.5)

    # ------------------------------------------------------------- thread
    def _loop(self) -> None:
        held: duckdb.DuckDBPyConnection | None = None  # the file, attached across transactions
        until = 0.0
        try:
            while True:
                with self._cond:
                    while not self._queue and not self._closing:
                        left = until - time.monotonic()
                        if held is not None and left <= 0:
                            break
                        self._cond.wait(left if held is not None else None)
                    if not self._queue:
                        if held is not None:
                            h, held = held, None
                            self._let_go(h)
                        if self._closing:
                            return
                        continue
                    while not (self._urgent or self._closing):
                        left = self._oldest + self.interval - time.monotonic()
                        if left <= 0:
                            break
                        self._cond.wait(left)
                    batch, self._queue, self._urgent = self._queue, [], False
                t0 = time.perf_counter()
                if held is None:
                    gap = self._freed + self.interval - time.monotonic()
                    if gap > 0 and not self._closing:
                        time.sleep(gap)  # the file stays free a moment for other processes and threads
                    held, until = self._take(batch), time.monotonic() + self.hold
                if held is not None:
                    self._commit(held, batch)
                    self._checkpoint = self._checkpoint or any(cp for _, _, cp, _ in batch)
                    if time.monotonic() >= until or self._closing:
                        h, held = held, None
                        self._let_go(h)
                with self._cond:
                    self.stats["transactions"] += 1
                    self.stats["writes"] += len(batch)
                    self.stats["seconds"] += time.perf_counter() - t0
                    self._done = batch[-1][0]
                    self._cond.notify_all()
                for _, item, _, on_done in batch:
                    if on_done is not None:
                        try:
                            on_done(self.failures.get(getattr(item, "debate_id", "") or ""))
                        except Exception:  # noqa: BLE001 - a caller's callback never stops the writer
                            pass
        finally:
            if held is not None:
                try:
                    self._let_go(held)
                except Exception:  # noqa: BLE001 - already letting go after a failure
                    pass

    def _take(self, batch: list) -> duckdb.DuckDBPyConnection | None:
        """Attach the file for writing and keep it (and this process's archive lock) until
        :meth:`_let_go`; on failure every item of ``batch`` fails."""
        HOST_LOCK.acquire()
        try:
            host = _host()
            if self.conn.path.exists() and self.conn.path.stat().st_size > 0:
                self.conn._check_header()
            self.conn._attach(host, True)
            host.execute(f"USE {_ALIAS}")
            return host
        except BaseException as exc:  # noqa: BLE001 - reported per debate
            HOST_LOCK.release()
            for _, item, _, _ in batch:
                self._fail(item, exc)
            return None

    def _let_go(self, host: duckdb.DuckDBPyConnection) -> None:
        """Fold the log in (always when a finished debate was written, else past its size limit),
        detach, and let other threads and processes have the file."""
        try:
            self.conn._maybe_checkpoint(host, force=self._checkpoint)
        finally:
            self._checkpoint = False
            try:
                host.execute("USE memory")
                host.execute(f"DETACH {_ALIAS}")
            finally:
                HOST_LOCK.release()
                self._freed = time.monotonic()
        return None

    def _commit(self, host: duckdb.DuckDBPyConnection, batch: list[tuple[int, Any, bool, Any]]) -> None:
        items = [item for _, item, _, _ in batch]
        try:
            self._transaction(host, items)
            return
        except BaseException:  # noqa: BLE001 - retried one by one below
            if len(items) == 1:
                self._fail(items[0], sys.exc_info()[1])
                return
        for item in items:
            try:
                self._transaction(host, [item])
            except BaseException as exc:  # noqa: BLE001 - reported per debate, never raised in the thread
                self._fail(item, exc)

    def _transaction(self, host: duckdb.DuckDBPyConnection, items: list) -> None:
        host.execute("BEGIN TRANSACTION")
        try:
            self.apply(host, items)
            host.execute("COMMIT")
        except BaseException:
            try:
                host.execute("ROLLBACK")
            except duckdb.Error:
                pass
            raise

    def _fail(self, item: Any, exc: BaseException | None) -> None:
        debate_id = getattr(item, "debate_id", "") or ""
        text = first_line(exc) if exc is not None else "unknown error"
        self.failures.setdefault(debate_id, f"not archived: {text}")
