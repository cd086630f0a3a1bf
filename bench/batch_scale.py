"""Batch scaling: debates per second at concurrency 1, 8, 32 and 64, archive on.

Issue "Cheaper and wider runs", part 3; issue 26, "CPU per model call".

Target: at concurrency 32, against a scripted OpenAI-compatible model that answers after 0.25 s,
a batch runs at least 20× as many debates per second as at concurrency 1, with the archive on.

What it runs: master debates of 2 rounds (2 speeches, 2 summaries, 1 observation = 5 model calls,
plus one more for every speech that fails its checks and is rewritten: every speech is checked,
and the scripted speeches fail about one check a debate, so a debate makes about 6 calls; the
count is measured and printed) over a 16-cell grid (2 topics × 4 pairs × both opening orders),
repeated 1, 4, 8 and 16 times for concurrency 1, 8, 32 and 64, so that every level runs at least
4 "waves" of debates.  The model is debate_core.engines.scripted_server.ScriptedServer answering
from tests/master_script.py, each reply after 0.25 s, in a SEPARATE process (its CPU is reported
on its own and is not counted as the workbench's).  Every batch writes a fresh DuckDB archive.

Printed, all from one run (the machine is shared and noisy: compare the ratios, not the
absolute numbers across runs):

1. debates per second per level with the default settings, the speed-up vs concurrency 1
   (concurrency 32 runs three times and its median run is the figure), and CPU milliseconds per
   model call: the batch process, its worker processes, their sum (the workbench) and the
   model server;
2. the alternatives measured against it at concurrency 32 (and 1): every speech its own
   transaction (the old default), group commits in one process, whole debates written at the
   end, no archive at all;
3. the profile: where the wall time of a debate goes at concurrency 1 and 32 (model wait, the
   rest of a call, between calls), and where the CPU goes (cProfile with a per-thread CPU clock
   in every thread of an in-process run), by part: litellm, its cost-map lookups, the HTTP
   client, the archive, the checks, pydantic, the rest of our code; then the top of the
   concurrency-32 profile, function by function;
4. litellm's CPU per call alone, with its defaults and with the scripted model registered in its
   price map (a module setting, no monkeypatch), and what that suggests for the gateway;
5. the figure: the speed-up at concurrency 32 and how it was measured.

Usage: python bench/batch_scale.py [--quick] [--levels 1,32] [--no-alternatives] [--no-profile] [--no-litellm]
(the whole run takes about 8 minutes on 2 shared cores; ``--levels 1,32 --no-alternatives
--no-litellm`` measures the figure and its profile in about 3).
"""

from __future__ import annotations

import argparse
import collections
import cProfile
import multiprocessing as mp
import os
import pstats
import resource
import sys
import sysconfig
import tempfile
import threading
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

DELAY = 0.25
CALLS = 5  # per debate whose speeches all pass their checks (the measured count is printed)
TOPICS = ["禅宗顿悟和净土念佛，到底谁更直接？", "三论宗讲一切皆空，唯识宗讲万法唯识，二者怎么辩？"]
PAIRS = ["huineng vs yinguang", "kumarajiva vs xuanzang", "huineng vs zhiyi", "ajahn-chah vs mahasi-sayadaw"]
GRID = len(TOPICS) * len(PAIRS) * 2
LEVELS = {1: 1, 8: 4, 32: 8, 64: 16}  # concurrency → repeats of the 16-cell grid
MODEL = "openai/scripted-master"


# ----------------------------------------------------------- the model server (own process)


def _serve(conn, delay: float) -> None:
    sys.path.insert(0, str(REPO))
    from debate_core.content.packs import load_pack
    from debate_core.engines.scripted_server import Reply, ScriptedServer
    from tests.master_script import master_script

    inner = master_script(load_pack(REPO / "data" / "packs" / "default"))
    memo: dict[str, str] = {}  # a prompt seen before is answered without composing again
    lock = threading.Lock()

    def script(body):
        key = repr(body["messages"])
        with lock:
            if key not in memo:
                r = inner(body)
                memo[key] = r.text if isinstance(r, Reply) else r
            text = memo[key]
        return Reply(text=text, delay=delay)

    with ScriptedServer(script) as srv:
        conn.send(srv.url)
        while conn.recv() != "stop":
            conn.send((len(srv.requests), time.process_time()))


