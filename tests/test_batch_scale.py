"""Wide batches: group commits and worker processes (docs/batch.md, "Commit modes").

Real DuckDB archives and the real scripted model server over HTTP on 127.0.0.1 (master debates
composed from the prompt by tests/master_script.py, each reply delayed); nothing is mocked.
No timing is asserted here: bench/batch_scale.py measures the speed.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from debate_core import runs
from debate_core.archive import open_archive
from debate_core.batch import BatchRunner, batch_debates, expand, load_spec, run_batch
from debate_core.engines.scripted_server import Reply, ScriptedServer
from debate_core.models import DebateConfig
from debate_core.batch.runner import _cores
from tests.archive_helpers import reap, wait_for
from tests.master_script import master_script

REPO = Path(__file__).resolve().parent.parent
CHAN = "禅宗顿悟和净土念佛，到底谁更直接？"
KONG = "三论宗讲一切皆空，唯识宗讲万法唯识，二者怎么辩？"
PAIRS = ["huineng vs yinguang", "kumarajiva vs xuanzang", "huineng vs zhiyi", "ajahn-chah vs mahasi-sayadaw"]
CALLS = 5  # a 2-round master debate: 2 speeches, 2 summaries, 1 observation, and a speech rewritten per failed check
PURPOSES = ["speech", "summary", "speech", "summary", "observation"]


def _delayed(pack, delay: float):
    inner = master_script(pack, bad_drafts_by="你扮演阿姜查")  # his first drafts fail: rewrites to archive
    lock = threading.Lock()

    def script(body):
        with lock:  # the script keeps a little state
            reply = inner(body)
        reply = Reply(text=reply) if isinstance(reply, str) else reply
        reply.delay = delay
        return reply
    return script


@pytest.fixture(scope="module")
def server(default_pack):
    with ScriptedServer(_delayed(default_pack, 0.05)) as srv:
        yield srv


def _spec(url: str, batch_id: str, **extra) -> dict:
    return {"batch_id": batch_id, "topics": [CHAN, KONG], "pairs": PAIRS, "swap": True, "rounds": 2,
            "models": ["openai/scripted-master"], "api_base": url, **extra}


def _stored(archive, batch_id: str) -> dict[str, dict]:
    """Every debate of the batch by cell key: what was archived, row by row."""
    out = {}
    for row in batch_debates(archive, batch_id).itertuples(index=False):
        d = archive.get_debate(row.id)
        calls = archive.query("SELECT seq, purpose, round, error FROM llm_calls WHERE debate_id = ? ORDER BY seq",
                              [row.id])
        head = archive.query("SELECT status, rounds_done, prompt_tokens, completion_tokens, writer_pid "
                             "FROM debates WHERE id = ?", [row.id]).iloc[0]
        out[row.cell] = {
            "id": d.id, "status": d.status, "head": head.to_dict(),
            "speeches": [(s.round, s.speaker, s.role, s.status, s.text, s.citations) for s in d.rounds],
            "summaries": [(s.round, s.speaker, s.text) for s in d.summaries],
            "observation": d.observation, "calls": [(r.seq, r.purpose, r.round, r.error) for r in calls.itertuples()],
            "tokens": (sum(c.prompt_tokens for c in d.llm_calls), sum(c.completion_tokens for c in d.llm_calls)),
        }
    return out


def _without_ids(stored: dict[str, dict]) -> dict[str, dict]:
    return {k: {f: v for f, v in d.items() if f not in ("id", "head")} for k, d in stored.items()}


@pytest.fixture(scope="module")
def serial(server, tmp_path_factory):
    """The 16-debate grid one debate at a time, every speech committed on its own (commit: speech)."""
    arc = open_archive(tmp_path_factory.mktemp("serial") / "serial.duckdb")
    result = run_batch(_spec(server.url, "scale", commit="speech", concurrency=1), arc)
    assert result.summary()["completed"] == 16
    return _stored(arc, "scale")


def _check_whole(d: dict, resumed: bool = False) -> None:
    assert d["status"] == "completed"
    assert [s[0] for s in d["speeches"]] == [1, 2] and [s[0] for s in d["summaries"]] == [1, 2]
    assert d["observation"] is not None
    assert [c[0] for c in d["calls"]] == list(range(len(d["calls"]))) and len(d["calls"]) >= CALLS
    if resumed:  # a call whose speech or summary the kill lost stays in the log; the redo follows it
        assert d["calls"][-1][1] == "observation"
    else:  # each speech call may be followed by its rewrites (a failed check): the same purpose again
        purposes = [c[1] for c in d["calls"]]
        assert [p for i, p in enumerate(purposes) if i == 0 or p != purposes[i - 1]] == PURPOSES
    head = d["head"]
    assert head["status"] == "completed" and head["rounds_done"] == 2
    assert (head["prompt_tokens"], head["completion_tokens"]) == d["tokens"]


@pytest.mark.parametrize("processes", [None, 3, 1], ids=["worker-processes", "three-processes", "one-process"])
def test_width_16_archives_every_debate_as_a_serial_run_does(server, serial, tmp_path, processes):
    arc = open_archive(tmp_path / "wide.duckdb")
    spec = _spec(server.url, "scale", concurrency=16)
    runner = BatchRunner(spec, arc, processes=processes)
    cells = expand(load_spec(spec))
    expected = processes or min(2, _cores())  # auto: one worker process per core, at most 16 // 8
    assert runner.processes_for(cells) == expected
    n0 = len(server.requests)
    result = runner.run()
    assert result.summary()["completed"] == 16 and result.ok
    calls = sum(len(d["calls"]) for d in serial.values())
    assert calls > 16 * CALLS  # some speeches failed a check and were rewritten, in the serial run too
    assert len(server.requests) - n0 == calls  # every model call once, the same ones, none repeated
    wide = _stored(arc, "scale")
    assert set(wide) == set(serial) == {c.key for c in cells}
    for d in wide.values():
        _check_whole(d)
        assert d["head"]["writer_pid"] == os.getpid()  # this process wrote them, whichever ran the debate
    # the same speeches, summaries, observations and model calls, cell by cell, as the serial run
    assert _without_ids(wide) == _without_ids(serial)
    assert arc.query("SELECT count(*) AS n FROM llm_calls")["n"][0] == calls


def test_group_commits_keep_a_finished_debate_durable_and_resume_through_them(tmp_path):
    """The grouped recorder alone: a finished debate is committed when its last write returns (another
    Archive object sees it whole); durable="speech" commits each speech before returning; a debate
    stopped mid-way resumes through a grouped recorder standing in for the archive."""
    path = tmp_path / "g.duckdb"
    arc = open_archive(path)
    with arc.grouped(durable="speech") as rec:
        seen = []

        def look(speech):  # called after the speech was reported: it is committed already
            other = open_archive(path)
            seen.append(other.query("SELECT count(*) AS n FROM speeches WHERE round = ?", [speech.round])["n"][0])
        runner, debate = runs.start(DebateConfig(topic=CHAN, masters=["huineng", "yinguang"], rounds=3), rec)
        stop_after = {"n": 0}

        def stop() -> bool:
            return stop_after["n"] >= 2
        debate = runner.run(debate, on_speech=lambda s: (look(s), stop_after.__setitem__("n", stop_after["n"] + 1)),
                            should_stop=stop)
        assert debate.status == "stopped" and seen == [1, 1]
        fresh = open_archive(path).get_debate(debate.id)  # returned from update(stopped): committed
        assert fresh.status == "stopped" and [s.round for s in fresh.rounds] == [1, 2]
        runner, again = runs.reopen(rec, debate.id)
        done = runner.run(again)
    assert done.status == "completed"
    stored = open_archive(path).get_debate(debate.id)
    assert stored.status == "completed" and [s.round for s in stored.rounds] == [1, 2, 3]
    assert [s.round for s in stored.summaries] == [1, 2, 3] and stored.observation is not None


def _children(pid: int) -> set[int]:
    out = set()
    for task in Path(f"/proc/{pid}/task").glob("*"):
        try:
            out |= {int(x) for x in (task / "children").read_text().split()}
        except OSError:
            pass
    return out


def _forks(pid: int) -> set[int]:
    """Children of ``pid`` that run its program (the same command line)."""
    try:
        own = Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return set()
    out = set()
    for c in _children(pid):
        try:
            if Path(f"/proc/{c}/cmdline").read_bytes() == own:
                out.add(c)
        except OSError:
            pass
    return out


def _workers(pid: int) -> set[int]:
    """The batch's worker processes: its forks that are still there a moment later (a library's short-lived
    helper, such as the openai client's `uname -p`, is a fork too until it runs its own program)."""
    first = _forks(pid)
    threading.Event().wait(0.3)
    return first & _forks(pid)


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state not in ("Z", "X")



