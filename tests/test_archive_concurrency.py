"""One archive, many writers: two real processes write 20 debates each while a third reads.

DuckDB lets one process hold a file for writing.  The archive attaches the file
per operation (one short transaction) and waits for another process's lock with
bounded backoff; these tests prove nothing is lost or duplicated.
"""

from __future__ import annotations

import json
import subprocess
import time
import sys
import threading

import pytest

from debate_core.archive import open_archive
from tests.archive_helpers import REPO, make_pack, run_debate

WRITER = r"""
import json, sys
from debate_core.api import start_debate
from debate_core.archive import open_archive
from debate_core.models import DebateConfig
path, pack, tag = sys.argv[1], sys.argv[2], sys.argv[3]
arc = open_archive(path)
for i in range(20):
    masters = ["huineng", "yinguang"] if i % 2 == 0 else ["huineng", "zhiyi"]
    config = DebateConfig(topic=f"{tag} 第{i}场：顿悟与念佛", masters=masters, pack=pack, rounds=2)
    runner, debate = start_debate(config, arc)
    debate = runner.run(debate)
    print(json.dumps({"id": debate.id, "status": debate.status}), flush=True)
"""

READER = r"""
import json, os, random, sys, time
from debate_core.archive import open_archive
path, stop = sys.argv[1], sys.argv[2]
arc = open_archive(path)
arc.list_debates(limit=1)
open(stop + ".ready", "w").close()  # reading: the writers may start
reads, errors, seen, full = 0, [], 0, 0
deadline = time.time() + 120
while not os.path.exists(stop) and time.time() < deadline:
    try:
        df = arc.list_debates(limit=1000)
        seen = max(seen, len(df))
        if len(df):
            d = arc.get_debate(random.choice(list(df["id"])))
            full += 1
            assert d.topic
        arc.sql("SELECT count(*) FROM speeches")
        reads += 1
    except Exception as exc:
        errors.append(f"{type(exc).__name__}: {exc}")
print(json.dumps({"reads": reads, "full": full, "errors": errors[:5], "max_seen": seen}))
"""


KNOWN_GAP = pytest.mark.xfail(strict=True, reason="issue 22 follow-up: this test predates the argument layer (ammo and coverage from meta.json cross_critique, every offline speech passing every check); to be rewritten on the bank")


@KNOWN_GAP
@pytest.mark.slow
def test_two_writer_processes_and_a_reader(tmp_path):
    pack = make_pack(tmp_path)
    path = tmp_path / "shared.duckdb"
    open_archive(path)  # created once; the writers and the reader share it
    stop = tmp_path / "stop"
    reader = subprocess.Popen([sys.executable, "-c", READER, str(path), str(stop)], cwd=REPO,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    ready = tmp_path / "stop.ready"
    deadline = time.time() + 60
    while not ready.exists():  # the reader is up and reading before any writer starts
        assert reader.poll() is None and time.time() < deadline, reader.communicate()[1]
        time.sleep(0.05)
    writers = [subprocess.Popen([sys.executable, "-c", WRITER, str(path), str(pack), tag], cwd=REPO,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for tag in ("甲批", "乙批")]
    outputs = [w.communicate(timeout=240) for w in writers]
    stop.write_text("done")
    r_out, r_err = reader.communicate(timeout=120)
    for w, (out, err) in zip(writers, outputs):
        assert w.returncode == 0, err
    assert reader.returncode == 0, r_err
    reported = [json.loads(line) for out, _ in outputs for line in out.splitlines()]
    assert len(reported) == 40 and all(r["status"] == "completed" for r in reported)

    arc = open_archive(path)
    df = arc.list_debates(limit=1000)
    assert len(df) == 40 and df["id"].is_unique
    assert set(df["id"]) == {r["id"] for r in reported}
    assert set(df["status"]) == {"completed"}
    topics = sorted(df["topic"])
    assert topics == sorted(f"{tag} 第{i}场：顿悟与念佛" for tag in ("甲批", "乙批") for i in range(20))
    dup = arc.query("SELECT debate_id, round, count(*) AS n FROM speeches GROUP BY ALL HAVING n > 1")
    assert dup.empty
    per = arc.query("SELECT debate_id, count(*) AS n, count(DISTINCT round) AS r FROM speeches GROUP BY ALL")
    assert len(per) == 40 and set(per["n"]) == {2} and set(per["r"]) == {2}
    assert arc.query("SELECT count(*) AS n FROM summaries")["n"][0] == 80
    assert arc.query("SELECT count(*) AS n FROM observations")["n"][0] == 40
    assert arc.query("SELECT count(*) AS n FROM packs")["n"][0] == 1  # one snapshot, not one per process
    assert arc.degraded_pairs()["debates"].tolist() == [20]

    report = json.loads(r_out)
    assert report["errors"] == [], report
    assert report["reads"] >= 5 and report["full"] >= 1


def test_threads_in_one_process_share_the_archive(tmp_path):
    """The app: many sessions on threads, one process."""
    pack = make_pack(tmp_path)
    arc = open_archive(tmp_path / "threads.duckdb")
    errors: list[BaseException] = []
    ids: list[str] = []

    def session(n: int) -> None:
        try:
            for i in range(3):
                ids.append(run_debate(arc, pack, topic=f"线程{n} 第{i}场：顿悟与念佛").id)
                arc.list_debates(limit=5)
        except BaseException as exc:  # noqa: BLE001
            errors.append(exc)

    threads = [threading.Thread(target=session, args=(n,)) for n in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    assert not errors, errors
    df = arc.list_debates()
    assert len(df) == 12 and set(df["id"]) == set(ids) and set(df["status"]) == {"completed"}
    assert arc.query("SELECT count(*) AS n FROM speeches")["n"][0] == 48


def test_lock_wait_is_bounded(tmp_path):
    """A writer that holds the file longer than lock_timeout gets a clear error, not a hang."""
    from debate_core.archive import ArchiveError

    path = tmp_path / "locked.duckdb"
    open_archive(path)
    holder = subprocess.Popen([sys.executable, "-c", (
        "import duckdb, sys, time; c = duckdb.connect(sys.argv[1]); print('held', flush=True); time.sleep(20)"),
        str(path)], stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "held"
        with pytest.raises(ArchiveError, match="stayed locked"):
            open_archive(path, lock_timeout=0.5).list_debates()
    finally:
        holder.kill()
        holder.wait()
    assert open_archive(path, lock_timeout=5).list_debates().empty
