"""The SQL box's guard: user SQL runs read-only, one SELECT at a time, bounded by named caps.

:func:`check_readonly_sql` refuses anything but one SELECT / EXPLAIN / PIVOT (or an
informational PRAGMA) before it runs.  :func:`run_readonly_sql` then runs the query in a worker
process (:mod:`debate_core.archive.sql_worker`), never in this one:

* the worker opens the archive file ``read_only`` with external access off and the
  configuration locked, so nothing can write the archive or touch other files;
* DuckDB's ``memory_limit`` is ``SQL_MEMORY_LIMIT`` and the worker's address space is bounded
  too, so a query that builds huge strings fails there instead of taking this process (the
  app, with every user's session) past the machine's memory;
* ``max_temp_directory_size`` is ``SQL_TEMP_DIR_BYTES``, in a private temporary folder;
* the result is fetched in record batches whose bytes are counted as they come, and stops past
  ``SQL_RESULT_BYTES`` (rows are capped by ``max_rows`` as before);
* past ``SQL_TIMEOUT_S`` seconds the worker is killed, which also frees the archive file;
* at most ``SQL_CONCURRENT_QUERIES`` run at once in one process; others wait for a free one.

The query never holds this process's archive lock, so every other session's reads go on while
it runs; a write (from this process or another) waits for the file, as for any other reader,
at most ``SQL_TIMEOUT_S``, which is kept below the archive's 30 s lock wait.  Idle workers are
kept for the next query (a warm worker costs a few milliseconds a query; the first one starts in
about half a second) and leave after ten idle minutes.

Every refusal or failure is a one-line :class:`~debate_core.errors.SqlRefused`; hitting a cap
names it (:func:`debate_core.settings.cap_error`).
"""

from __future__ import annotations

import atexit
import json
import os
import re
import select
import shutil
import struct
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import IO, cast

import duckdb
import pandas as pd

from debate_core.archive.connection import LOCK_TIMEOUT
from debate_core.archive.sql_worker import IDLE_S
from debate_core.archive.values import first_line
from debate_core.errors import SqlRefused
from debate_core.settings import CAPS, cap, cap_error

WORKER = Path(__file__).resolve().with_name("sql_worker.py")
START_TIMEOUT = 120.0  # seconds a new worker may take to import duckdb and pyarrow (a loaded machine)
IDLE_WORKERS = 2  # warm workers kept between queries

# Example queries for the SQL box (the app's buttons, the CLI's help, the SQL-box benchmark): data
# shown to users, kept here beside the guard they go through.  Each is one read-only SELECT.
SQL_EXAMPLES: dict[str, str] = {
    "by_protocol": "SELECT protocol, status, count(*) AS debates FROM debates GROUP BY ALL ORDER BY debates DESC",
    "winners": "SELECT d.created_at, d.protocol, d.topic, v.winner, v.judge\nFROM verdicts v JOIN debates d ON "
    "d.id = v.debate_id\nORDER BY d.created_at DESC LIMIT 50",
    "failed_checks": "SELECT rule, count(*) AS failures, count(DISTINCT debate_id) AS debates\nFROM findings WHERE "
    "NOT passed\nGROUP BY rule ORDER BY failures DESC",
    "longest_speeches": "SELECT debate_id, round, speaker_name, length(text) AS characters\nFROM speeches ORDER BY "
    "characters DESC LIMIT 20",
    "speech_lengths": "SELECT d.protocol, count(*) AS speeches, avg(length(s.text)) AS chars FROM speeches s "
    "JOIN debates d ON d.id = s.debate_id GROUP BY ALL",
    "newest_debates": "SELECT id, topic, status, created_at FROM debates ORDER BY created_at DESC LIMIT 500",
}

_ALLOWED_PRAGMAS = {
    "show_tables",
    "show_tables_expanded",
    "table_info",
    "show",
    "database_size",
    "storage_info",
    "version",
    "database_list",
    "functions",
}
_READ_WORDS = {"SELECT", "WITH", "FROM", "PIVOT", "UNPIVOT", "VALUES", "TABLE"}


def _leading_word(query: str) -> str:
    """The first keyword of ``query``, past comments, blanks and opening parentheses."""
    text = query
    while True:
        text = text.lstrip().lstrip("(")
        if text.startswith("--"):
            text = text.split("\n", 1)[1] if "\n" in text else ""
        elif text.startswith("/*"):
            text = text.split("*/", 1)[1] if "*/" in text else ""
        else:
            break
        if not text:
            return ""
    m = re.match(r"[A-Za-z_]+", text.lstrip())
    return m.group(0).upper() if m else ""


_LOCAL: duckdb.DuckDBPyConnection | None = None
_LOCAL_PID: int | None = None
_LOCAL_LOCK = threading.Lock()


