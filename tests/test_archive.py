"""The DuckDB archive: schema, migrations, recording as a debate runs, queries, secrets."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from datetime import datetime, timedelta, timezone
from pathlib import Path

import duckdb
import pytest

from tests.archive_helpers import SAMPLE, SAMPLE_REASON, cli, make_pack, run_debate
from debate_core.archive import (MIGRATIONS, SCHEMA_VERSION, Archive, ArchiveError, open_archive, process_alive,
                                 scrub)
from debate_core.io.exporters import to_json_dict
from debate_core.models import Debate, DebateConfig, LLMCall, Participant, Speech


KNOWN_GAP = pytest.mark.xfail(strict=True, reason="issue 22 follow-up: this test predates the argument layer (ammo and coverage from meta.json cross_critique, every offline speech passing every check); to be rewritten on the bank")


@pytest.fixture(scope="module")
def pack(tmp_path_factory) -> Path:
    return make_pack(tmp_path_factory.mktemp("pack"))


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


# ------------------------------------------------------------------ opening


def test_open_creates_file_folder_and_schema(tmp_path, monkeypatch):
    target = tmp_path / "deep" / "er" / "arc.duckdb"
    monkeypatch.setenv("DEBATE_ARCHIVE", str(target))
    arc = open_archive()
    assert arc.path == target.resolve() and target.is_file()
    assert arc.schema_version() == SCHEMA_VERSION
    tables = set(arc.query("SELECT table_name FROM information_schema.tables")["table_name"])
    assert {"debates", "speeches", "summaries", "verdicts", "verdict_rows", "verdict_rounds", "observations",
            "llm_calls", "packs", "pack_masters", "pack_sources", "pack_critiques", "findings"} <= tables
    # an explicit path wins over the environment
    other = open_archive(tmp_path / "other.duckdb")
    assert other.path.name == "other.duckdb"


def test_default_path_is_data_archive_in_repo(monkeypatch):
    from debate_core.archive import DEFAULT_ARCHIVE, REPO_ROOT, default_archive_path

    monkeypatch.delenv("DEBATE_ARCHIVE", raising=False)
    assert default_archive_path() == DEFAULT_ARCHIVE == REPO_ROOT / "data" / "archive.duckdb"


def test_older_archive_is_migrated_and_keeps_its_rows(tmp_path):
    path = tmp_path / "v1.duckdb"
    con = duckdb.connect(str(path))
    number, _, statements = MIGRATIONS[0]
    for sql in statements:
        con.execute(sql)
    con.execute("INSERT INTO meta VALUES ('schema_version', ?)", [str(number)])
    con.execute("INSERT INTO debates (id, protocol, topic, status, config, created_at, updated_at) VALUES "
                "('old1', 'master', '旧议题', 'completed', '{\"topic\": \"旧议题\"}', now(), now())")
    con.execute("INSERT INTO debates (id, protocol, topic, status, config, created_at, updated_at) VALUES "
                "('old2', 'topic', 'Is free will real?', 'completed', '{\"topic\": \"Is free will real?\"}', "
                "now(), now())")
    for r in (1, 2):
        con.execute("INSERT INTO speeches (debate_id, round, ord, speaker, role, text, findings, status) VALUES "
                    "('old1', ?, ?, ?, '立论', ?, '[]', 'ok')", [r, r - 1, f"s{r}", f"旧发言第{r}轮，言及止观双运"])
    con.close()
    arc = open_archive(path)
    assert arc.schema_version() == SCHEMA_VERSION == MIGRATIONS[-1][0]  # every migration applied, in order
    cols = set(arc.query("SELECT column_name FROM information_schema.columns WHERE table_name = 'debates'")
               ["column_name"])
    assert {"pack_hash", "pack_path", "lang", "group_id"} <= cols
    d = arc.get_debate("old1")
    assert d.topic == "旧议题" and d.status == "completed" and [s.round for s in d.rounds] == [1, 2]
    # v6: each stored debate's language: before languages every debate spoke Chinese, whatever its topic
    assert d.lang == "zh" and arc.get_debate("old2").lang == "zh"
    assert list(arc.list_debates(lang="en")["id"]) == []
    assert sorted(arc.list_debates(lang="zh")["id"]) == ["old1", "old2"]
    assert arc.count_debates(lang="en") == 0 and arc.count_debates(lang="zh") == 2
    # the old speeches were numbered in order; a new one continues after them
    d.rounds.append(Speech(round=3, speaker="s1", role="回应", text="新发言"))
    arc.speech(d, d.rounds[-1])
    snos = list(arc.query("SELECT sno FROM speeches ORDER BY round")["sno"])
    assert snos[:2] == [0, 1] and snos[2] > 1
    tables = set(arc.query("SELECT table_name FROM information_schema.tables")["table_name"])
    assert {"search_runs", "audits", "audit_judgments", "audit_calls"} <= tables and "search_blocks" not in tables
    # v7: per-judge judgments, published leaderboards, display names; an old debate has no judgments
    assert {"judgments", "leaderboards", "model_names"} <= tables and d.judgments == [] and d.group == ""
    # v8: cached input tokens per call and per debate
    calls = set(arc.query("SELECT column_name FROM information_schema.columns WHERE table_name = 'llm_calls'")
                ["column_name"])
    assert "cached_tokens" in calls and "cached_tokens" in cols
    # v10: a verdict's completeness; verdicts stored before were never checked (NULL, not complete)
    vcols = set(arc.query("SELECT column_name FROM information_schema.columns WHERE table_name = 'verdicts'")
                ["column_name"])
    assert {"complete", "missing"} <= vcols
    assert arc.search_speeches("止观双运") == ["old1"]
    assert list(arc.list_debates(text="止观双运")["id"]) == ["old1"]


def test_newer_archive_is_refused_and_untouched(tmp_path):
    path = tmp_path / "new.duckdb"
    open_archive(path)
    con = duckdb.connect(str(path))
    con.execute("UPDATE meta SET value = '99' WHERE key = 'schema_version'")
    con.close()
    before = _digest(path)
    with pytest.raises(ArchiveError, match="newer than this workbench"):
        open_archive(path)
    assert _digest(path) == before


@pytest.mark.parametrize("kind", ["garbage", "truncated", "foreign"])
def test_corrupt_or_foreign_file_is_refused_and_untouched(tmp_path, kind):
    path = tmp_path / f"{kind}.duckdb"
    if kind == "garbage":
        path.write_bytes(b"this is not a database\n" * 100)
    elif kind == "truncated":
        good = tmp_path / "good.duckdb"
        open_archive(good)
        path.write_bytes(good.read_bytes()[:5000])
    else:
        con = duckdb.connect(str(path))
        con.execute("CREATE TABLE something_else (x INTEGER)")
        con.close()
    before = _digest(path)
    with pytest.raises(ArchiveError) as info:
        open_archive(path)
    assert "untouched" in str(info.value) and "\n" not in str(info.value)
    assert _digest(path) == before
    assert not Path(str(path) + ".wal").exists()


def test_cli_reports_a_corrupt_archive_in_one_line(tmp_path):
    path = tmp_path / "bad.duckdb"
    path.write_bytes(b"\x00" * 4096)
    r = cli("list", "--archive", str(path))
    assert r.returncode == 2
    assert r.stderr.startswith("error: ") and r.stderr.count("\n") == 1, r.stderr


# --------------------------------------------------------- recording live


class _Watching:
    """Wraps the offline engine: at the start of every round it checks, in the
    archive file, that every earlier round is already committed."""

    def __init__(self, inner, path: Path):
        self.inner, self.path, self.name = inner, path, inner.name
        self.seen: list[tuple[int, int]] = []

    def speech(self, req, on_token=None):
        stored = open_archive(self.path).query(
            "SELECT count(*) AS n FROM speeches s JOIN summaries m USING (debate_id, round) "
            "WHERE s.status <> 'failed'")["n"][0]
        self.seen.append((req.round, int(stored)))
        return self.inner.speech(req, on_token)

    def summarize(self, req):
        return self.inner.summarize(req)

    def observe(self, req):
        return self.inner.observe(req)


def test_each_speech_is_committed_before_the_next_round(tmp_path, pack):
    from debate_core.api import master_runner

    arc = open_archive(tmp_path / "a.duckdb")
    config = DebateConfig(topic="顿悟与念佛", masters=["huineng", "yinguang"], pack=str(pack))
    runner = master_runner(config, recorder=arc)
    runner.engine = watcher = _Watching(runner.engine, arc.path)
    debate = runner.run(runner.prepare(config))
    assert debate.status == "completed"
    # retries of a flagged speech call speech() again for the same round; first calls matter
    first = {}
    for r, n in watcher.seen:
        first.setdefault(r, n)
    assert first == {1: 0, 2: 1, 3: 2, 4: 3}
    stored = arc.get_debate(debate.id)
    assert stored.status == "completed" and len(stored.rounds) == 4 and stored.observation is not None


@KNOWN_GAP
def test_stored_debate_equals_the_one_in_memory(tmp_path, pack):
    arc = open_archive(tmp_path / "a.duckdb")
    debate = run_debate(arc, pack)
    assert to_json_dict(arc.get_debate(debate.id)) == to_json_dict(debate)
    row = arc.query("SELECT * FROM debates WHERE id = ?", [debate.id]).iloc[0]
    assert row["pack_name"] == "test-pack" and row["pack_version"] == "0.1.0"
    assert list(row["labels"]) == ["huineng", "yinguang"] and list(row["models"]) == ["offline"]
    assert row["rounds_done"] == 4 and row["status"] == "completed" and row["writer_pid"] == os.getpid()
    assert json.loads(row["config"])["pack"] == str(pack)
    sp = arc.query("SELECT round, speaker, role, citations, findings, status FROM speeches WHERE debate_id = ? "
                   "ORDER BY round", [debate.id])
    assert list(sp["round"]) == [1, 2, 3, 4] and list(sp["role"]) == ["立论", "反驳", "回应", "综合"]
    assert all(len(c) >= 1 for c in sp["citations"])
    assert all(isinstance(json.loads(f), list) for f in sp["findings"])
    # the pack snapshot is there, once, however many debates use the pack
    run_debate(arc, pack, topic="念佛的信愿行")
    assert arc.query("SELECT count(*) AS n FROM packs")["n"][0] == 1
    assert arc.query("SELECT count(*) AS n FROM pack_critiques")["n"][0] == 3


def test_get_debate_unknown_id_raises_keyerror(tmp_path):
    arc = open_archive(tmp_path / "a.duckdb")
    with pytest.raises(KeyError, match="no debate 'nope'"):
        arc.get_debate("nope")


# ------------------------------------------------------------- interrupted


def _dead_pid() -> int:
    p = subprocess.Popen([sys.executable, "-c", "pass"])
    p.wait()
    return p.pid


def _running(arc: Archive, debate_id: str, **cols) -> None:
    d = Debate(id=debate_id, protocol="master", topic="悬而未决", config=DebateConfig(topic="悬而未决"))
    arc.start(d)
    sets = ", ".join(f"{k} = ?" for k in cols)
    arc_con_update = f"UPDATE debates SET {sets} WHERE id = ?"
    with arc._session(write=True) as con:
        con.execute(arc_con_update, list(cols.values()) + [debate_id])


def test_mark_interrupted_flips_only_debates_whose_writer_is_gone(tmp_path):
    import socket

    from debate_core.archive import writer_identity

    arc = open_archive(tmp_path / "a.duckdb")
    pid, host, start = writer_identity()
    now = datetime.now(timezone.utc).replace(tzinfo=None)
    _running(arc, "alive", writer_pid=pid, writer_host=host, writer_start=start)
    _running(arc, "dead", writer_pid=_dead_pid(), writer_host=socket.gethostname(), writer_start="1")
    _running(arc, "reused", writer_pid=pid, writer_host=host, writer_start="12345")  # pid reused by us
    _running(arc, "far-stale", writer_pid=1, writer_host="elsewhere", heartbeat_at=now - timedelta(hours=3))
    _running(arc, "far-fresh", writer_pid=1, writer_host="elsewhere", heartbeat_at=now - timedelta(minutes=1))
    flipped = arc.mark_interrupted()
    assert sorted(flipped) == ["dead", "far-stale", "reused"]
    status = dict(arc.query("SELECT id, status FROM debates").values.tolist())
    assert status == {"alive": "running", "dead": "interrupted", "reused": "interrupted",
                      "far-stale": "interrupted", "far-fresh": "running"}
    assert "在第 1 轮中途停止" in arc.get_debate("dead").stop_reason
    assert arc.mark_interrupted() == []  # idempotent


def test_process_alive():
    from debate_core.archive import writer_identity

    pid, _, start = writer_identity()
    assert process_alive(pid, start)
    assert not process_alive(_dead_pid())
    assert not process_alive(None) and not process_alive(0)


def test_set_status(tmp_path, pack):
    arc = open_archive(tmp_path / "a.duckdb")
    d = run_debate(arc, pack)
    arc.set_status(d.id, "stopped", "by hand")
    got = arc.get_debate(d.id)
    assert (got.status, got.stop_reason) == ("stopped", "by hand")
    with pytest.raises(ArchiveError):
        arc.set_status(d.id, "bogus", "")
    with pytest.raises(KeyError):
        arc.set_status("missing", "stopped", "")


# -------------------------------------------------------------------- list


def test_list_debates_filters(tmp_path, pack):
    arc = open_archive(tmp_path / "a.duckdb")
    a = run_debate(arc, pack, topic="顿悟与念佛，哪一个更适合初学者？")
    b = run_debate(arc, pack, topic="止观次第与顿悟", masters=("huineng", "zhiyi"))
    c = run_debate(arc, pack, topic="信愿持名的意义", masters=("yinguang", "huineng"))
    arc.set_status(c.id, "failed", "round 3 failed: test")
    df = arc.list_debates()
    assert set(df["id"]) == {a.id, b.id, c.id}
    for col in ("id", "protocol", "topic", "status", "participants", "models", "created_at", "rounds",
                "prompt_tokens", "completion_tokens", "cost", "warnings"):
        assert col in df.columns
    assert set(arc.list_debates(master="zhiyi")["id"]) == {b.id}
    assert set(arc.list_debates(master="智顗大师")["id"]) == {b.id}
    assert set(arc.list_debates(status="failed")["id"]) == {c.id}
    assert set(arc.list_debates(model="offline")["id"]) == {a.id, b.id, c.id}
    assert arc.list_debates(model="gpt-x").empty
    assert set(arc.list_debates(protocol="master", master="yinguang")["id"]) == {a.id, c.id}
    assert set(arc.list_debates(text="止观次第")["id"]) == {b.id}  # topic
    phrase = next(s.text for s in a.rounds if s.round == 2)[:12]
    assert a.id in set(arc.list_debates(text=phrase)["id"])  # speech text
    today = datetime.now(timezone.utc).date()
    assert len(arc.list_debates(date_from=today, date_to=today)) == 3
    assert arc.list_debates(date_to=today - timedelta(days=1)).empty
    assert arc.list_debates(date_from=str(today + timedelta(days=1))).empty
    assert len(arc.list_debates(limit=2)) == 2
    row = arc.list_debates(master="zhiyi").iloc[0]
    assert list(row["participants"]) == ["慧能大师", "智顗大师"] and row["rounds"] == 4
    assert any(w.startswith("⚠️") for w in row["warnings"])


def test_list_cli_json(tmp_path, pack):
    path = tmp_path / "a.duckdb"
    d = run_debate(open_archive(path), pack)
    r = cli("list", "--format", "json", "--archive", str(path))
    assert r.returncode == 0, r.stderr
    rows = json.loads(r.stdout)
    assert isinstance(rows, list) and len(rows) == 1
    assert {"id", "protocol", "topic", "status", "created_at"} <= set(rows[0])
    assert rows[0]["id"] == d.id and rows[0]["status"] == "completed"
    datetime.fromisoformat(rows[0]["created_at"].replace("Z", "+00:00"))


# -------------------------------------------------------------- analytics


def _debate_with_calls(debate_id: str, model: str, tokens: tuple[int, int], cost: float, error: str = "") -> Debate:
    calls = [LLMCall(purpose="speech", model=model, round=r, speaker="a", prompt_tokens=tokens[0],
                     completion_tokens=tokens[1], cost=cost, latency_ms=10.0, error=error if r == 2 else "")
             for r in (1, 2)]
    return Debate(id=debate_id, protocol="topic", topic="测试", status="completed",
                  participants=[Participant(label="辩手甲", stance="甲方", model=model),
                                Participant(label="辩手乙", stance="乙方", model=model)],
                  models=[model], config=DebateConfig(protocol="topic", topic="测试"), llm_calls=calls,
                  rounds=[Speech(round=r, speaker="辩手甲", role="立论", text="x", engine=model) for r in (1, 2)])


def test_tokens_by_model_and_other_aggregates(tmp_path, pack):
    arc = open_archive(tmp_path / "a.duckdb")
    arc.save(_debate_with_calls("t1", "openai/gpt-4o-mini", (100, 50), 0.01))
    arc.save(_debate_with_calls("t2", "openai/gpt-4o-mini", (10, 5), 0.001, error="timeout"))
    arc.save(_debate_with_calls("t3", "anthropic/claude", (1000, 500), 0.5))
    run_debate(arc, pack, masters=("huineng", "zhiyi"))
    df = arc.tokens_by_model().set_index("model")
    assert df.loc["openai/gpt-4o-mini", "calls"] == 4
    assert df.loc["openai/gpt-4o-mini", "prompt_tokens"] == 220
    assert df.loc["openai/gpt-4o-mini", "completion_tokens"] == 110
    assert df.loc["openai/gpt-4o-mini", "errors"] == 1
    assert df.loc["anthropic/claude", "cost"] == pytest.approx(1.0)
    assert df.loc["offline", "debates"] == 1  # no call ledger: counted from its speeches
    listed = arc.list_debates().set_index("id")
    assert listed.loc["t1", "prompt_tokens"] == 200 and listed.loc["t3", "cost"] == pytest.approx(1.0)
    fails = arc.check_failures()
    assert {"rule", "speaker", "count"} <= set(fails.columns) and fails["count"].sum() >= 1
    over = arc.debates_over_time()
    assert over["debates"].sum() == 4
    rpd = arc.rounds_per_debate().set_index("id")
    assert rpd.loc["t1", "rounds"] == 2


@pytest.mark.skipif(not SAMPLE.is_dir(), reason=SAMPLE_REASON)
def test_winners_from_the_imported_sample(tmp_path):
    from debate_core.io.importers import import_paths

    arc = open_archive(tmp_path / "a.duckdb")
    import_paths(arc, [SAMPLE])
    w = arc.winners()
    assert len(w) == 1
    row = w.iloc[0]
    assert row["winner"] == "辩手乙" and row["stance"] == "不缺爱的人更懂得如何爱人" and row["score"] == 8.0


# ----------------------------------------------------------------- coverage


def test_coverage_of_a_pack(pack):
    from debate_core.api import get_pack
    from debate_core.content.coverage import coverage_gaps, coverage_matrix

    p = get_pack(pack)
    m = coverage_matrix(p)
    assert list(m.index) == list(m.columns) == ["huineng", "yinguang", "zhiyi"]
    assert m.loc["huineng", "yinguang"] == 1 and m.loc["zhiyi", "huineng"] == 1 and m.loc["huineng", "zhiyi"] == 0
    g = coverage_gaps(p)
    assert [b["pair"] for b in g["both_ways"]] == ["huineng-vs-yinguang"]
    assert [o["entry"] for o in g["one_way"]] == ["zhiyi->huineng"]
    canon = {c["pair"]: c for c in g["canonical"]}
    assert canon["huineng-vs-yinguang"]["status"] == "complete"
    assert canon["huineng-vs-zhiyi"]["status"] == "one-way"
    assert canon["huineng-vs-zhiyi"]["lacking"] == ["huineng->zhiyi"]
    assert canon["kumarajiva-vs-xuanzang"]["status"] == "missing" and not canon["kumarajiva-vs-xuanzang"]["in_pack"]
    assert "kumarajiva-vs-xuanzang" in g["missing_pairs"]
    assert {"pair": "huineng-vs-zhiyi", "lacking": ["huineng->zhiyi"]} in g["lacking_direction"]
    assert g["receives_none"] == ["zhiyi"] and g["no_critique"] == []


from tests.conftest import REFERENCE_PACK, reference_present  # noqa: E402


@pytest.mark.skipif(not reference_present(), reason="upstream pack absent or hidden by DEBATE_NO_REFERENCE: the "
                    "counts are the upstream pack's; test_coverage_of_the_fixture_pack runs on the fixture")
def test_coverage_of_the_reference_pack():
    from debate_core.api import get_pack
    from debate_core.content.coverage import coverage_gaps, coverage_matrix

    p = get_pack(REFERENCE_PACK)
    m = coverage_matrix(p)
    assert m.shape == (15, 15) and int(m.values.sum()) == 26
    g = coverage_gaps(p)
    assert len(g["both_ways"]) == 8 and len(g["one_way"]) == 10
    assert all(c["status"] == "complete" for c in g["canonical"])


def test_coverage_of_the_fixture_pack():
    """The same views on the project's own Master-skill pack (the twin of test_coverage_of_the_reference_pack):
    the eight seed pairs complete, six one-way entries, four masters no one critiques."""
    from debate_core.api import get_pack
    from debate_core.content.coverage import coverage_gaps, coverage_matrix
    from tests.conftest import SKILL_FIXTURE

    p = get_pack(SKILL_FIXTURE)
    m = coverage_matrix(p)
    assert m.shape == (15, 15) and int(m.values.sum()) == 22 and int(m.loc["huineng", "xuanzang"]) == 1
    assert int(m.loc["xuanzang", "huineng"]) == 0
    g = coverage_gaps(p)
    assert [b["pair"] for b in g["both_ways"]] == [
        "ajahn-chah-vs-mahasi-sayadaw", "atisha-vs-huineng", "huineng-vs-tsongkhapa", "huineng-vs-yinguang",
        "huineng-vs-zhiyi", "kumarajiva-vs-xuanzang", "ouyi-vs-tsongkhapa", "ouyi-vs-yinguang"]
    assert [o["entry"] for o in g["one_way"]] == ["buddhaghosa->kumarajiva", "fazang->xuanzang", "huineng->xuanzang",
                                                  "milarepa->tsongkhapa", "nagarjuna->buddhaghosa", "xuyun->yinguang"]
    assert len(g["canonical"]) == 8
    assert all((c["status"], c["in_pack"]) == ("complete", True) for c in g["canonical"])
    assert g["missing_pairs"] == [] and g["lacking_direction"] == []
    assert g["no_critique"] == [] and g["unknown_targets"] == []
    assert g["receives_none"] == ["fazang", "milarepa", "nagarjuna", "xuyun"]


@KNOWN_GAP
def test_degraded_pairs_and_snapshot_matrix(tmp_path, pack):
    from debate_core.api import get_pack
    from debate_core.content.coverage import coverage_matrix

    arc = open_archive(tmp_path / "a.duckdb")
    d1 = run_debate(arc, pack, topic="止观与顿悟", masters=("huineng", "zhiyi"))
    run_debate(arc, pack, topic="次第与顿门", masters=("zhiyi", "huineng"))
    run_debate(arc, pack)
    deg = arc.degraded_pairs()
    assert deg[["pair", "debates"]].values.tolist() == [["huineng-vs-zhiyi", 2]]
    matrix, gaps = arc.coverage_snapshot(debate_id=d1.id)
    assert matrix.equals(coverage_matrix(get_pack(pack)).sort_index().sort_index(axis=1))
    assert gaps["pack"]["name"] == "test-pack" and [o["entry"] for o in gaps["one_way"]] == ["zhiyi->huineng"]
    # coverage in SQL
    df = arc.sql("SELECT critic, target, critiques FROM pack_coverage ORDER BY critic, target")
    assert df.values.tolist() == [["huineng", "yinguang", 1], ["yinguang", "huineng", 1], ["zhiyi", "huineng", 1]]


def test_coverage_cli(tmp_path, pack):
    path = tmp_path / "a.duckdb"
    d = run_debate(open_archive(path), pack, topic="止观与顿悟", masters=("huineng", "zhiyi"))
    r = cli("coverage", "--pack", str(pack), "--format", "json", "--archive", str(path))
    assert r.returncode == 0, r.stderr
    data = json.loads(r.stdout)
    assert data["matrix"]["zhiyi"]["huineng"] == 1 and data["matrix"]["huineng"]["zhiyi"] == 0
    assert data["degraded_pairs"][0]["pair"] == "huineng-vs-zhiyi" and data["degraded_pairs"][0]["debates"] == 1
    assert data["gaps"]["one_way"][0]["entry"] == "zhiyi->huineng"
    r = cli("coverage", "--debate", d.id, "--archive", str(path))
    assert r.returncode == 0 and "huineng-vs-zhiyi" in r.stdout and "one-way" in r.stdout


# ------------------------------------------------------------------ secrets


def test_no_api_key_is_stored(tmp_path, monkeypatch):
    key = "sk-proj-" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4"
    env_key = "zz-custom-secret-value-123456"
    monkeypatch.setenv("OPENAI_API_KEY", key)
    monkeypatch.setenv("SOMEVENDOR_API_KEY", env_key)
    arc = open_archive(tmp_path / "a.duckdb")
    d = _debate_with_calls("k1", "openai/gpt-4o-mini", (1, 1), 0.0,
                           error=f"AuthenticationError: Incorrect API key provided: {key}")
    d.llm_calls[0].messages = [{"role": "system", "content": f"use api_key={env_key} and Bearer {key}"}]
    d.llm_calls[0].response = f"my key is {key}"
    d.config.api_base = f"http://localhost:9/v1?api_key={env_key}"
    d.rounds[0].text = f"leaked {env_key}"
    arc.save(d)
    arc.call(d, LLMCall(purpose="judge", model="m", error=f"bad key {key}"))
    dump = json.dumps(to_json_dict(arc.get_debate("k1")), ensure_ascii=False)
    for t in ("debates", "speeches", "llm_calls"):
        dump += arc.query(f"SELECT * FROM {t}").to_json(force_ascii=False)
    assert key not in dump and env_key not in dump
    assert "[redacted]" in dump
    arc.checkpoint()
    wal = arc.path.with_name(arc.path.name + ".wal")
    assert not wal.exists() or wal.stat().st_size == 0
    raw = arc.path.read_bytes() + (wal.read_bytes() if wal.exists() else b"")
    assert key.encode() not in raw and env_key.encode() not in raw
    assert scrub("no secrets here: T48n2008 六祖坛经") == "no secrets here: T48n2008 六祖坛经"


# ------------------------------------------------------------- text search


def _search_debates(n: int, prefix: str = "d") -> list[Debate]:
    words = ["止观", "念佛", "顿悟", "Remote Work", "50%_off", "a.b*c", "自性清净", "Ünïcode", "Kelvin \u212a", "long \u017ft"]
    debates = []
    for i in range(n):
        rounds = [Speech(round=r, speaker="甲" if r % 2 else "乙", role="立论",
                         text=f"第{i}场第{r}轮：{words[(i + r) % len(words)]}，以及{words[(i * r) % len(words)]}。")
                  for r in range(1, 5)]
        debates.append(Debate(id=f"{prefix}{i:02d}", protocol="topic", topic=f"题目{i}", config=DebateConfig(
            protocol="topic", topic=f"题目{i}"), rounds=rounds))
    return debates


NEEDLES = ["止观", "自性清净", "remote work", "REMOTE", "50%_off", "%_", "a.b*c", "第3场第2轮", "不存在的词",
           "清净。", "Ünïcode", "ünï", "kelvin k", "LONG ST", "第1", "观"]


def test_text_search_index_agrees_with_a_plain_scan(tmp_path, monkeypatch):
    import debate_core.archive.text_index as ti

    monkeypatch.setattr(ti, "GROUP", 4)  # many small groups, runs and merges
    monkeypatch.setattr(ti, "RUN_MIN", 8)
    monkeypatch.setattr(ti, "CHUNK", 12)
    monkeypatch.setattr(ti, "SCAN_FRACTION", 1.0)  # always go through the index
    monkeypatch.setattr(ti, "VECTOR", 4)  # rowid spans cut every 4 rows, and verified 2 ranges a query
    monkeypatch.setattr(ti, "RANGES_PER_QUERY", 2)
    arc = open_archive(tmp_path / "a.duckdb")
    debates = _search_debates(40)
    arc.save_many(debates)  # a bulk write indexes what it added (RUN_MIN speeches or more)
    assert arc.refresh_search_index() == 0
    assert arc.search_index_status()["covered_to"] == 160  # snos 1..160: whole groups below 160
    with arc._session() as con:
        runs = ti.runs(con)
        assert ti.covered_to(con) == 160 and ti.backlog(con) == 1
        n_post = con.execute(" UNION ALL ".join(f"SELECT count(*) FROM search_run_{r[0]}" for r in runs)).fetchall()
    assert sum(r[4] for r in runs) == sum(n[0] for n in n_post) > 0

    def brute(needle: str, pool: list[Debate]) -> set[str]:
        low = needle.lower()
        return {d.id for d in pool if any(low in s.text.lower().replace("\u212a", "k").replace("\u017f", "s")
                                          for s in d.rounds)}

    for needle in NEEDLES:
        expected = brute(needle, debates)
        assert set(arc.search_speeches(needle)) == expected, needle
        if ti.indexable(needle) and expected:
            with arc._session() as con:  # the index alone never misses a group that matches
                groups = set(ti.candidate_groups(con, ti.needle_grams(needle)))
                hit = {r[0] // ti.GROUP for r in con.execute(
                    "SELECT sno FROM speeches WHERE sno < 160 AND regexp_matches(text, ?)",
                    [ti.pattern(needle)]).fetchall()}
            assert hit <= groups, needle
        assert set(arc.list_debates(text=needle, limit=1000)["id"]) == expected | {
            d.id for d in debates if needle.lower() in d.topic.lower()}, needle

    # appends after the index was built are found at once (the uncovered tail is scanned), and a
    # search extends the index once RUN_MIN speeches wait; runs merge FANOUT at a time
    late = _search_debates(12, prefix="late")
    for d in late:
        d.rounds.append(Speech(round=5, speaker="甲", role="综合", text=f"新来的一句话：无明{d.id}"))
    arc.save(late[0])
    with arc._session() as con:
        before = len(ti.runs(con))
    assert arc.search_speeches("无明") == ["late00"]
    for d in late[1:]:
        arc.save(d)
    assert set(arc.search_speeches("无明")) == {d.id for d in late}
    with arc._session() as con:
        assert ti.backlog(con) < ti.RUN_MIN + ti.GROUP and ti.covered_to(con) > 160
        levels = [r[1] for r in ti.runs(con)]
    # merged FANOUT at a time: fewer than FANOUT runs on any level, so few runs in all
    assert all(levels.count(lv) < ti.FANOUT for lv in set(levels)) and max(levels) >= 1
    assert len(levels) <= (ti.FANOUT - 1) * (max(levels) + 1) and len(levels) >= 1 <= before
    # a re-run round replaces its speech: the old words are no longer found, the new ones are
    redo = arc.get_debate("d05")
    redo.rounds[0] = Speech(round=1, speaker="甲", role="立论", text="改写后的发言：般若")
    arc.save(redo)
    everything = debates[:5] + [redo] + debates[6:] + late
    for needle in NEEDLES + ["般若", "无明late03"]:
        assert set(arc.search_speeches(needle)) == brute(needle, everything), needle
    # a full rebuild answers the same
    arc.refresh_search_index(full=True)
    for needle in NEEDLES + ["般若"]:
        assert set(arc.search_speeches(needle)) == brute(needle, everything), needle


@pytest.mark.parametrize("scan_fraction", [0.0, 1.0])
def test_text_list_returns_the_newest_matches_in_order(tmp_path, monkeypatch, scan_fraction):
    """The list with ``text`` is the newest ``limit`` debates matching in topic or speech, whether
    the index answers (scan_fraction 1.0) or debates are checked newest first (0.0)."""
    import debate_core.archive.text_index as ti
    from datetime import datetime, timedelta

    monkeypatch.setattr(ti, "GROUP", 4)
    monkeypatch.setattr(ti, "RUN_MIN", 8)
    monkeypatch.setattr(ti, "SCAN_FRACTION", scan_fraction)
    monkeypatch.setattr(ti, "FIRST_CHUNK", 2)  # chunks of 2, 4, 8, ... debates
    monkeypatch.setattr(ti, "VECTOR", 4)
    monkeypatch.setattr(ti, "RANGES_PER_QUERY", 3)
    arc = open_archive(tmp_path / "a.duckdb")
    debates = _search_debates(60)
    base = datetime(2026, 1, 1)
    for i, d in enumerate(debates):
        d.created_at = base + timedelta(hours=(i * 37) % 60)  # stored order differs from time order
        d.protocol = d.config.protocol = "topic" if i % 3 else "master"
    debates[7].topic = "止观之辩"  # matches by topic alone
    arc.save_many(debates)
    arc.refresh_search_index()
    newest = sorted(debates, key=lambda d: (-d.created_at.timestamp(), d.id))
    for needle, limit, proto in [("止观", 5, None), ("止观", 1000, None), ("第", 7, None), ("观", 9, "topic"),
                                 ("Ünïcode", 3, None), ("不存在", 5, None), ("第1", 0, None)]:
        want = [d.id for d in newest if (proto is None or d.protocol == proto)
                and (needle.lower() in d.topic.lower() or any(needle.lower() in s.text.lower() for s in d.rounds))]
        got = list(arc.list_debates(text=needle, limit=limit, protocol=proto)["id"])
        assert got == want[:limit], (needle, limit, proto)


def test_reindex_command_covers_every_whole_group_and_rebuilds(tmp_path):
    path = tmp_path / "a.duckdb"
    arc = open_archive(path)
    arc.save_many(_search_debates(25))  # 100 speeches: fewer than RUN_MIN, so nothing is indexed yet
    assert arc.search_index_status()["covered_to"] == 0
    out = cli("reindex", "--archive", str(path), "--format", "json")
    assert out.returncode == 0, out.stderr
    status = json.loads(out.stdout)
    assert status["indexed"] == 96 and status["covered_to"] == 96 and status["waiting"] == 5  # snos 1..100
    assert status["runs"] == 1 and status["postings"] > 0
    again = cli("reindex", "--archive", str(path), "--full")
    assert again.returncode == 0 and "indexed 96 speeches" in again.stdout, again.stdout + again.stderr
    assert arc.search_speeches("自性清净") == sorted(
        d.id for d in _search_debates(25) if any("自性清净" in s.text for s in d.rounds))
    missing = cli("reindex", "--archive", str(tmp_path / "none.duckdb"))
    assert missing.returncode == 2 and missing.stderr.startswith("error: ") and "does not exist" in missing.stderr
    assert not (tmp_path / "none.duckdb").exists()


def test_list_on_a_missing_archive_is_empty_and_creates_nothing(tmp_path):
    path = tmp_path / "nowhere" / "a.duckdb"
    r = cli("list", "--archive", str(path), "--format", "json")
    assert r.returncode == 0 and json.loads(r.stdout) == [], r.stderr
    r = cli("list", "--archive", str(path))
    assert r.returncode == 0 and "no archive there yet" in r.stdout
    assert not path.exists() and not path.parent.exists()


# ------------------------------------------------------ checkpoint on completion


def _copy_file_alone(arc: Archive, dest: Path) -> Archive:
    """Copy the .duckdb without its .wal (what a user copying "the archive file" does)."""
    import shutil

    dest.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(arc.path, dest)
    assert not dest.with_name(dest.name + ".wal").exists()
    return Archive(dest, create=False)


def test_a_finished_debate_is_in_the_duckdb_file_alone(tmp_path, pack):
    arc = Archive(tmp_path / "a.duckdb")
    first = run_debate(arc, pack)
    assert first.status == "completed"
    # a second debate left running: its rows may still sit in the write-ahead log
    from debate_core.api import start_debate

    _runner, running = start_debate(DebateConfig(topic="止观与念佛", masters=["zhiyi", "yinguang"], pack=str(pack)), arc)
    copy = _copy_file_alone(arc, tmp_path / "copy" / "a.duckdb")
    got = copy.get_debate(first.id)
    assert got.status == "completed" and got.observation is not None
    assert len(got.rounds) == len(first.rounds) and [s.text for s in got.rounds] == [s.text for s in first.rounds]
    assert len(got.llm_calls) == len(first.llm_calls)


def test_a_status_set_to_finished_is_checkpointed_too(tmp_path, pack):
    arc = Archive(tmp_path / "b.duckdb")
    from debate_core.api import start_debate

    _runner, d = start_debate(DebateConfig(topic="止观与念佛", masters=["zhiyi", "yinguang"], pack=str(pack)), arc)
    arc.set_status(d.id, "failed", "gave up")
    copy = _copy_file_alone(arc, tmp_path / "copy" / "b.duckdb")
    row = copy.query(f"SELECT status, stop_reason FROM debates WHERE id = '{d.id}'")
    assert list(row["status"]) == ["failed"] and list(row["stop_reason"]) == ["gave up"]


def test_cli_debate_then_copy_the_file_alone(tmp_path, pack):
    path = tmp_path / "c.duckdb"
    r = cli("debate", "禅净之争", "--masters", "huineng,yinguang", "--pack", str(pack), "--archive", str(path),
            "--quiet", "--format", "json")
    assert r.returncode == 0, r.stderr
    debate_id = json.loads(r.stdout)["id"]
    copy = _copy_file_alone(Archive(path, create=False), tmp_path / "copy" / "c.duckdb")
    assert copy.get_debate(debate_id).status == "completed"


def test_list_finds_a_master_by_a_common_name(tmp_path, pack):
    arc = Archive(tmp_path / "l.duckdb")
    d = run_debate(arc, pack)  # huineng vs yinguang
    other = run_debate(arc, pack, topic="止观与念佛", masters=("zhiyi", "yinguang"))
    for name, expected in (("六祖", {d.id}), ("印光老法师", {d.id, other.id}), ("智者大师", {other.id})):
        r = cli("list", "--master", name, "--format", "json", "--archive", str(arc.path))
        assert r.returncode == 0, r.stderr
        assert {row["id"] for row in json.loads(r.stdout)} == expected, name
