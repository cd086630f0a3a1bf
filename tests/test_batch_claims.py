"""Batch cell claims (issue 23, item 5): two runs of one spec at once share its cells.

Each run claims a cell in the archive's write transaction before it runs it; a cell another
live run holds is reported as run by that process; a claim whose process is gone is taken over.
The concurrent cases are two real OS processes (``python -m debate_core batch``) on one archive
file, with the offline engine and a slowed first round (tests/slow_round.py) so they overlap.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from datetime import timedelta

from debate_core.archive import open_archive
from debate_core.archive.claims import CLAIM_LEASE
from debate_core.archive.values import now
from debate_core.batch import BatchRunner, batch_debates, expand, load_spec
from tests.conftest import REPO
from tests.slow_round import slow_env, slowed

CHAN = "禅宗顿悟和净土念佛，到底谁更直接？"
KONG = "三论宗讲一切皆空，唯识宗讲万法唯识，二者怎么辩？"


def _spec(tmp_path, name: str = "shared", repeats: int = 5, concurrency: int = 2):
    spec = tmp_path / f"{name}.yaml"
    spec.write_text(f"topics: [{CHAN}, {KONG}]\nrepeats: {repeats}\nconcurrency: {concurrency}\ncommit: speech\n",
                    encoding="utf-8")
    return spec


# a batch CLI run whose first round is slowed and, with a gate, whose run waits until the gate file
# exists (so two runs start their cells together, however long each process takes to start)
_CLI = """
import os, sys, time
from tests.slow_round import install_from_env
install_from_env()
gate = os.environ.get("CLAIMS_TEST_GATE")
if gate:
    from debate_core.batch.runner import BatchRunner
    run = BatchRunner.run
    def gated(self):
        open(f"{gate}.{os.getpid()}", "w").close()
        while not os.path.exists(gate):
            time.sleep(0.02)
        return run(self)
    BatchRunner.run = gated
from debate_core.cli.main import main
sys.exit(main(sys.argv[1:]))
"""


def _batch(spec, db, seconds: float, gate=None) -> subprocess.Popen:
    env = slow_env(os.environ, 1, seconds)  # each first-round speech takes `seconds` more to commit
    if gate is not None:
        env["CLAIMS_TEST_GATE"] = str(gate)
    return subprocess.Popen([sys.executable, "-c", _CLI, "batch", str(spec), "--archive", str(db),
                             "--quiet", "--format", "json"], cwd=REPO, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)


def _open_gate(gate, procs, timeout: float = 300) -> None:
    """Wait until every process is at the start of its run, then let them all go."""
    deadline = time.monotonic() + timeout
    while not all(os.path.exists(f"{gate}.{p.pid}") for p in procs):
        for p in procs:
            assert p.poll() is None, p.communicate()
        assert time.monotonic() < deadline, "a batch process never reached its run"
        time.sleep(0.05)
    open(gate, "w").close()


def _claims(db) -> list[tuple]:
    import duckdb

    try:
        con = duckdb.connect(str(db), read_only=True)
    except duckdb.Error:
        return []  # being written just now
    try:
        return con.execute("SELECT cell, writer_pid FROM batch_claims").fetchall()
    except duckdb.Error:
        return []
    finally:
        con.close()


def _wait_for_claims(db, proc: subprocess.Popen, timeout: float = 120) -> list[tuple]:
    """The claims the running batch holds, once a read sees any (a read that meets the writer's lock sees
    none: a second read right after could fail the same way, so the claims read here are returned)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        assert proc.poll() is None, proc.communicate()
        claims = _claims(db) if db.exists() else []
        if claims:
            return claims
        time.sleep(0.2)
    raise AssertionError("the first run never claimed a cell")


def _one_debate_per_cell(db, spec) -> list:
    cells = [c.key for c in expand(load_spec(spec))]
    df = batch_debates(open_archive(db, create=False), load_spec(spec).batch_id)
    assert sorted(df["cell"]) == sorted(cells), "a cell ran twice or not at all"
    return df