@pytest.mark.skipif(not Path("/proc/self/task").is_dir(), reason="needs /proc")
def test_sigkill_mid_batch_keeps_what_was_committed_and_a_rerun_finishes(default_pack, serial, tmp_path):
    """SIGKILL a real `python -m debate_core batch` at concurrency 16 (group commits, worker processes)
    in the middle: its worker processes go too; every finished debate is whole, every unfinished one
    holds a clean prefix of its rounds (nothing half-written) and is flipped to interrupted; the same
    spec then resumes those, skips the finished ones and runs the rest, one debate per cell."""
    path = tmp_path / "k.duckdb"
    spec_file = tmp_path / "wide.json"
    with ScriptedServer(_delayed(default_pack, 0.15)) as srv:
        spec = _spec(srv.url, "scale", repeats=3, concurrency=16)  # 48 debates: three waves of 16
        spec_file.write_text(json.dumps(spec, ensure_ascii=False), encoding="utf-8")
        arc = open_archive(path)
        env = {k: v for k, v in os.environ.items() if k not in ("DEBATE_ARCHIVE", "DEBATE_MODEL")}
        proc = subprocess.Popen([sys.executable, "-m", "debate_core", "batch", str(spec_file), "--archive", str(path),
                                 "--quiet", "--format", "json"], cwd=REPO, env=env, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True)
        try:
            def midway() -> bool:
                if proc.poll() is not None:
                    return True
                n = arc.query("SELECT count(*) FILTER (status = 'completed') AS done, "
                              "count(*) FILTER (status = 'running' AND rounds_done >= 1) AS going FROM debates")
                return n["done"][0] >= 4 and n["going"][0] >= 1
            wait_for(midway, timeout=90.0, what="some debates finished and others half-way")
            assert proc.poll() is None, proc.stderr.read()
            workers = _workers(proc.pid)
            assert len(workers) == (min(2, _cores()) if _cores() > 1 else 0)
            proc.send_signal(signal.SIGKILL)
            proc.wait(timeout=10)
            # the worker processes notice their parent is gone and exit on their own
            wait_for(lambda: not any(_alive(w) for w in workers), timeout=20, what="the worker processes to exit")
        finally:
            reap(proc)
        assert proc.returncode == -signal.SIGKILL

        raw = arc.query("SELECT status, count(*) AS n FROM debates GROUP BY 1")
        statuses = dict(zip(raw["status"], raw["n"]))
        assert set(statuses) <= {"completed", "running"} and statuses.get("running", 0) >= 1
        killed = _stored(arc, "scale")
        reference = {(d["speeches"][0][1], d["speeches"][0][4]): d for d in serial.values()}
        for d in killed.values():
            if d["status"] == "completed":
                _check_whole(d)
                continue
            # a running debate: rounds 1..k whole or not at all, calls numbered without a gap
            rounds = [s[0] for s in d["speeches"]]
            assert rounds == list(range(1, len(rounds) + 1)) and len(rounds) <= 2
            assert [s[0] for s in d["summaries"]] == rounds[:len(d["summaries"])]
            assert [c[0] for c in d["calls"]] == list(range(len(d["calls"])))
            assert d["head"]["rounds_done"] == len(rounds)
        for d in killed.values():  # what was kept is what an uninterrupted run says
            if d["speeches"]:
                ref = reference[(d["speeches"][0][1], d["speeches"][0][4])]
                assert d["speeches"] == ref["speeches"][:len(d["speeches"])]

        # the writer is dead: the running debates are interrupted, and the plan resumes them
        flipped = arc.mark_interrupted()
        assert len(flipped) == statuses["running"]
        plan = BatchRunner(spec, arc).plan()
        actions = plan["action"].value_counts().to_dict()
        assert actions.get("skip", 0) == statuses["completed"]
        assert actions.get("resume", 0) == statuses["running"]
        assert sum(actions.values()) == 48

        again = run_batch(spec, arc)
        s = again.summary()
        assert s["completed"] + s["skipped"] == 48 and again.ok
        assert s["resumed"] == statuses["running"] and s["skipped"] == statuses["completed"]
    final = _stored(arc, "scale")
    assert len(final) == 48 and len(batch_debates(arc, "scale")) == 48  # one debate per cell, none twice
    for key, d in final.items():
        _check_whole(d, resumed=key in killed and killed[key]["status"] != "completed")
        if key in killed:
            assert d["id"] == killed[key]["id"]  # resumed debates keep their id
        ref = reference[(d["speeches"][0][1], d["speeches"][0][4])]
        assert d["speeches"] == ref["speeches"] and d["summaries"] == ref["summaries"]


