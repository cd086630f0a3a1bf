"""What the hostile-input caps cost on ordinary work (docs/security.md), measured in one run.

1. An ordinary upload: a .zip of 200 JSON exports (about 4 MB unpacked) staged by the app's
   ``stage_uploads`` (streaming, counting every chunk against the caps) against a plain
   ``zipfile.extractall`` of the same bytes.
2. An ordinary research grep and glob over a 300-file workspace: the same ``Workspace`` tool with
   its patterns compiled by RE2 (the cap) and by Python's backtracking ``re`` (as before it).

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

if __name__ == "__main__":
    main()