class ModelServer:
    """The scripted model in a spawned process: ``url``, and ``stats()`` = (requests, its CPU seconds)."""

    def __init__(self, delay: float = DELAY):
        ctx = mp.get_context("spawn")
        self.conn, child = ctx.Pipe()
        self.proc = ctx.Process(target=_serve, args=(child, delay), daemon=True)

    def __enter__(self) -> ModelServer:
        self.proc.start()
        self.url = self.conn.recv()
        return self

    def stats(self) -> tuple[int, float]:
        self.conn.send("stats")
        return self.conn.recv()

    def __exit__(self, *exc) -> None:
        self.conn.send("stop")
        self.proc.join(10)


# ------------------------------------------------------------------------ one batch


def spec_for(url: str, conc: int, repeats: int, batch_id: str, topics=TOPICS, swap: bool = True) -> dict:
    return {"batch_id": batch_id, "topics": list(topics), "pairs": PAIRS, "swap": swap, "rounds": 2,
            "models": [MODEL], "api_base": url, "concurrency": conc, "repeats": repeats}


def run(server: ModelServer, tmp: str, conc: int, repeats: int, label: str, archive: bool = True,
        spec: dict | None = None, **runner_kwargs) -> dict:
    """One batch: wall, debates/s, CPU per model call (this process, its worker processes, the server)."""
    from debate_core.archive import open_archive
    from debate_core.batch import BatchRunner

    arc = open_archive(Path(tmp) / f"{label}-c{conc}-{time.time_ns()}.duckdb") if archive else None
    spec = spec or spec_for(server.url, conc, repeats, f"{label}-c{conc}")
    runner = BatchRunner(spec, arc, **runner_kwargs)
    procs = runner.processes_for(runner.cells())
    n0, s0 = server.stats()
    k0 = resource.getrusage(resource.RUSAGE_CHILDREN)  # worker processes, once they have exited
    c0 = time.process_time()
    t0 = time.perf_counter()
    result = runner.run()
    wall = time.perf_counter() - t0
    cpu = time.process_time() - c0
    k1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    n1, s1 = server.stats()
    s = result.summary()
    calls = max(1, n1 - n0)
    kids = (k1.ru_utime + k1.ru_stime) - (k0.ru_utime + k0.ru_stime)
    done = [r for r in result.results if r.status == "completed"]
    row = {"label": label, "conc": conc, "processes": procs, "debates": s["completed"], "cells": s["cells"],
           "wall": wall, "rate": s["completed"] / wall, "calls": n1 - n0,
           "cpu_main": cpu / calls * 1000, "cpu_workers": kids / calls * 1000,
           "cpu_server": (s1 - s0) / calls * 1000, "debate_s": sum(r.seconds for r in done) / max(1, len(done))}
    row["cpu_total"] = row["cpu_main"] + row["cpu_workers"]
    row["load"] = os.getloadavg()[0]  # the machine's 1-minute load average as the batch ends (others' work too)
    if arc is not None:
        row["call_ms"] = arc.mean_call_latency()
    assert s["completed"] == s["cells"], f"{label} c{conc}: {s}"
    return row


def _row(r: dict, base: float | None) -> str:
    ratio = f"{r['rate'] / base:6.1f}×" if base else "      —"
    return (f"   {r['conc']:>4} {r['processes']:>5} {r['debates']:>8} {r['wall']:7.2f} s {r['rate']:8.2f} {ratio} "
            f"{r['debate_s']:8.2f} s {r.get('call_ms', float('nan')):8.0f} ms "
            f"{r['cpu_main']:7.1f} {r['cpu_workers']:7.1f} {r['cpu_total']:7.1f} {r['cpu_server']:7.1f}"
            f" {r['load']:6.1f}")


HEADER = ("   conc procs  debates    wall  debates/s  vs c=1  s/debate  call wall  "
          "CPU ms per model call: batch  workers  workbench  server   load")


# ------------------------------------------------------------------------- sections


