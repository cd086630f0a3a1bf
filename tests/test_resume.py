"""Crash safety: SIGKILL a real debate mid round 3, see it interrupted, resume it; retry a failed round.

Making round 3 slow enough to kill deterministically: the debate runs with
``DEBATE_TEST_SLOW_ROUND=3:60`` and ``tests/slow_site`` on its PYTHONPATH, whose
``sitecustomize.py`` wraps ``Archive.speech`` to sleep before committing that round's
speech (tests/slow_round.py; the library knows nothing of it).  The killed process has
produced round 3 but not committed it, which is what a kill in the middle of a slow
model call looks like to the archive.
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from debate_core.archive import ArchiveError, open_archive
from debate_core.engines.gateway import GatewayError
from debate_core.models import DebateConfig
from debate_core import runs
from tests.archive_helpers import REPO, cli, make_pack, reap, run_debate, wait_for
from tests.slow_round import slow_env

TOPIC = "顿悟与念佛，哪一个更适合初学者？"


@pytest.fixture(scope="module")
def pack(tmp_path_factory) -> Path:
    return make_pack(tmp_path_factory.mktemp("pack"))


@pytest.fixture(scope="module")
def reference(tmp_path_factory, pack):
    """The same debate, never interrupted: what a resumed one must equal."""
    return run_debate(open_archive(tmp_path_factory.mktemp("ref") / "ref.duckdb"), pack, topic=TOPIC)



def test_sigkill_mid_round_3_leaves_rounds_1_2_and_resume_finishes(tmp_path, pack, reference):
    path = tmp_path / "a.duckdb"
    arc = open_archive(path)
    env = slow_env(os.environ, 3, 60)
    env.pop("DEBATE_ARCHIVE", None)
    env.pop("DEBATE_MODEL", None)
    proc = subprocess.Popen([sys.executable, "-m", "debate_core", "debate", TOPIC, "--masters", "huineng,yinguang",
                             "--pack", str(pack), "--archive", str(path), "--quiet"],
                            cwd=REPO, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        first = proc.stderr.readline()
        m = re.match(r"辩论 (\w+) 已存入 ", first)  # a Chinese debate says it in Chinese
        assert m, first + proc.stderr.read()
        debate_id = m.group(1)

        def two_rounds_done() -> bool:
            return arc.query("SELECT count(*) AS n FROM summaries WHERE debate_id = ?", [debate_id])["n"][0] >= 2
        wait_for(two_rounds_done, what="rounds 1 and 2 to be committed")
        time.sleep(0.5)  # now inside round 3 (held before its speech is committed)
        assert proc.poll() is None
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=10)
    finally:
        reap(proc)
    assert proc.returncode == -signal.SIGKILL

    raw = arc.query("SELECT status, writer_pid FROM debates WHERE id = ?", [debate_id]).iloc[0]
    assert raw["status"] == "running" and raw["writer_pid"] == proc.pid  # nobody has looked yet

    # the archive holds rounds 1 and 2 whole, and nothing of round 3
    d = arc.get_debate(debate_id)
    assert [(s.round, s.status != "failed") for s in d.rounds] == [(1, True), (2, True)]
    assert [s.round for s in d.summaries] == [1, 2]
    assert [s.text for s in d.rounds] == [s.text for s in reference.rounds[:2]]

    # listing shows it interrupted (CLI, JSON)
    r = cli("list", "--format", "json", "--archive", str(path))
    assert r.returncode == 0, r.stderr
    [row] = [x for x in json.loads(r.stdout) if x["id"] == debate_id]
    assert row["status"] == "interrupted"
    d = arc.get_debate(debate_id)
    assert d.status == "interrupted" and "第 3 轮" in d.stop_reason and str(proc.pid) in d.stop_reason

    # resume finishes it from round 3 under the same rules
    r = cli("resume", debate_id, "--archive", str(path), "--format", "json")
    assert r.returncode == 0, r.stderr
    done = arc.get_debate(debate_id)
    assert done.status == "completed"
    assert [(s.round, s.speaker, s.role) for s in done.rounds] == [(s.round, s.speaker, s.role) for s in reference.rounds]
    assert [s.text for s in done.rounds] == [s.text for s in reference.rounds]
    assert [s.text for s in done.summaries] == [s.text for s in reference.summaries]
    assert done.observation == reference.observation
    assert json.loads(r.stdout)["id"] == debate_id
    assert arc.query("SELECT count(*) AS n FROM speeches WHERE debate_id = ?", [debate_id])["n"][0] == 4


def test_resume_after_a_kill_between_speech_and_summary(tmp_path, pack, reference):
    """The next isolated round needs the stored summary: resume writes the missing one first."""
    arc = open_archive(tmp_path / "a.duckdb")

    class Crash(Exception):
        pass

    class Dies(type(arc)):
        def summary(self, debate, summary):
            if summary.round == 2:
                raise Crash()
            super().summary(debate, summary)

    dying = Dies(arc.path)
    with pytest.raises(Crash):
        run_debate(dying, pack, topic=TOPIC)
    [debate_id] = list(arc.query("SELECT id FROM debates")["id"])
    arc.set_status(debate_id, "interrupted", "simulated crash")
    d = arc.get_debate(debate_id)
    assert [s.round for s in d.rounds] == [1, 2] and [s.round for s in d.summaries] == [1]
    done = runs.resume(arc, debate_id)
    assert done.status == "completed"
    assert [s.text for s in done.rounds] == [s.text for s in reference.rounds]
    assert [s.text for s in arc.get_debate(debate_id).summaries] == [s.text for s in reference.summaries]


class _FailsAt:
    """The offline engine, except that one round's speech fails for good (as after the gateway's retries)."""

    def __init__(self, inner, round_no: int):
        self.inner, self.round_no, self.name = inner, round_no, inner.name

    def speech(self, req, on_token=None):
        if req.round == self.round_no:
            raise GatewayError("server error 500 after 3 retries")
        return self.inner.speech(req, on_token)

    def summarize(self, req):
        return self.inner.summarize(req)

    def observe(self, req):
        return self.inner.observe(req)


def test_failed_round_then_retry_reruns_that_round_alone(tmp_path, pack, reference):
    from debate_core.api import master_runner

    path = tmp_path / "a.duckdb"
    arc = open_archive(path)
    config = DebateConfig(topic=TOPIC, masters=["huineng", "yinguang"], pack=str(pack))
    runner = master_runner(config, recorder=arc)
    runner.engine = _FailsAt(runner.engine, 3)
    debate = runner.run(runner.prepare(config))
    assert debate.status == "failed"

    stored = arc.get_debate(debate.id)
    assert stored.status == "failed" and stored.stop_reason.startswith("第 3 轮失败")
    assert [(s.round, s.status == "failed") for s in stored.rounds] == [(1, False), (2, False), (3, True)]
    assert arc.query("SELECT failed_round FROM debates")["failed_round"][0] == 3

    r = cli("retry", debate.id, "--archive", str(path))
    assert r.returncode == 0, r.stderr
    after = arc.get_debate(debate.id)
    assert [(s.round, s.status != "failed") for s in after.rounds] == [(1, True), (2, True), (3, True)]  # round 3 alone
    assert after.status == "interrupted" and "续跑" in after.stop_reason
    assert [s.text for s in after.rounds] == [s.text for s in reference.rounds[:3]]

    r = cli("resume", debate.id, "--archive", str(path))
    assert r.returncode == 0, r.stderr
    final = arc.get_debate(debate.id)
    assert final.status == "completed" and [s.text for s in final.rounds] == [s.text for s in reference.rounds]

    r = cli("retry", debate.id, "--archive", str(path))
    assert r.returncode == 2 and "completed" in r.stderr and r.stderr.count("\n") == 1


def test_failed_last_round_retry_completes(tmp_path, pack, reference):
    from debate_core.api import master_runner

    arc = open_archive(tmp_path / "a.duckdb")
    config = DebateConfig(topic=TOPIC, masters=["huineng", "yinguang"], pack=str(pack))
    runner = master_runner(config, recorder=arc)
    runner.engine = _FailsAt(runner.engine, 4)
    debate = runner.run(runner.prepare(config))
    assert debate.status == "failed"
    done = runs.retry(arc, debate.id)
    assert done.status == "completed" and len(done.rounds) == 4
    assert arc.get_debate(debate.id).observation == reference.observation


def test_resume_refuses_a_debate_a_live_process_is_running(tmp_path, pack):
    from debate_core.archive import _proc_stat

    arc = open_archive(tmp_path / "a.duckdb")
    d = run_debate(arc, pack, topic=TOPIC)
    sleeper = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"])
    try:
        stat = _proc_stat(sleeper.pid)
        with arc._session(write=True) as con:
            con.execute("UPDATE debates SET status = 'running', writer_pid = ?, writer_start = ? WHERE id = ?",
                        [sleeper.pid, stat[1] if stat else "", d.id])
        assert arc.mark_interrupted() == []
        with pytest.raises(ArchiveError, match=f"running in process {sleeper.pid}"):
            runs.resume(arc, d.id)
    finally:
        sleeper.kill()
        sleeper.wait()
    assert arc.mark_interrupted() == [d.id]


def test_resume_unknown_or_completed(tmp_path, pack):
    path = tmp_path / "a.duckdb"
    arc = open_archive(path)
    d = run_debate(arc, pack)
    r = cli("resume", "nope", "--archive", str(path))
    assert r.returncode == 2 and r.stderr.startswith("error: no debate 'nope'")
    with pytest.raises(ArchiveError, match="already completed"):
        runs.resume(arc, d.id)