def _local() -> duckdb.DuckDBPyConnection:
    """A private in-memory DuckDB of this process, which parses queries and converts results (a
    cursor each time: starting an instance costs more than many small queries)."""
    global _LOCAL, _LOCAL_PID
    with _LOCAL_LOCK:
        if _LOCAL is None or _LOCAL_PID != os.getpid():
            _LOCAL = duckdb.connect(":memory:", config={"enable_external_access": False})
            _LOCAL_PID = os.getpid()
        return _LOCAL


def check_readonly_sql(con: duckdb.DuckDBPyConnection | None, query: str) -> None:
    """Refuse anything but one SELECT / EXPLAIN / PIVOT (or an informational PRAGMA) before it runs.
    ``con`` parses the query (any DuckDB connection; None: a private in-memory one)."""
    if not query or not query.strip():
        raise SqlRefused("refused: the query is empty")
    own = con is None
    parser = _local().cursor() if con is None else con
    try:
        statements = parser.extract_statements(query)
    except duckdb.Error as exc:
        raise SqlRefused(first_line(exc)) from None
    finally:
        if own:
            parser.close()
    if len(statements) != 1:
        raise SqlRefused(f"refused: one statement at a time ({len(statements)} given)")
    st = statements[0]
    kind = st.type.name if hasattr(st.type, "name") else str(st.type)
    if kind in ("SELECT", "EXPLAIN"):
        return
    if kind == "MULTI":
        # DuckDB plans a PIVOT whose columns come from the data as several statements (the
        # distinct values first): a read when the query itself reads.  The worker's connection
        # is read-only anyway; this only gives a clear refusal for CREATE ... AS PIVOT and co.
        if _leading_word(query) in _READ_WORDS and re.search(r"\b(UN)?PIVOT\b", query, re.I):
            return
    if kind == "PRAGMA":
        name = re.match(r"\s*pragma\s+([a-z_]+)", st.query, re.I)
        if name and name.group(1).lower() in _ALLOWED_PRAGMAS:
            return
        raise SqlRefused("refused: only informational PRAGMAs (show_tables, table_info, …) are allowed")
    reasons = {
        "COPY": "COPY reads or writes files",
        "COPY_DATABASE": "COPY reads or writes files",
        "EXPORT": "EXPORT writes files",
        "ATTACH": "ATTACH opens other databases",
        "DETACH": "DETACH is not allowed",
        "LOAD": "installing or loading extensions is not allowed",
        "EXTENSION": "installing or loading extensions is not allowed",
        "SET": "settings cannot be changed",
        "VARIABLE_SET": "settings cannot be changed",
        "CALL": "CALL is not allowed",
        "TRANSACTION": "transactions are not needed to read",
        "PREPARE": "prepared statements are not allowed",
        "EXECUTE": "prepared statements are not allowed",
    }
    what = reasons.get(kind)
    if what is None:
        what = "this statement would write" if kind == "MULTI" else f"{kind} would write"
        raise SqlRefused(f"refused: the archive is read-only here ({what}; only SELECT queries run)")
    raise SqlRefused(f"refused: {what}; only SELECT queries run")


# ------------------------------------------------------------------ workers


class _Died(Exception):
    pass


class _Late(Exception):
    pass


def _worker_env() -> dict[str, str]:
    """A small environment: no keys or other secrets reach the process that runs user SQL."""
    keep = (
        "PATH",
        "HOME",
        "LANG",
        "LC_ALL",
        "LC_CTYPE",
        "TMPDIR",
        "TEMP",
        "TMP",
        "LD_LIBRARY_PATH",
        "SYSTEMROOT",
        "VIRTUAL_ENV",
    )
    env = {k: os.environ[k] for k in keep if k in os.environ}
    env["ARROW_DEFAULT_MEMORY_POOL"] = "system"  # no 1 GiB arena reservations under the address-space limit
    env["MALLOC_ARENA_MAX"] = "2"
    return env