def test_two_processes_running_one_spec_share_its_cells(tmp_path):
    spec, db = _spec(tmp_path), tmp_path / "a.duckdb"
    gate = tmp_path / "gate"
    open_archive(db)  # made and migrated before either run starts
    first, second = _batch(spec, db, 1.5, gate), _batch(spec, db, 1.5, gate)
    _open_gate(gate, (first, second))  # both start their cells at once
    outs = []
    for proc in (first, second):
        out, err = proc.communicate(timeout=600)
        assert proc.returncode == 0, err
        assert "Traceback" not in err
        outs.append(json.loads(out))
    df = _one_debate_per_cell(db, spec)  # 10 debates for 10 cells, not 20
    assert len(df) == 10 and set(df["status"]) == {"completed"}
    a, b = (o["summary"] for o in outs)
    assert a["completed"] + b["completed"] == 10 and a["completed"] >= 1 and b["completed"] >= 1
    # each run says which cells the other one ran (or, once the other had finished, skipped them) and which
    # process that is
    assert a["busy"] + a["skipped"] == b["completed"] and b["busy"] + b["skipped"] == a["completed"]
    assert b["busy"] >= 1
    for o, other in zip(outs, (second.pid, first.pid)):
        for cell in o["cells"]:
            if cell["status"] == "busy":
                assert cell["reason"] == f"claimed by process {other} on {socket.gethostname()} " \
                                         "(another run of this batch)"
    assert _claims(db) == []  # both released their claims when they ended


def test_the_markdown_report_says_what_the_other_run_did(tmp_path):
    spec, db = _spec(tmp_path, "report", repeats=2), tmp_path / "a.duckdb"
    arc = open_archive(db)
    cells = expand(load_spec(spec))
    # another live run (this test's own parent process, say) holds two of the four cells
    holder = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
    try:
        _plant_claims(arc, "report", [c.key for c in cells[:2]], pid=holder.pid, host=socket.gethostname(),
                      start=_start_of(holder.pid))
        out = subprocess.run([sys.executable, "-m", "debate_core", "batch", str(spec), "--archive", str(db), "--quiet"],
                             cwd=REPO, capture_output=True, text=True, timeout=600)
    finally:
        holder.kill()
        holder.wait()
    assert out.returncode == 0, out.stderr
    assert f"- 2 cells were run by another process, not here: claimed by process {holder.pid} on " \
           f"{socket.gethostname()} (another run of this batch)" in out.stdout
    assert "completed 2" in out.stdout and "running elsewhere 2" in out.stdout
    plan = subprocess.run([sys.executable, "-m", "debate_core", "batch", str(spec), "--archive", str(db), "--dry-run"],
                          cwd=REPO, capture_output=True, text=True, timeout=600)
    # the holder is gone now: its two cells would run, the other two are done
    assert plan.returncode == 0 and "run 2" in plan.stdout and "skip 2" in plan.stdout


def _start_of(pid: int) -> str:
    from debate_core.archive.connection import _proc_stat

    stat = _proc_stat(pid)
    return stat[1] if stat else ""