def test_stop_with_worker_processes_then_rerun_finishes(server, tmp_path):
    arc = open_archive(tmp_path / "s.duckdb")
    spec = _spec(server.url, "stop-go", repeats=2, concurrency=16)  # 32 debates, 16 at a time
    stop = threading.Event()
    done = []

    def on_result(r):
        done.append(r)
        if len(done) >= 3:
            stop.set()
    first = BatchRunner(spec, arc, stop=stop, on_result=on_result).run()
    counts = first.summary()
    assert counts["cells"] == 32 and counts["errors"] == 0 and counts["failed"] == 0
    assert counts["completed"] >= 3 and counts["stopped"] >= 1  # stopped at a round boundary, or never started
    stopped = {r.cell.key: r.debate_id for r in first.results if r.status == "stopped"}
    for debate_id in stopped.values():
        d = arc.get_debate(debate_id)
        assert d.status == "stopped" and len(d.rounds) < 2
    second = run_batch(spec, arc)
    assert second.ok and second.summary()["completed"] + second.summary()["skipped"] == 32
    by_key = {r.cell.key: r for r in second.results}
    for key, debate_id in stopped.items():
        assert by_key[key].resumed and by_key[key].debate_id == debate_id
    df = batch_debates(arc, "stop-go")
    assert len(df) == 32 and set(df["status"]) == {"completed"}


