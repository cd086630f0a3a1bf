"""Attaching the archive file: the per-process DuckDB host, lock waits, checkpoints, the
schema on opening, and the writer of a running debate (is it still alive?).

DuckDB lets one process write a file at a time.  The archive never keeps the file open
between operations: each operation attaches the file to a per-process in-memory DuckDB
instance, runs one short transaction and detaches it, which releases the file lock; a lock
held by another process is waited for with bounded exponential backoff (``lock_timeout``).
Within one process, operations are serialised by one lock.
"""

from __future__ import annotations

import os
import random
import socket
import threading
import time
from contextlib import contextmanager
from datetime import timedelta
from pathlib import Path
from typing import Any, Iterable, Iterator, Optional

import duckdb
import pandas as pd

from debate_core.archive import migrations
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


def _proc_stat(pid: int) -> Optional[tuple[str, str]]:
    """(state, start time in clock ticks) from /proc, or None where there is no /proc."""
    try:
        raw = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    fields = raw[raw.rfind(")") + 2:].split()
    return (fields[0], fields[19]) if len(fields) > 19 else None


def writer_identity() -> tuple[int, str, str]:
    pid = os.getpid()
    stat = _proc_stat(pid)
    return pid, socket.gethostname(), stat[1] if stat else ""


def process_alive(pid: Optional[int], start: Optional[str] = None) -> bool:
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
_HOST: Optional[duckdb.DuckDBPyConnection] = None
_HOST_PID: Optional[int] = None
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


class Connection:
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
            raise ArchiveError(f"{self.path} is not a DuckDB archive (corrupt or another kind of file); "
                               "it was left untouched")

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
                        raise ArchiveError(f"archive {self.path} stayed locked by another process for "
                                           f"{self.lock_timeout:.0f} s") from None
                    time.sleep(delay * (0.5 + random.random()))
                    delay = min(delay * 2, 0.1)
                    continue
                raise ArchiveError(f"cannot open archive {self.path}: {first_line(exc)} "
                                   "(the file was left untouched)") from None

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

    def query(self, sql: str, params: Optional[list] = None) -> pd.DataFrame:
        """A trusted, parameterised read (library use; user SQL goes through :meth:`sql`)."""
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
            con.execute("UPDATE debates SET status = ?, stop_reason = ?, updated_at = ?, "
                        "finished_at = CASE WHEN ? IN ('completed', 'failed', 'stopped') THEN ? ELSE finished_at END "
                        "WHERE id = ?", [status, reason, now(), status, now(), debate_id])

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
        q = ("SELECT id, writer_pid, writer_host, writer_start, heartbeat_at, rounds_done FROM debates "
             "WHERE status = 'running'")
        with self._session() as con:
            dead = self._dead_writers(con.execute(q).fetchall())
        if not dead:
            return []
        flipped = []
        with self._session(write=True) as con:
            dead = dict(self._dead_writers(con.execute(q).fetchall()))  # re-check under the write lock
            for debate_id, reason in dead.items():
                con.execute("UPDATE debates SET status = 'interrupted', stop_reason = ?, updated_at = ? "
                            "WHERE id = ? AND status = 'running'", [reason, now(), debate_id])
                flipped.append(debate_id)
        return flipped

    def claim(self, debate_id: str) -> None:
        """Take ownership of a debate to continue it; refuses one a live process is running."""
        with self._session(write=True) as con:
            row = con.execute("SELECT status, writer_pid, writer_host, writer_start, heartbeat_at, rounds_done "
                              "FROM debates WHERE id = ?", [debate_id]).fetchone()
            if row is None:
                raise KeyError(f"no debate {debate_id!r} in archive {self.path}")
            status, pid, host, start, beat, done = row
            mine = (pid, host) == self._identity[:2]
            if status == "running" and not mine and pid is not None and \
                    not self._dead_writers([(debate_id, pid, host, start, beat, done)]):
                raise ArchiveError(f"debate {debate_id} is running in process {pid} on {host}; "
                                   "wait for it or stop it first")
            w = self._writer_cols()
            con.execute("UPDATE debates SET writer_pid = ?, writer_host = ?, writer_start = ?, heartbeat_at = ? "
                        "WHERE id = ?", [w["writer_pid"], w["writer_host"], w["writer_start"], w["heartbeat_at"],
                                         debate_id])
