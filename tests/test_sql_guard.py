"""`sql QUERY`: strictly read-only SQL over the archive, one clear line when refused."""

from __future__ import annotations

import hashlib
import json

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
    with pytest.raises(SqlRefused, match=r"^SQL error: .*syntax error") as info:
        archive.sql("SELEC 1")
    assert "\n" not in str(info.value)
    with pytest.raises(SqlRefused, match="SQL error"):
        archive.sql("SELECT * FROM no_such_table")


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
