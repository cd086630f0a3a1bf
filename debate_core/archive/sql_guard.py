"""The SQL box's guard: user SQL runs on a read-only connection, one SELECT at a time.

:func:`run_readonly_sql` opens the file ``read_only`` with external access off and the
configuration locked, refuses anything but one SELECT / EXPLAIN (or an informational
PRAGMA) with :func:`check_readonly_sql`, caps the rows and interrupts a slow query.
Every refusal or failure is a one-line :class:`~debate_core.errors.SqlRefused`.
"""

from __future__ import annotations

import random
import re
import threading
import time
from pathlib import Path

import duckdb
import pandas as pd

from debate_core.archive.connection import HOST_LOCK, LOCK_TIMEOUT, is_lock_error
from debate_core.archive.values import first_line
from debate_core.errors import SqlRefused

_ALLOWED_PRAGMAS = {"show_tables", "show_tables_expanded", "table_info", "show", "database_size", "storage_info",
                    "version", "database_list", "functions"}


def check_readonly_sql(con: duckdb.DuckDBPyConnection, query: str) -> None:
    """Refuse anything but one SELECT / EXPLAIN (or an informational PRAGMA) before it runs."""
    if not query or not query.strip():
        raise SqlRefused("refused: the query is empty")
    try:
        statements = con.extract_statements(query)
    except duckdb.Error as exc:
        raise SqlRefused(f"SQL error: {first_line(exc)}") from None
    if len(statements) != 1:
        raise SqlRefused(f"refused: one statement at a time ({len(statements)} given)")
    st = statements[0]
    kind = st.type.name if hasattr(st.type, "name") else str(st.type)
    if kind in ("SELECT", "EXPLAIN"):
        return
    if kind == "PRAGMA":
        name = re.match(r"\s*pragma\s+([a-z_]+)", st.query, re.I)
        if name and name.group(1).lower() in _ALLOWED_PRAGMAS:
            return
        raise SqlRefused("refused: only informational PRAGMAs (show_tables, table_info, …) are allowed")
    reasons = {
        "COPY": "COPY reads or writes files", "COPY_DATABASE": "COPY reads or writes files",
        "EXPORT": "EXPORT writes files", "ATTACH": "ATTACH opens other databases",
        "DETACH": "DETACH is not allowed", "LOAD": "installing or loading extensions is not allowed",
        "EXTENSION": "installing or loading extensions is not allowed", "SET": "settings cannot be changed",
        "VARIABLE_SET": "settings cannot be changed", "CALL": "CALL is not allowed",
        "TRANSACTION": "transactions are not needed to read", "PREPARE": "prepared statements are not allowed",
        "EXECUTE": "prepared statements are not allowed",
    }
    what = reasons.get(kind)
    if what is None:
        raise SqlRefused(f"refused: the archive is read-only here ({kind} would write; only SELECT queries run)")
    raise SqlRefused(f"refused: {what}; only SELECT queries run")


def run_readonly_sql(path: str | Path, query: str, *, max_rows: int = 10_000, timeout: float = 30.0,
                     lock_timeout: float = LOCK_TIMEOUT) -> pd.DataFrame:
    """The SQL box: a read_only connection with ``enable_external_access=false`` and locked
    configuration; one SELECT at a time; at most ``max_rows`` rows; interrupted after
    ``timeout`` seconds.  Every refusal or failure is a one-line :class:`SqlRefused`."""
    path = Path(path).expanduser().resolve()
    if not path.is_file():
        raise SqlRefused(f"archive {path} does not exist")
    config = {"enable_external_access": False, "autoinstall_known_extensions": False,
              "autoload_known_extensions": False}
    with HOST_LOCK:  # never open the file twice in one process while an operation has it attached
        deadline = time.monotonic() + lock_timeout
        delay = 0.002
        while True:
            try:
                con = duckdb.connect(str(path), read_only=True, config=config)
                break
            except duckdb.Error as exc:
                if is_lock_error(exc) and time.monotonic() < deadline:
                    time.sleep(delay * (0.5 + random.random()))
                    delay = min(delay * 2, 0.1)
                    continue
                raise SqlRefused(f"cannot open archive: {first_line(exc)}") from None
        timer = None
        try:
            con.execute("SET lock_configuration = true")
            check_readonly_sql(con, query)
            timer = threading.Timer(timeout, con.interrupt)
            timer.daemon = True
            timer.start()
            try:
                rel = con.sql(query)
                if rel is None:
                    return pd.DataFrame()
                return rel.limit(max_rows).df() if max_rows else rel.df()
            except duckdb.InterruptException:
                raise SqlRefused(f"refused: the query ran longer than {timeout:g} s and was stopped") from None
            except duckdb.PermissionException:
                raise SqlRefused("refused: reading or writing files is disabled in the SQL box") from None
            except duckdb.Error as exc:
                msg = first_line(exc)
                if "read-only" in msg or "read only" in msg:
                    raise SqlRefused("refused: the archive is read-only here") from None
                if "disabled" in msg and ("configuration" in msg or "extension" in msg.lower()):
                    raise SqlRefused("refused: reading or writing files is disabled in the SQL box") from None
                raise SqlRefused(f"SQL error: {msg}") from None
        finally:
            if timer is not None:
                timer.cancel()
            con.close()
