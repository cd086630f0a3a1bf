"""The SQL box's worker process: it runs user queries, one at a time, for :mod:`sql_guard`.

Started by :mod:`debate_core.archive.sql_guard` as ``python -P sql_worker.py SETTINGS`` (never
imported by the library, and importing only the standard library, duckdb and pyarrow), so a
query's memory, its time and its file lock belong to a process the app can bound and kill:

* after warming up, the worker lowers its own address-space limit (``RLIMIT_AS``) to its size
  then plus twice the memory cap plus twice the result cap plus 256 MiB.  DuckDB's
  ``memory_limit`` bounds what its buffer manager holds, but not the strings a query builds in
  one vector (``repeat('x', 1000000)`` over 2048 rows is 2 GB at once); the address-space limit
  bounds those, and the query fails with an out-of-memory error instead of the machine;
* each query opens the archive ``read_only`` with its own ``memory_limit``,
  ``max_temp_directory_size`` and a private ``temp_directory``, then disables external access
  and locks the configuration;
* the result is fetched as Arrow record batches of :data:`BATCH_ROWS` rows, and their bytes are
  counted as they arrive: past the result cap the query stops there.

Protocol: one JSON request per line on stdin; on stdout, frames of one tag byte, an 8-byte
big-endian length and a payload: ``H`` (ready: JSON), ``O`` (the archive is open), ``R`` (the
result: an Arrow IPC stream, or nothing for a statement without a result) or ``E`` (JSON
``{"kind", "type", "text"}``; ``kind`` is ``memory``, ``temp``, ``result``, ``locked`` or
``error``).  The worker exits at the end of stdin, or after :data:`IDLE_S` seconds without a
request.
"""

from __future__ import annotations

import json
import os
import re
import resource
import select
import struct
import sys
import time

BATCH_ROWS = 2048
IDLE_S = 600.0
HEADROOM = 256 * 1024 * 1024


def _vm_peak() -> int:
    """This process's peak address-space size in bytes (0 where /proc is missing)."""
    try:
        with open("/proc/self/status") as fh:
            m = re.search(r"VmPeak:\s+(\d+) kB", fh.read())
        return int(m.group(1)) * 1024 if m else 0
    except OSError:
        return 0


class _Out:
    def __init__(self, fd: int):
        self.fh = os.fdopen(fd, "wb", buffering=0)

    def send(self, tag: bytes, payload: bytes = b"") -> None:
        self.fh.write(tag + struct.pack(">Q", len(payload)))
        view = memoryview(payload)
        while view:
            n = self.fh.write(view)
            view = view[n:]

    def error(self, kind: str, exc: BaseException | None = None, text: str = "") -> None:
        body = {
            "kind": kind,
            "type": type(exc).__name__ if exc is not None else "",
            "text": text or (str(exc) if exc is not None else ""),
        }
        self.send(b"E", json.dumps(body).encode())


def _is_memory(exc: BaseException) -> bool:
    text = str(exc)
    return (
        isinstance(exc, MemoryError)
        or type(exc).__name__ in ("OutOfMemoryException", "ArrowMemoryError")
        or "Out of Memory" in text
        or "bad_alloc" in text
        or "failed to allocate" in text
    )


def _config(req: dict) -> dict:
    return {
        "memory_limit": f"{int(req['memory'])}B",
        "max_temp_directory_size": f"{int(req['temp'])}B",
        "temp_directory": req["temp_dir"],
        "autoinstall_known_extensions": False,
        "autoload_known_extensions": False,
    }


def _open(duckdb, req: dict):
    """The archive, read-only, waiting (with backoff) while another process writes it."""
    deadline = time.monotonic() + float(req.get("lock_timeout", 30.0))
    delay = 0.002
    while True:
        try:
            return duckdb.connect(req["path"], read_only=True, config=_config(req))
        except duckdb.Error as exc:
            msg = str(exc)
            if "lock" in msg.lower() and ("Could not set lock" in msg or "Conflicting lock" in msg):
                if time.monotonic() < deadline:
                    time.sleep(delay)
                    delay = min(delay * 2, 0.1)
                    continue
                raise TimeoutError(msg) from None
            raise


def _reader(rel, rows: int):
    for name in ("to_arrow_reader", "fetch_record_batch", "record_batch"):
        method = getattr(rel, name, None)
        if method is not None:
            return method(rows)
    raise RuntimeError("this duckdb cannot stream Arrow record batches")


def _run(duckdb, pa, out: _Out, req: dict) -> None:
    try:
        con = _open(duckdb, req)
    except TimeoutError as exc:
        out.error("locked", exc)
        return
    except Exception as exc:  # noqa: BLE001 - reported to the caller as one line
        out.error("memory" if _is_memory(exc) else "open", exc)
        return
    try:
        con.execute("SET enable_external_access = false")
        con.execute("SET lock_configuration = true")
        out.send(b"O")
        rel = con.sql(req["query"])
        if rel is None:
            out.send(b"R")
            return
        if req.get("max_rows"):
            rel = rel.limit(int(req["max_rows"]))
        reader = _reader(rel, BATCH_ROWS)
        cap = int(req["result"])
        batches, total = [], 0
        for batch in reader:
            total += batch.nbytes
            if total > cap:
                out.error("result", text=str(total))
                return
            batches.append(batch)
        sink = pa.BufferOutputStream()
        with pa.ipc.new_stream(sink, reader.schema) as writer:
            for batch in batches:
                writer.write_batch(batch)
        del batches
        out.send(b"R", sink.getvalue().to_pybytes())
    except BaseException as exc:  # noqa: BLE001 - every failure is one frame, then the next request
        text = str(exc)
        if "max_temp_directory_size" in text:
            out.error("temp", exc)
        elif _is_memory(exc):
            out.error("memory", exc)
        else:
            out.error("error", exc)
    finally:
        try:
            con.close()
        except Exception:  # noqa: BLE001 - closing after a failure
            pass


def main() -> int:
    out = _Out(os.dup(1))
    os.dup2(2, 1)  # anything printed goes to stderr, never into the frames
    settings = json.loads(sys.argv[1])
    import duckdb
    import pyarrow as pa
    import pyarrow.ipc  # noqa: F401 - pa.ipc

    # warm up once, configured like a query, so the address space measured is the working one
    warm = duckdb.connect(":memory:", config={"memory_limit": f"{int(settings['memory'])}B"})
    table = warm.sql("SELECT range AS i, 'x' AS s FROM range(3000)").to_arrow_table()
    sink = pa.BufferOutputStream()
    with pa.ipc.new_stream(sink, table.schema) as writer:
        writer.write_table(table)
    warm.close()
    limit = None
    base = _vm_peak()
    if base and hasattr(resource, "RLIMIT_AS"):
        limit = base + 2 * int(settings["memory"]) + 2 * int(settings["result"]) + HEADROOM
        soft, hard = resource.getrlimit(resource.RLIMIT_AS)
        if hard != resource.RLIM_INFINITY:
            limit = min(limit, hard)
        if soft != resource.RLIM_INFINITY:
            limit = min(limit, soft)
        try:
            resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
        except (ValueError, OSError):
            limit = None
    out.send(b"H", json.dumps({"pid": os.getpid(), "address_space": limit, "base": base}).encode())
    stdin = sys.stdin.buffer
    while True:
        ready, _, _ = select.select([stdin], [], [], IDLE_S)
        if not ready:
            return 0  # idle too long: the next query starts a new worker
        line = stdin.readline()
        if not line:
            return 0
        _run(duckdb, pa, out, json.loads(line))


if __name__ == "__main__":
    sys.exit(main())