class _Worker:
    """One worker process (see :mod:`debate_core.archive.sql_worker`) and its temporary folder."""

    def __init__(self, memory: int, result: int):
        self.key = (memory, result)
        self.tmp = tempfile.mkdtemp(prefix="debate-sql-")
        settings = json.dumps({"memory": memory, "result": result})
        try:
            # its own session: a Ctrl-C at the terminal reaches this process, which stops the worker
            self.proc = subprocess.Popen(
                [sys.executable, "-P", str(WORKER), settings],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL,
                env=_worker_env(),
                bufsize=0,
                close_fds=True,
                start_new_session=True,
            )
        except OSError as exc:
            shutil.rmtree(self.tmp, ignore_errors=True)
            raise SqlRefused(f"cannot start the SQL worker: {exc.strerror or exc}") from None
        try:
            tag, body = self.frame(time.monotonic() + START_TIMEOUT, limit=1 << 16)
        except (_Died, _Late):
            self.kill()
            raise SqlRefused("cannot start the SQL worker (python -P sql_worker.py)") from None
        except BaseException:
            self.kill()
            raise
        if tag != b"H":
            self.kill()
            raise SqlRefused("the SQL worker did not start properly")
        self.info = json.loads(body)
        self.used = time.monotonic()

    # the worker is started with stdin=PIPE and stdout=PIPE: both streams are always there
    @property
    def _stdin(self) -> IO[bytes]:
        return cast(IO[bytes], self.proc.stdin)

    @property
    def _stdout(self) -> IO[bytes]:
        return cast(IO[bytes], self.proc.stdout)

    def alive(self) -> bool:
        """Running, and not about to leave for being idle (it leaves after IDLE_S seconds)."""
        return self.proc.poll() is None and time.monotonic() - self.used < IDLE_S - 60

    def _read(self, n: int, deadline: float) -> bytes:
        fd = self._stdout.fileno()
        buf = bytearray()
        while len(buf) < n:
            left = deadline - time.monotonic()
            if left <= 0:
                raise _Late()
            ready, _, _ = select.select([fd], [], [], min(left, 1.0))
            if not ready:
                continue
            chunk = os.read(fd, min(n - len(buf), 1 << 20))
            if not chunk:
                raise _Died()
            buf += chunk
        return bytes(buf)

    def frame(self, deadline: float, limit: int) -> tuple[bytes, bytes]:
        head = self._read(9, deadline)
        tag, size = head[:1], struct.unpack(">Q", head[1:])[0]
        if size > limit:
            raise _Died()  # never read more than a result may hold
        return tag, self._read(size, deadline) if size else b""

    def send(self, request: dict) -> None:
        try:
            self._stdin.write(json.dumps(request).encode() + b"\n")
        except OSError:
            raise _Died() from None

    def kill(self) -> None:
        try:
            self.proc.kill()
        except OSError:
            pass
        self._reap()

    def close(self) -> None:
        try:
            self._stdin.close()
            self.proc.wait(timeout=5)
        except (OSError, subprocess.TimeoutExpired):
            self.proc.kill()
        self._reap()

    def _reap(self) -> None:
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            pass
        for fh in (self._stdin, self._stdout):
            try:
                fh.close()
            except OSError:
                pass
        shutil.rmtree(self.tmp, ignore_errors=True)


_POOL = threading.Condition()
_IDLE: list[_Worker] = []
_RUNNING = 0
_POOL_PID = os.getpid()


def _check_pid() -> None:
    """After a fork the parent's workers are not ours: start afresh."""
    global _IDLE, _RUNNING, _POOL_PID
    if _POOL_PID != os.getpid():
        _IDLE, _RUNNING, _POOL_PID = [], 0, os.getpid()


def _acquire(deadline: float) -> _Worker | None:
    """A query slot (at most SQL_CONCURRENT_QUERIES), with an idle worker when one fits."""
    global _RUNNING
    key = (int(cap("SQL_MEMORY_LIMIT")), int(cap("SQL_RESULT_BYTES")))
    stale = []
    with _POOL:
        _check_pid()
        while _RUNNING >= int(cap("SQL_CONCURRENT_QUERIES")):
            left = deadline - time.monotonic()
            if left <= 0:
                raise SqlRefused(cap_error("SQL_CONCURRENT_QUERIES", "no free SQL worker while the query could run"))
            _POOL.wait(left)
        _RUNNING += 1
        worker = None
        while _IDLE:
            w = _IDLE.pop()
            if w.key == key and w.alive():
                worker = w
                break
            stale.append(w)
    for w in stale:
        w.close()
    return worker


def _release(worker: _Worker | None) -> None:
    global _RUNNING
    extra = None
    with _POOL:
        _check_pid()
        _RUNNING = max(0, _RUNNING - 1)
        if worker is not None and worker.alive():
            _IDLE.append(worker)
            if len(_IDLE) > IDLE_WORKERS:
                extra = _IDLE.pop(0)
        _POOL.notify()
    if extra is not None:
        extra.close()


@atexit.register
def close_workers() -> None:
    """Stop the idle workers (and wait for them)."""
    with _POOL:
        if _POOL_PID != os.getpid():
            return
        idle, _IDLE[:] = list(_IDLE), []
    for w in idle:
        w.close()


# ---------------------------------------------------------------- running