def _watch_children(proc: subprocess.Popen) -> int:
    """The most worker processes ``proc`` had at once, watched until it exits."""
    most = 0
    while proc.poll() is None:
        most = max(most, len([c for c in _workers(proc.pid) if _alive(c)]))
    return most


@pytest.mark.skipif(not Path("/proc/self/task").is_dir(), reason="needs /proc")
def test_processes_from_the_command_line_and_the_spec(default_pack, tmp_path):
    """`--processes 2` runs a narrow batch (auto keeps concurrency 4 in one process) in two worker
    processes, whose debates the batch process writes; `processes: 1` in a spec keeps a wide batch
    (auto: worker processes) in this process's threads.  Both archive every debate whole."""
    env = {k: v for k, v in os.environ.items() if k not in ("DEBATE_ARCHIVE", "DEBATE_MODEL")}
    with ScriptedServer(_delayed(default_pack, 0.1)) as srv:
        for name, extra, flags, workers in [
            ("narrow", {"concurrency": 4}, ["--processes", "2"], 2),
            ("wide", {"concurrency": 16, "processes": 1}, [], 0),
        ]:
            spec_file = tmp_path / f"{name}.json"
            spec_file.write_text(json.dumps(_spec(srv.url, name, **extra), ensure_ascii=False), encoding="utf-8")
            path = tmp_path / f"{name}.duckdb"
            proc = subprocess.Popen([sys.executable, "-m", "debate_core", "batch", str(spec_file), "--archive",
                                     str(path), "--quiet", "--format", "json", *flags], cwd=REPO, env=env,
                                    stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            try:
                most = _watch_children(proc)
                out, err = proc.communicate(timeout=120)
            finally:
                reap(proc)
            assert proc.returncode == 0, err
            assert json.loads(out)["summary"]["completed"] == 16
            assert most == workers, name
            arc = open_archive(path)
            stored = _stored(arc, name)
            assert len(stored) == 16
            for d in stored.values():
                _check_whole(d)
                assert d["head"]["writer_pid"] == proc.pid  # the batch process wrote them, whoever ran the debate
