"""What the hostile-input caps cost on ordinary work (docs/security.md), measured in one run.

1. An ordinary upload: a .zip of 200 JSON exports (about 4 MB unpacked) staged by the app's
   ``stage_uploads`` (streaming, counting every chunk against the caps) against a plain
   ``zipfile.extractall`` of the same bytes.
2. An ordinary research grep and glob over a 300-file workspace: the same ``Workspace`` tool with
   its patterns compiled by RE2 (the cap) and by Python's backtracking ``re`` (as before it).
3. Ordinary SQL-box queries over a 2,000-debate archive (20,000 speeches, built by
   bench/archive_bench.py's ``build``): ``run_readonly_sql`` with the SQL caps (a warm worker
   process, result bytes counted batch by batch) against the path before them (an in-process
   read-only connection under the archive lock, ``.df()``).  The first query's worker start is
   printed once.  The SQL figures are the median of 15 interleaved runs.

Each figure is the median of 7 runs; the ratio is capped / plain.  Usage: python bench/caps_bench.py
"""

from __future__ import annotations

import fnmatch
import io
import json
import re
import statistics
import sys
import tempfile
import time
import zipfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from debate_core.archive.connection import HOST_LOCK  # noqa: E402
from debate_core.archive.sql_guard import (  # noqa: E402
    SQL_EXAMPLES,
    check_readonly_sql,
    close_workers,
    run_readonly_sql,
)
from debate_core.research import tools  # noqa: E402
from debate_core.research.tools import Workspace  # noqa: E402
from webapp.views.archive import stage_uploads  # noqa: E402

RUNS = 7


def median_time(fn) -> float:
    times = []
    for _ in range(RUNS):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def upload_zip() -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
        for i in range(200):
            doc = {"id": f"d{i:04d}", "topic": "禅净之争", "speeches": [{"text": "念佛 " * 2000}]}
            zf.writestr(f"exports/d{i:04d}.json", json.dumps(doc, ensure_ascii=False))
    return buf.getvalue()


def main() -> None:
    data = upload_zip()
    with zipfile.ZipFile(io.BytesIO(data)) as zf:
        unpacked = sum(i.file_size for i in zf.infolist())
    with tempfile.TemporaryDirectory() as tmp:
        n = [0]

        def capped():
            n[0] += 1
            stage_uploads([("u.zip", data)], Path(tmp) / f"c{n[0]}")

        def plain():
            n[0] += 1
            with zipfile.ZipFile(io.BytesIO(data)) as zf:
                zf.extractall(Path(tmp) / f"p{n[0]}")

        a, b = median_time(capped), median_time(plain)
    print(f"upload of a {len(data) / 1e3:.0f} KB zip (200 entries, {unpacked / 1e6:.1f} MB unpacked): capped {a * 1000:.1f} ms, plain "
          f"{b * 1000:.1f} ms, ratio {a / b:.2f}")

    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        for i in range(300):
            d = root / f"pkg{i % 10}"
            d.mkdir(exist_ok=True)
            (d / f"mod{i}.py").write_text("\n".join(f"def f{j}(x):\n    return x + {j}" for j in range(100)))
        ws = Workspace(root)
        # the same tool, once with RE2 (the cap) and once with Python's backtracking re (before it)
        real = tools.compile_linear

        def with_re():
            tools.compile_linear = lambda rx, ignore_case=False: re.compile(rx, re.I if ignore_case else 0)

        for what, call in (("grep 'return x \\+ 9\\d' over 300 files", lambda: ws.grep(r"return x \+ 9\d")),
                           ("glob '**/mod1*.py' over 300 files", lambda: ws.glob("**/mod1*.py"))):
            tools.compile_linear = real
            a = median_time(call)
            with_re()
            b = median_time(call)
            tools.compile_linear = real
            print(f"{what}: RE2 {a * 1000:.1f} ms, Python re {b * 1000:.1f} ms, ratio {a / b:.2f}")

    sql_queries()


SQL_RUNS = 15
SQL_QUERIES = (  # (what, the query: one of the SQL box's examples, debate_core.archive.sql_guard.SQL_EXAMPLES)
    ("counts by protocol and status", SQL_EXAMPLES["by_protocol"]),
    ("speech lengths by protocol (join)", SQL_EXAMPLES["speech_lengths"]),
    ("the newest 500 debates", SQL_EXAMPLES["newest_debates"]),
)


def plain_sql(path: Path, query: str, max_rows: int = 10_000):
    """The SQL box before the caps: in this process, holding the archive lock for the whole query."""
    import duckdb

    with HOST_LOCK:
        con = duckdb.connect(str(path), read_only=True, config={"enable_external_access": False,
                                                                "autoinstall_known_extensions": False,
                                                                "autoload_known_extensions": False})
        try:
            con.execute("SET lock_configuration = true")
            check_readonly_sql(con, query)
            return con.sql(query).limit(max_rows).df()
        finally:
            con.close()


def sql_queries() -> None:
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from archive_bench import build

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "a.duckdb"
        build(path, 2000, 10)
        t0 = time.perf_counter()
        run_readonly_sql(path, "SELECT 1")
        print(f"SQL box: the first query starts its worker process: {(time.perf_counter() - t0) * 1000:.0f} ms once")
        for what, query in SQL_QUERIES:
            assert run_readonly_sql(path, query).shape == plain_sql(path, query).shape
            # interleaved, so a change in the machine's load weighs on both alike
            capped, plain = [], []
            for _ in range(SQL_RUNS):
                for fn, times in ((run_readonly_sql, capped), (plain_sql, plain)):
                    t0 = time.perf_counter()
                    fn(path, query)
                    times.append(time.perf_counter() - t0)
            a, b = statistics.median(capped), statistics.median(plain)
            print(f"SQL {what}: capped {a * 1000:.1f} ms, before the caps {b * 1000:.1f} ms, ratio {a / b:.2f} "
                  f"(median of {SQL_RUNS}, interleaved)")
        close_workers()


if __name__ == "__main__":
    main()