def _refusal(kind: str, type_name: str, text: str) -> SqlRefused:
    line = first_line(Exception(text)) if text else type_name
    if kind == "memory":
        return SqlRefused(cap_error("SQL_MEMORY_LIMIT", "the query ran out of memory"))
    if kind == "temp":
        return SqlRefused(cap_error("SQL_TEMP_DIR_BYTES", "the query spilled too much to disk"))
    if kind == "result":
        return SqlRefused(cap_error("SQL_RESULT_BYTES", "the result grew too large and was stopped"))
    if kind == "locked":
        return SqlRefused("cannot open archive: another process kept it locked for writing")
    if kind == "open":
        return SqlRefused(f"cannot open archive: {line}")
    if type_name == "PermissionException":
        return SqlRefused("refused: reading or writing files is disabled in the SQL box")
    if "read-only" in line or "read only" in line:
        return SqlRefused("refused: the archive is read-only here")
    if "disabled" in line and ("configuration" in line or "extension" in line.lower()):
        return SqlRefused("refused: reading or writing files is disabled in the SQL box")
    return SqlRefused(line)


def _timeout_error(timeout: float) -> SqlRefused:
    limit = cap("SQL_TIMEOUT_S")
    if timeout == limit:
        return SqlRefused(cap_error("SQL_TIMEOUT_S", f"the query ran longer than {timeout:g} s and was stopped"))
    c = CAPS["SQL_TIMEOUT_S"]
    return SqlRefused(
        f"the query ran longer than {timeout:g} s (the timeout given) and was stopped; the cap "
        f"{c.name} is {limit:g} s (set ${c.env} to change it)"
    )


def _to_frame(payload: bytes) -> pd.DataFrame:
    """An Arrow IPC stream as the DataFrame DuckDB's own ``.df()`` gives (its types, as before)."""
    if not payload:
        return pd.DataFrame()
    import pyarrow as pa
    import pyarrow.ipc  # noqa: F401 - pa.ipc

    table = pa.ipc.open_stream(payload).read_all()
    if table.num_columns == 0:
        return pd.DataFrame()
    con = _local().cursor()
    try:
        return con.from_arrow(table).df()
    finally:
        con.close()


def run_readonly_sql(
    path: str | Path,
    query: str,
    *,
    max_rows: int = 10_000,
    timeout: float | None = None,
    lock_timeout: float = LOCK_TIMEOUT,
) -> pd.DataFrame:
    """The SQL box: one read-only query over the archive at ``path``, in a worker process bounded
    by the SQL caps (see the module's docstring); at most ``max_rows`` rows; stopped after
    ``timeout`` seconds (default: the cap ``SQL_TIMEOUT_S``).  Every refusal or failure is a
    one-line :class:`SqlRefused`."""
    path = Path(path).expanduser().resolve()
    if not path.is_file():
        raise SqlRefused(f"archive {path} does not exist")
    if max_rows is not None and (not isinstance(max_rows, int) or max_rows < 0):
        raise SqlRefused(f"max_rows must be a whole number of rows, not {max_rows!r}")
    timeout = float(cap("SQL_TIMEOUT_S") if timeout is None else timeout)
    if not timeout > 0:
        raise SqlRefused(f"timeout must be a positive number of seconds, not {timeout!r}")
    check_readonly_sql(None, query)
    memory, result = int(cap("SQL_MEMORY_LIMIT")), int(cap("SQL_RESULT_BYTES"))
    worker = _acquire(time.monotonic() + timeout)
    try:
        if worker is None:
            worker = _Worker(memory, result)
        request = {
            "path": str(path),
            "query": query,
            "max_rows": max_rows or 0,
            "memory": memory,
            "temp": int(cap("SQL_TEMP_DIR_BYTES")),
            "result": result,
            "temp_dir": worker.tmp,
            "lock_timeout": lock_timeout,
        }
        running = False  # the archive is open and the query's own time runs
        try:
            worker.send(request)
            tag, body = worker.frame(time.monotonic() + lock_timeout + 5.0, limit=1 << 20)
            if tag == b"O":
                running = True
                tag, body = worker.frame(time.monotonic() + timeout, limit=2 * result + (16 << 20))
        except _Late:
            worker.kill()
            if not running:
                raise SqlRefused(f"cannot open archive {path}: it stayed locked for {lock_timeout:g} s") from None
            raise _timeout_error(timeout) from None
        except _Died:
            worker.kill()
            if not running:
                raise SqlRefused("the SQL worker stopped before the query ran; run it again") from None
            raise SqlRefused(
                cap_error("SQL_MEMORY_LIMIT", "the query's worker process stopped (most likely out of memory)")
            ) from None
        except BaseException:  # interrupted while the worker answers: its next frame would be out of turn
            worker.kill()
            raise
        worker.used = time.monotonic()
        if tag == b"E":
            err = json.loads(body)
            raise _refusal(err.get("kind", ""), err.get("type", ""), err.get("text", ""))
        if tag != b"R":
            worker.kill()
            raise SqlRefused("the SQL worker answered out of turn")
        return _to_frame(body)
    finally:
        _release(worker)
