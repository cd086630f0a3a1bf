"""`sql QUERY`: strictly read-only SQL over the archive, one clear line when refused."""

from __future__ import annotations

import hashlib
import json
import threading
import time

import pytest

from debate_core.archive import SqlRefused, check_readonly_sql, open_archive, run_readonly_sql
from tests.archive_helpers import cli, make_pack, run_debate


@pytest.fixture(scope="module")
def archive(tmp_path_factory):
    root = tmp_path_factory.mktemp("sql")
    arc = open_archive(root / "a.duckdb")
    run_debate(arc, make_pack(root))
    return arc


def _digest(arc) -> str:
    return hashlib.sha256(arc.path.read_bytes()).hexdigest()


def test_select_works(archive):
    df = archive.sql("SELECT protocol, count(*) AS n FROM debates GROUP BY protocol")
    assert df.values.tolist() == [["master", 1]]
    assert archive.sql("SELECT rule, passed FROM findings LIMIT 1").shape[1] == 2
    assert len(archive.sql("SELECT * FROM range(50000)", max_rows=100)) == 100
    assert archive.sql("DESCRIBE speeches").shape[0] > 10
    assert len(archive.sql("PRAGMA show_tables")) >= 10
    assert archive.sql("SHOW TABLES").shape[0] >= 10


def test_the_connection_is_read_only_without_external_access(archive):
    df = archive.sql("SELECT current_setting('enable_external_access') AS ext, "
                     "current_setting('lock_configuration') AS locked")
    assert df.values.tolist() == [[False, True]]


REFUSED = {
    "insert": ("INSERT INTO debates (id, protocol, topic, status) VALUES ('x', 'master', 't', 'running')", "read-only"),
    "update": ("UPDATE debates SET status = 'failed'", "read-only"),
    "delete": ("DELETE FROM speeches", "read-only"),
    "drop": ("DROP TABLE debates", "read-only"),
    "create": ("CREATE TABLE t AS SELECT 1", "read-only"),
    "create_temp": ("CREATE TEMP TABLE t AS SELECT 1", "read-only"),
    "alter": ("ALTER TABLE debates ADD COLUMN x INTEGER", "read-only"),
    "copy_to": ("COPY debates TO '/tmp/leak.csv'", "COPY"),
    "copy_from": ("COPY debates FROM '/etc/passwd'", "COPY"),
    "copy_select": ("COPY (SELECT * FROM debates) TO '/tmp/leak.parquet' (FORMAT parquet)", "COPY"),
    "export": ("EXPORT DATABASE '/tmp/leakdb'", "EXPORT"),
    "attach": ("ATTACH '/tmp/other.duckdb' AS o", "ATTACH"),
    "detach": ("DETACH a", "DETACH"),
    "install": ("INSTALL httpfs", "extensions"),
    "load": ("LOAD httpfs", "extensions"),
    "read_csv": ("SELECT * FROM read_csv('/etc/passwd')", "files"),
    "read_text": ("SELECT * FROM read_text('/etc/hostname')", "files"),
    "read_parquet": ("SELECT * FROM read_parquet('/tmp/*.parquet')", "files"),
    "glob": ("SELECT * FROM glob('/etc/*')", "files"),
    "set": ("SET enable_external_access = true", "settings"),
    "reset": ("RESET threads", "settings"),
    "pragma": ("PRAGMA enable_profiling", "PRAGMA"),
    "checkpoint": ("CHECKPOINT", "CALL"),
    "two_statements": ("SELECT 1; DROP TABLE debates", "one statement"),
    "transaction": ("BEGIN TRANSACTION", "transactions"),
    "empty": ("   ", "empty"),
}


@pytest.mark.parametrize("name", sorted(REFUSED))
def test_refused_with_one_clear_line(archive, name):
    query, word = REFUSED[name]
    before = _digest(archive)
    with pytest.raises(SqlRefused) as info:
        archive.sql(query)
    msg = str(info.value)
    assert "\n" not in msg and len(msg) < 200, msg
    assert word.lower() in msg.lower(), msg
    assert _digest(archive) == before


def test_sql_errors_are_one_line_too(archive):
    # DuckDB's own first line, once: the app shows it as "SQL: Parser Error: …", never "SQL: SQL error: …"
    with pytest.raises(SqlRefused, match=r"^Parser Error: syntax error") as info:
        archive.sql("SELEC 1")
    assert "\n" not in str(info.value)
    with pytest.raises(SqlRefused, match=r"^Catalog Error: .*no_such_table") as info:
        archive.sql("SELECT * FROM no_such_table")
    assert "\n" not in str(info.value) and "See also" not in str(info.value)