def levels(server: ModelServer, tmp: str, quick: bool, only: set[int] | None = None) -> dict[int, dict]:
    print("1. default settings (commit: auto = group commits; worker processes: auto), archive on")
    print(HEADER)
    rows = {}
    for conc, repeats in LEVELS.items():
        if (quick and conc == 64) or (only is not None and conc not in only):
            continue
        runs = [run(server, tmp, conc, repeats, "default") for _ in range(3 if conc == 32 else 1)]
        for r in runs:
            print(_row(r, runs[0]["rate"] if conc == 1 else rows[1]["rate"]), flush=True)
        rows[conc] = dict(sorted(runs, key=lambda r: r["rate"])[len(runs) // 2], runs=runs)  # the median run
    r32 = rows[32]["rate"] / rows[1]["rate"]
    print(f"   speed-up at concurrency 32 vs 1 (the median of its three runs): {r32:.1f}×  "
          f"(target ≥ 20×: {'met' if r32 >= 20 else 'NOT met'})")
    if 64 in rows:
        print(f"   speed-up at concurrency 64 vs 1: {rows[64]['rate'] / rows[1]['rate']:.1f}×")
    per = rows[1]["calls"] / rows[1]["debates"]
    print(f"   ideal (no CPU cost at all): concurrency × {per:.1f} calls × {DELAY} s per debate → c/{per * DELAY:.2f} "
          f"debates/s; the c=1 debate above took {rows[1]['debate_s']:.2f} s ({per:.2f} model calls a debate: "
          f"{CALLS} and the rewrites of speeches that failed a check)")
    return rows


def alternatives(server: ModelServer, tmp: str, base: dict[int, dict], quick: bool) -> None:
    print()
    print("2. the alternatives, same spec, same run (×: vs the default at concurrency 1)")
    print(HEADER)
    reps = LEVELS[32] // (2 if quick else 1)
    cases = [
        ("commit: speech — every write its own transaction (the old default)", 1, LEVELS[1], dict(commit="speech")),
        ("commit: speech", 32, reps // 2, dict(commit="speech")),
        ("group commits, one process (threads only)", 32, reps, dict(processes=1)),
        ("group commits + worker processes (the default)", 32, None, None),
        ("commit: debate — whole debates at the end, one process", 32, reps, dict(commit="debate")),
        ("no archive, one process", 32, reps, dict(processes=1, archive=False)),
        ("no archive, worker processes", 32, reps, dict(archive=False)),
    ]
    for title, conc, repeats, kw in cases:
        print(f"   {title}")
        r = base[32] if kw is None else run(server, tmp, conc, repeats, "alt", **kw)
        print(_row(r, base[1]["rate"]), flush=True)


# -------------------------------------------------------------------------- profile

_PARTS = [
    ("litellm: cost-map lookups", ("litellm/cost_calculator", "fallback_generalizations", "get_model_info",
                                   "model_cost", "get_potential_model_names", "llm_cost_calc")),
    ("litellm: logging", ("litellm_logging", "litellm/integrations", "logging_utils")),
    ("litellm: the rest", ("/litellm/",)),
    ("HTTP client (openai, httpx, http)", ("/openai/", "/httpx", "/httpcore/", "/h11/", "/anyio/", "/http/",
                                           "/email/", "socket.py", "selectors.py", "ssl.py")),
    ("archive (debate_core/archive, DuckDB)", ("/debate_core/archive/", "duckdb")),
    ("checks (debate_core/checks)", ("/debate_core/checks/",)),
    ("pydantic", ("/pydantic",)),
    ("batch, protocols, engines, other debate_core", ("/debate_core/",)),
    ("threads, queues, locks", ("threading.py", "concurrent/futures", "queue.py", "multiprocessing")),
]


OTHER_THREADS = "threads still alive after the batch (litellm's logging pool), DuckDB's own threads"


def _part(file: str, func: str) -> str:
    where = file.replace("\\", "/") + ":" + func
    for name, keys in _PARTS:
        if any(k in where for k in keys):
            return name
    return "Python itself (module code, interpreter)"


def _categorize(stats: pstats.Stats) -> collections.Counter:
    """Self CPU time by part.  A C function's or a standard-library function's time goes to the
    parts of whoever called it (in proportion to the calls' time), up the stack until a part
    is named: json.dumps called by the archive is the archive's, re called by the checks theirs."""
    table = stats.stats  # type: ignore[attr-defined]
    stdlib = str(Path(sysconfig.get_paths()["stdlib"]))
    memo: dict[tuple, dict[str, float]] = {}

    def own(key: tuple) -> bool:
        file = key[0]
        return file != "~" and not (file.startswith(stdlib) and "site-packages" not in file) \
            and not file.startswith("<")

    def shares(key: tuple, depth: int = 0) -> dict[str, float]:
        if key in memo:
            return memo[key]
        if own(key) or "duckdb" in key[2].lower():
            name = "archive (debate_core/archive, DuckDB)" if "duckdb" in key[2].lower() else _part(key[0], key[2])
            out = {name: 1.0}
        elif depth > 12 or key not in table or not table[key][4]:
            out = {_part(key[0], key[2]): 1.0}
        else:
            memo[key] = {_part(key[0], key[2]): 1.0}  # a cycle resolves to the function's own part
            callers = table[key][4]
            total = sum(v[3] for v in callers.values()) or 1.0
            out: dict[str, float] = {}
            for caller, v in callers.items():
                for part, f in shares(caller, depth + 1).items():
                    out[part] = out.get(part, 0.0) + f * v[3] / total
        memo[key] = out
        return out

    parts: collections.Counter = collections.Counter()
    for key, (_cc, _nc, tt, _ct, _callers) in table.items():
        for part, f in shares(key).items():
            parts[part] += tt * f
    return parts


def profiled(server: ModelServer, tmp: str, conc: int, repeats: int) -> tuple[dict, collections.Counter, dict,
                                                                               pstats.Stats]:
    """An in-process (threads only) group-commit batch with cProfile on a per-thread CPU clock in every thread."""
    from debate_core.archive import open_archive
    from debate_core.batch import BatchRunner

    profiles: list[tuple[int, cProfile.Profile]] = []
    lock = threading.Lock()

    def hook(*_args) -> None:
        prof = cProfile.Profile(time.thread_time)
        with lock:
            profiles.append((threading.get_ident(), prof))
        sys.setprofile(None)
        prof.enable()

    arc = open_archive(Path(tmp) / f"prof-c{conc}-{time.time_ns()}.duckdb")
    spec = spec_for(server.url, conc, repeats, f"prof-c{conc}", topics=TOPICS[:1])
    n0, _ = server.stats()
    main = cProfile.Profile(time.thread_time)
    threading.setprofile(hook)
    main.enable()
    c0 = time.process_time()
    t0 = time.perf_counter()
    result = BatchRunner(spec, arc, processes=1).run()
    wall = time.perf_counter() - t0
    cpu = time.process_time() - c0
    main.disable()
    threading.setprofile(None)
    n1, _ = server.stats()
    stats = pstats.Stats(main)
    alive = {t.ident for t in threading.enumerate()}
    for ident, prof in profiles:
        if ident in alive:  # a pool thread that outlives the batch (litellm's logging): counted below
            continue
        try:
            stats.add(prof)
        except TypeError:  # a thread that never ran Python
            pass
    done = [r for r in result.results if r.status == "completed"]
    calls = arc.calls_per_debate()
    phases = {"debates": len(done), "calls": n1 - n0, "wall": wall,
              "debate_s": sum(r.seconds for r in done) / max(1, len(done)),
              "calls_s": float(calls["ms"].mean()) / 1000, "calls_per_debate": float(calls["n"].mean())}
    parts = _categorize(stats)
    parts[OTHER_THREADS] = max(0.0, cpu - sum(parts.values()))
    return phases, parts, {"calls": n1 - n0}, stats


def _where(key: tuple) -> str:
    """A profile entry as file:line(function), the path from the package (or the standard library) on."""
    file, line, func = key
    if file == "~":
        return func
    file = file.replace("\\", "/")
    for cut in ("site-packages/", "/debate_core/", "/lib/python3"):
        if cut in file:
            file = (("debate_core/" if cut == "/debate_core/" else "") + file.split(cut, 1)[1]).lstrip("/")
            break
    return f"{file}:{line}({func})"


def top_of_profile(stats: pstats.Stats, calls: int, n: int = 15) -> None:
    """The functions the most CPU went to: their own time, and (for our code) with what they call."""
    table = stats.stats  # type: ignore[attr-defined]
    print(f"   top of the concurrency-32 profile: own CPU (ms per model call, profiled), the {n} largest")
    for key, (_cc, nc, tt, ct, _callers) in sorted(table.items(), key=lambda kv: -kv[1][2])[:n]:
        print(f"   {tt / calls * 1000:8.2f} {ct / calls * 1000:8.2f} cum  {nc:>8} calls  {_where(key)[:110]}")
    print(f"   our code (debate_core) by CPU with what it calls (ms per model call, profiled), the {n} largest")
    ours = [(k, v) for k, v in table.items() if "/debate_core/" in k[0].replace("\\", "/")]
    for key, (_cc, nc, tt, ct, _callers) in sorted(ours, key=lambda kv: -kv[1][3])[:n]:
        print(f"   {ct / calls * 1000:8.2f} {tt / calls * 1000:8.2f} own  {nc:>8} calls  {_where(key)[:110]}")


# The parts of a debate's thread timed without a profiler (disjoint: each is entered from the debate
# itself, never from inside another), as (label, module, attribute) to wrap for one run.
_TIMED = [
    ("model calls: Gateway.complete (litellm, HTTP, our gateway, the call's record)",
     "debate_core.engines.gateway", "Gateway.complete"),
    ("checks: run_checks on every speech and rewrite", "debate_core.protocols.master", "run_checks"),
    ("the speech's record: ammo_used, find_citations", "debate_core.protocols.master", "ammo_used"),
    (None, "debate_core.protocols.master", "find_citations"),
    ("speech plans: request_for (plan_speech, the debate's theme, ammo)", "debate_core.protocols.master",
     "MasterDebate.request_for"),
    ("set-up: prepare (pair, rounds, theme, notes)", "debate_core.protocols.master", "MasterDebate.prepare"),
]
_TIMED_INSIDE = ("  of which litellm.completion (in the debate's thread)", "litellm", "completion")


def _thread_cpu() -> dict[int, float]:
    """CPU seconds of every live thread of this process, by native thread id (Linux /proc)."""
    out: dict[int, float] = {}
    tick = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100
    for task in Path("/proc/self/task").glob("*"):
        try:
            fields = (task / "stat").read_text().rsplit(")", 1)[1].split()
            out[int(task.name)] = (int(fields[11]) + int(fields[12])) / tick
        except (OSError, IndexError, ValueError):
            pass
    return out


def unprofiled(server: ModelServer, tmp: str, conc: int = 32, repeats: int = 8) -> None:
    """Where the CPU goes without a profiler's distortion: an in-process batch (threads, group commits)
    with time.thread_time() read around the parts of a debate, and each thread's own CPU."""
    import importlib

    from debate_core.archive import open_archive
    from debate_core.batch import BatchRunner

    spent: collections.Counter = collections.Counter()
    threads: collections.Counter = collections.Counter()
    local = threading.local()
    undo: list[tuple[object, str, object]] = []

    def wrap(label: str, module: str, attr: str) -> None:
        owner: object = importlib.import_module(module)
        name = attr
        if "." in attr:
            cls, name = attr.split(".")
            owner = getattr(owner, cls)
        inner = getattr(owner, name)

        def timed(*a, **kw):
            depth = getattr(local, label, 0)
            setattr(local, label, depth + 1)
            t0 = time.thread_time()
            try:
                return inner(*a, **kw)
            finally:
                setattr(local, label, depth)
                if depth == 0:
                    spent[label] += time.thread_time() - t0
        undo.append((owner, name, inner))
        setattr(owner, name, timed)

    label = ""
    for lab, module, attr in [*_TIMED, _TIMED_INSIDE]:
        label = lab or label
        wrap(label, module, attr)
    run0 = threading.Thread.run

    def run_counted(self: threading.Thread) -> None:
        try:
            run0(self)
        finally:
            threads[self.name.split("_")[0].rstrip("0123456789-")] += time.thread_time()

    threading.Thread.run = run_counted  # type: ignore[method-assign]
    try:
        arc = open_archive(Path(tmp) / f"timed-c{conc}-{time.time_ns()}.duckdb")
        spec = spec_for(server.url, conc, repeats, f"timed-c{conc}", topics=TOPICS[:1])
        alive0 = _thread_cpu()
        n0, _ = server.stats()
        c0 = time.process_time()
        BatchRunner(spec, arc, processes=1).run()
        cpu = time.process_time() - c0
        n1, _ = server.stats()
        alive1 = _thread_cpu()
    finally:
        threading.Thread.run = run0  # type: ignore[method-assign]
        for owner, name, inner in reversed(undo):
            setattr(owner, name, inner)
    calls = max(1, n1 - n0)
    names = {t.native_id: t.name for t in threading.enumerate()}
    for tid, sec in alive1.items():  # threads that outlive the batch (litellm's logging pool): their share
        name = names.get(tid, "")
        if name.startswith("litellm"):
            threads["litellm's logging threads (they outlive the batch)"] += sec - alive0.get(tid, 0.0)
    debate = threads.pop("batch", 0.0)
    print(f"   CPU per model call by part, unprofiled (ms; an in-process batch at concurrency {conc}, "
          f"{repeats * len(PAIRS) * 2} debates, {calls} calls)")
    rows = [(lab, spent[lab]) for lab, _m, _a in _TIMED if lab]
    outer = sum(v for _lab, v in rows)
    rows.insert(1, (_TIMED_INSIDE[0], spent[_TIMED_INSIDE[0]]))
    rows.append(("the rest of the debates' threads (runner, recorder calls, summaries, models)", debate - outer))
    rows += [(f"thread: {k}", v) for k, v in sorted(threads.items(), key=lambda kv: -kv[1]) if v > 0.0005]
    rows.append(("the rest of the process (the batch's own thread, DuckDB's threads)",
                 cpu - debate - sum(threads.values())))
    for lab, v in rows:
        print(f"   {lab:<82} {v / calls * 1000:7.2f}")
    print(f"   {'total: the process CPU (time.process_time)':<82} {cpu / calls * 1000:7.2f}")
    print("   measured: time.thread_time() around each part's entry point (wrapped for this run only), each "
          "finished thread's thread_time() as it ends, /proc/self/task for threads that outlive the batch")


def profile(server: ModelServer, tmp: str) -> None:
    print()
    print("3. profile: an in-process batch (threads, group commits) with cProfile in every thread, "
          "timed by each thread's CPU clock")
    runs = {1: profiled(server, tmp, 1, 1), 32: profiled(server, tmp, 32, 8)}
    p1, p32 = runs[1][0], runs[32][0]
    per = p32["calls_per_debate"]
    print(f"   wall time of one debate ({per:.1f} model calls)          concurrency 1   concurrency 32")
    wait = per * DELAY
    lines = [(f"the model's own delay ({per:.1f} × {DELAY} s)", wait, wait),
             (f"the rest of the {per:.1f} calls: HTTP, litellm, waiting for a CPU", p1["calls_s"] - wait,
              p32["calls_s"] - wait),
             ("between calls: checks, our code, archive, waiting for a CPU", p1["debate_s"] - p1["calls_s"],
              p32["debate_s"] - p32["calls_s"]),
             ("a debate, start to end", p1["debate_s"], p32["debate_s"])]
    for name, a, b in lines:
        print(f"   {name:<62} {a:7.2f} s      {b:7.2f} s")
    print("   CPU per model call by part (ms, profiled: cProfile inflates Python-heavy parts)")
    print(f"   {'part':<50} {'c=1':>9} {'c=32':>9} {'share c=32':>11}")
    cats = {conc: runs[conc][1] for conc in runs}
    total32 = sum(cats[32].values())
    names = sorted(set(cats[1]) | set(cats[32]), key=lambda k: -cats[32].get(k, 0.0))
    for name in names + ["total"]:
        a = sum(cats[1].values()) if name == "total" else cats[1].get(name, 0.0)
        b = total32 if name == "total" else cats[32].get(name, 0.0)
        c1, c32 = max(1, runs[1][2]["calls"]), max(1, runs[32][2]["calls"])
        print(f"   {name:<50} {a / c1 * 1000:9.2f} {b / c32 * 1000:9.2f} {b / total32 * 100 if total32 else 0:10.1f}%")
    top_of_profile(runs[32][3], runs[32][2]["calls"])
    print("   measured: one grid of 8 debates at c=1 and 64 at c=32 in this process (processes=1), with "
          "threading.setprofile starting a cProfile.Profile(time.thread_time) in each new thread; builtins are "
          "charged to their caller's part; the wall times come from the archive (llm_calls.latency_ms) and each "
          "cell's own clock")
    unprofiled(server, tmp)


# -------------------------------------------------------------------------- litellm


def litellm_cpu(server_url_delay0: str) -> None:
    from debate_core.engines.gateway import Gateway, litellm

    lm = litellm()
    msgs = [{"role": "system", "content": "你是中立主持人。" * 20},
            {"role": "user", "content": "请摘要这段发言。" * 300}]
    gw = Gateway(model=MODEL, api_base=server_url_delay0)
    for _ in range(30):
        gw.complete(msgs, purpose="summary")

    def per_call(n: int = 100, blocks: int = 3) -> float:
        best = float("inf")  # the least noisy of a few blocks: others' processes only ever add
        for _ in range(blocks):
            c0 = time.process_time()
            for _ in range(n):
                gw.complete(msgs, purpose="summary")
            best = min(best, (time.process_time() - c0) / n * 1000)
        return best

    def cost_call(n: int = 300) -> float:
        resp = lm.completion(model=MODEL, api_base=server_url_delay0, api_key="x", messages=msgs)
        c0 = time.process_time()
        for _ in range(n):
            try:
                lm.completion_cost(completion_response=resp)
            except Exception:  # noqa: BLE001 - an unpriced model raises; the gateway swallows it too
                pass
        return (time.process_time() - c0) / n * 1000

    print()
    print("4. litellm's CPU per call (one thread, Gateway.complete against the scripted server with no delay)")
    base, base_cost = per_call(), cost_call()
    lm.register_model({MODEL: {"input_cost_per_token": 0.0, "output_cost_per_token": 0.0,
                               "litellm_provider": "openai", "mode": "chat"}})
    reg, reg_cost = per_call(), cost_call()
    print(f"   litellm defaults                                   {base:6.2f} ms CPU per call "
          f"(of which one completion_cost(): {base_cost:.2f} ms)")
    print(f"   model registered in litellm's price map            {reg:6.2f} ms CPU per call "
          f"(one completion_cost(): {reg_cost:.2f} ms)  → {reg - base:+.2f} ms")
    print("   each reply is priced once: litellm prices it on the way back (response_cost in its hidden params) and "
          "Gateway._finish uses that figure (gateway.reply_cost); a model litellm could not price is looked up once "
          "more, then remembered as unpriced")
    print("   measured: time.process_time() around 3 blocks of 100 calls after 30 warm-up calls, the least of the "
          "three; completion_cost() alone over 300 calls; the server runs in another process")


def _cores() -> int:
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)


def figure(rows: dict[int, dict]) -> None:
    """The figure and how it was measured, in one place."""
    base, r32 = rows[1], rows[32]
    walls = ", ".join(f"{r['wall']:.1f} s ({r['rate'] / base['rate']:.1f}×, load {r['load']:.1f})" for r in r32["runs"])
    ratio = r32["rate"] / base["rate"]
    print()
    print(f"5. the figure: at concurrency 32 a batch runs {ratio:.1f}× as many debates per second as at concurrency 1 "
          f"(target ≥ 20×: {'met' if ratio >= 20 else 'NOT met'})")
    print(f"   concurrency 1: {base['debates']} debates ({base['calls']} model calls, "
          f"{base['calls'] / base['debates']:.2f} a debate) in {base['wall']:.1f} s = {base['rate']:.2f} debates/s "
          f"(load {base['load']:.1f})")
    print(f"   concurrency 32: {r32['debates']} debates a run ({r32['calls']} model calls in the median run), "
          f"three runs: {walls}; the median run {r32['rate']:.2f} debates/s, {r32['processes']} processes, "
          f"workbench CPU {r32['cpu_total']:.1f} ms per model call (batch process {r32['cpu_main']:.1f}, "
          f"worker processes {r32['cpu_workers']:.1f})")
    print(f"   each debate: a master debate of 2 rounds on the default pack, every speech checked and rewritten "
          f"when it fails (check_retries), archive on (a fresh DuckDB file per batch, group commits); the model: "
          f"{MODEL} on a ScriptedServer in its own process, each reply after {DELAY} s, over HTTP on 127.0.0.1 "
          f"through litellm; grid: {len(TOPICS)} topics × {len(PAIRS)} pairs × both orders, repeated "
          f"{LEVELS[1]} and {LEVELS[32]} times")
    print(f"   machine: {_cores()} cores shared with others' work; load: the 1-minute load average as each batch ended "
          "(in brackets above); the figure is the median of the three concurrency-32 runs over the one concurrency-1 "
          "run of this same invocation: runs of other invocations saw other loads and are not compared with it")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="skip concurrency 64 and use fewer debates")
    ap.add_argument("--levels", default=",".join(map(str, LEVELS)),
                    help="the concurrency levels to run, of 1,8,32,64 (1 and 32 always; default: all)")
    ap.add_argument("--no-alternatives", action="store_true", help="skip section 2 (the alternatives)")
    ap.add_argument("--no-profile", action="store_true", help="skip the cProfile section")
    ap.add_argument("--no-litellm", action="store_true", help="skip section 4 (litellm alone)")
    args = ap.parse_args()
    try:
        only = {int(x) for x in args.levels.split(",") if x.strip()} | {1, 32}
    except ValueError:
        ap.error(f"--levels {args.levels!r}: a comma-separated list of {', '.join(map(str, LEVELS))}")
    if only - set(LEVELS):
        ap.error(f"--levels {args.levels!r}: {sorted(only - set(LEVELS))} is not one of {', '.join(map(str, LEVELS))}")
    from debate_core.engines.gateway import litellm

    litellm()  # its import is not part of any timing
    cores = _cores()
    print(f"machine: {cores} cores, load average {', '.join(f'{x:.1f}' for x in os.getloadavg())} "
          f"(others' processes share it); model: {MODEL} on a ScriptedServer in its own process, "
          f"{DELAY} s per reply; {CALLS} calls per debate, more when a speech fails its checks and is rewritten")
    print()
    t0 = time.perf_counter()
    with ModelServer() as server, tempfile.TemporaryDirectory() as tmp:
        # imports, the pack, the checks' compiled patterns (worker processes inherit them), the server's
        # replies composed once: none of it is part of a timing
        run(server, tmp, 16, 1, "warm-up", archive=False, processes=1)
        rows = levels(server, tmp, args.quick, only)
        if not args.no_alternatives:
            alternatives(server, tmp, rows, args.quick)
        if not args.no_profile:
            profile(server, tmp)
        if not args.no_litellm:
            with ModelServer(delay=0.0) as fast:
                litellm_cpu(fast.url)  # registers the model in litellm's price map from here on
            print("   the default batch at concurrency 32 again, three times, with the model registered "
                  "(workers inherit it):")
            print(HEADER)
            regs = [run(server, tmp, 32, LEVELS[32], "registered") for _ in range(3)]
            for r in regs:
                print(_row(r, rows[1]["rate"]), flush=True)
            r = sorted(regs, key=lambda x: x["rate"])[1]
            print(f"   medians, before → after registering: {rows[32]['rate']:.2f} → {r['rate']:.2f} debates/s "
                  f"({rows[32]['rate'] / rows[1]['rate']:.1f}× → {r['rate'] / rows[1]['rate']:.1f}×), "
                  f"workbench CPU {rows[32]['cpu_total']:.1f} → {r['cpu_total']:.1f} ms per call")
        figure(rows)
    print()
    print("measured: wall clock (time.perf_counter) around BatchRunner.run(); CPU with time.process_time() for the "
          "batch process and getrusage(RUSAGE_CHILDREN) for its worker processes (reaped when the batch ends), "
          "divided by the model calls the server received; the server's CPU from its own process_time(). "
          "Every level runs the same 16-cell grid (repeated so each level runs ≥ 4 waves) into a fresh archive; "
          "debates/s counts completed debates; the ratios compare levels of this one run. "
          f"This run took {time.perf_counter() - t0:.0f} s.")


if __name__ == "__main__":
    main()