def _plant_claims(arc, batch_id: str, cells: list[str], *, pid: int, host: str, start: str = "",
                  beat=None, run_id: str = "planted") -> None:
    at = beat or now()
    with arc._session(write=True) as con:
        for cell in cells:
            con.execute("INSERT INTO batch_claims VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                        [batch_id, cell, run_id, pid, host, start, at, at])


def _dead_pid() -> int:
    p = subprocess.Popen([sys.executable, "-c", "pass"])
    p.wait()
    return p.pid


def test_claims_of_dead_or_silent_holders_are_taken_over(tmp_path):
    spec = load_spec({"batch_id": "orphans", "topics": [CHAN, KONG], "repeats": 2, "concurrency": 2})
    arc = open_archive(tmp_path / "a.duckdb")
    keys = [c.key for c in expand(spec)]
    here = socket.gethostname()
    _plant_claims(arc, "orphans", keys[:1], pid=_dead_pid(), host=here, run_id="dead")  # a process that exited
    _plant_claims(arc, "orphans", keys[1:2], pid=1, host=here, start="999999999", run_id="reused")  # pid reused
    _plant_claims(arc, "orphans", keys[2:3], pid=1234, host="elsewhere.example",
                  beat=now() - CLAIM_LEASE - timedelta(seconds=5), run_id="silent")  # another host, silent
    _plant_claims(arc, "orphans", keys[3:4], pid=1234, host="elsewhere.example", run_id="alive")  # beating
    result = BatchRunner(spec, arc).run()
    status = {r.cell.key: r.status for r in result.results}
    assert [status[k] for k in keys] == ["completed", "completed", "completed", "busy"]
    busy = next(r for r in result.results if r.status == "busy")
    assert busy.reason == "claimed by process 1234 on elsewhere.example (another run of this batch)"
    assert result.ok  # the busy cell is the other run's to finish
    with arc._session() as con:
        assert con.execute("SELECT cell, run_id FROM batch_claims").fetchall() == [(keys[3], "alive")]


def test_a_killed_run_leaves_claims_the_next_run_takes_over(tmp_path):
    spec, db = _spec(tmp_path, "killed", repeats=2), tmp_path / "a.duckdb"
    first = _batch(spec, db, 30.0)  # stuck in its first round
    held = {pid for _cell, pid in _wait_for_claims(db, first)}
    first.send_signal(signal.SIGKILL)
    first.communicate()
    assert held == {first.pid}
    out = subprocess.run([sys.executable, "-m", "debate_core", "batch", str(spec), "--archive", str(db), "--quiet",
                          "--format", "json"], cwd=REPO, capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr
    summary = json.loads(out.stdout)["summary"]
    assert summary["busy"] == 0 and summary["completed"] == 4
    df = _one_debate_per_cell(db, spec)
    assert set(df["status"]) == {"completed"}
    assert _claims(db) == []


def test_two_runs_in_one_process_share_the_cells(tmp_path, monkeypatch):
    from debate_core.archive import Archive

    monkeypatch.setattr(Archive, "speech", slowed(Archive.speech, 1, 0.2))
    spec = load_spec({"batch_id": "threads", "topics": [CHAN, KONG], "repeats": 3, "concurrency": 2,
                      "commit": "speech"})
    arc = open_archive(tmp_path / "a.duckdb")
    results = [None, None]

    def go(i: int) -> None:
        results[i] = BatchRunner(spec, arc).run()

    threads = [threading.Thread(target=go, args=(i,)) for i in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(600)
    a, b = results
    assert a.count("completed") + b.count("completed") == 6
    assert a.count("busy", "skipped") == b.count("completed") and b.count("busy", "skipped") == a.count("completed")
    assert a.count("busy") + b.count("busy") >= 1
    df = batch_debates(arc, "threads")
    assert len(df) == 6 and sorted(df["cell"]) == sorted(c.key for c in expand(spec))


def test_a_cell_running_when_the_run_plans_is_reported_by_its_claim(tmp_path):
    # the other run claimed the cell and began its debate before this run read the archive: the cell is
    # the other run's, and the report names that run's process (not only "a live process")
    spec = load_spec({"batch_id": "planned", "topics": [CHAN, KONG], "repeats": 2, "concurrency": 2})
    arc = open_archive(tmp_path / "a.duckdb")
    keys = [c.key for c in expand(spec)]
    assert BatchRunner(spec, arc).run().count("completed") == 4
    with arc._session(write=True) as con:
        con.execute("UPDATE debates SET status = 'running', finished_at = NULL "
                    "WHERE json_extract_string(config, '$.batch_id') = ?", [f"planned#{keys[0]}"])
    _plant_claims(arc, "planned", keys[:1], pid=1234, host="elsewhere.example", run_id="alive")
    result = BatchRunner(spec, arc).run()
    first = next(r for r in result.results if r.cell.key == keys[0])
    assert first.status == "busy"
    assert first.reason == "claimed by process 1234 on elsewhere.example (another run of this batch)"
    assert [r.status for r in result.results[1:]] == ["skipped"] * 3