def test_guard_is_a_library_function(archive):
    import duckdb

    con = duckdb.connect()
    check_readonly_sql(con, "SELECT 1")
    with pytest.raises(SqlRefused):
        check_readonly_sql(con, "DELETE FROM x")
    df = run_readonly_sql(archive.path, "SELECT count(*) AS n FROM speeches")
    assert df["n"][0] == 4


def test_query_timeout(archive):
    with pytest.raises(SqlRefused, match="longer than"):
        archive.sql("SELECT count(*) FROM range(1000000000000) a", timeout=0.3)


def test_cli_sql(archive):
    r = cli("sql", "SELECT id, status FROM debates", "--format", "json", "--archive", str(archive.path))
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)[0]["status"] == "completed"
    r = cli("sql", "SELECT * FROM read_csv('/etc/passwd')", "--archive", str(archive.path))
    assert r.returncode == 2 and r.stderr == "error: refused: reading or writing files is disabled in the SQL box\n"


# ------------------------------------------------------------ caps (issue 23)


def test_pivot_is_a_read_and_runs(archive):
    df = archive.sql("PIVOT debates ON status USING count(*) GROUP BY protocol")
    assert df.to_dict(orient="records") == [{"protocol": "master", "completed": 1}]
    assert len(archive.sql("SELECT * FROM (PIVOT debates ON status USING count(*))")) == 1
    assert len(archive.sql("WITH p AS (PIVOT debates ON status USING count(*)) SELECT * FROM p")) == 1
    assert len(archive.sql("UNPIVOT (SELECT 1 AS a, 2 AS b) ON a, b")) == 2
    before = _digest(archive)
    for query in ("CREATE TABLE x AS PIVOT debates ON status USING count(*)",
                  "INSERT INTO debates SELECT * FROM (PIVOT debates ON status USING count(*))"):
        with pytest.raises(SqlRefused, match="read-only") as info:
            archive.sql(query)
        assert "MULTI" not in str(info.value)
    assert _digest(archive) == before


def test_result_bytes_are_counted_while_fetching(archive, monkeypatch):
    monkeypatch.setenv("DEBATE_SQL_RESULT_BYTES", str(1 << 20))
    with pytest.raises(SqlRefused, match=r"SQL_RESULT_BYTES \(1 MiB") as info:
        archive.sql("SELECT repeat('x', 10000) AS s FROM range(100000)")
    assert "\n" not in str(info.value) and "$DEBATE_SQL_RESULT_BYTES" in str(info.value)
    assert len(archive.sql("SELECT repeat('x', 100) AS s FROM range(1000)")) == 1000  # under the cap


def test_timeout_is_a_named_cap(archive, monkeypatch):
    monkeypatch.setenv("DEBATE_SQL_TIMEOUT_S", "0.5")
    t0 = time.monotonic()
    with pytest.raises(SqlRefused, match=r"longer than 0.5 s.*SQL_TIMEOUT_S") as info:
        archive.sql("SELECT count(*) FROM range(1000000000000) a")
    assert time.monotonic() - t0 < 5 and "\n" not in str(info.value)
    assert archive.sql("SELECT count(*) AS n FROM debates")["n"][0] == 1  # a fresh worker answers next


def test_temp_directory_is_capped(archive, monkeypatch):
    monkeypatch.setenv("DEBATE_SQL_MEMORY_LIMIT", str(48 << 20))
    monkeypatch.setenv("DEBATE_SQL_TEMP_DIR_BYTES", str(4 << 20))
    with pytest.raises(SqlRefused, match="spilled too much to disk: over the cap SQL_TEMP_DIR_BYTES") as info:
        archive.sql("SELECT count(*) FROM (SELECT r, repeat('x', 50) AS s FROM range(10000000) r ORDER BY random())")
    assert "\n" not in str(info.value)


def test_concurrent_queries_are_capped(archive, monkeypatch):
    monkeypatch.setenv("DEBATE_SQL_CONCURRENT_QUERIES", "1")
    errors = []

    def slow():
        try:
            archive.sql("SELECT count(*) FROM range(1000000000000) a", timeout=3)
        except SqlRefused as exc:
            errors.append(str(exc))

    t = threading.Thread(target=slow)
    t.start()
    time.sleep(0.5)
    with pytest.raises(SqlRefused, match="SQL_CONCURRENT_QUERIES"):
        archive.sql("SELECT 1", timeout=0.5)
    t.join()
    assert errors and "longer than 3 s" in errors[0]
    assert len(archive.sql("SELECT 1")) == 1  # the slot is free again


def test_the_worker_gets_no_secrets(monkeypatch):
    from debate_core.archive.sql_guard import _worker_env

    monkeypatch.setenv("OPENAI_API_KEY", "sk-secret")
    monkeypatch.setenv("DEBATE_API_BASE", "http://u:p@h/v1")
    env = _worker_env()
    assert "OPENAI_API_KEY" not in env and "DEBATE_API_BASE" not in env and "sk-secret" not in str(env)
