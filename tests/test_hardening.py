"""Bad input, tried and answered: huge topics, path traversal, SQL-box escapes, broken archives.

Each attempt gets a clear one-line refusal, and nothing is touched: no model is
called for a refused topic, no file outside a trial workspace is read, no file is
written or read by the SQL box, and an archive that is corrupt or from a newer
schema is left byte for byte as it was.
"""

from __future__ import annotations

import hashlib
import os
import threading
from pathlib import Path

import pytest

from debate_core.api import start_debate
from debate_core.errors import InputError
from debate_core.settings import MAX_TOPIC_CHARS, validate_topic
from debate_core.models import DebateConfig
from debate_core.engines.scripted_server import ScriptedServer
from tests.conftest import run_cli

BIG_TOPIC = "辩" * 34_000 + "x" * 2  # ~100 KB of UTF-8


def sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


# --------------------------------------------------------------------- topics


def test_a_100kb_topic_is_refused_by_length():
    assert len(BIG_TOPIC.encode()) >= 100_000
    with pytest.raises(InputError) as info:
        validate_topic(BIG_TOPIC)
    assert str(info.value) == f"the topic is {len(BIG_TOPIC)} characters; the limit is {MAX_TOPIC_CHARS}"


@pytest.mark.parametrize("protocol", ["master", "topic", "trial"])
def test_a_100kb_topic_never_reaches_a_model(protocol, tmp_path):
    from debate_core.archive import open_archive

    arc = open_archive(tmp_path / "a.duckdb")
    with ScriptedServer() as srv:
        cfg = DebateConfig(protocol=protocol, topic=BIG_TOPIC, model="openai/x", api_base=srv.url)
        with pytest.raises(InputError, match="the limit is 500"):
            start_debate(cfg, arc)
        assert srv.requests == []  # refused before any model call
    assert arc.list_debates(mark=False).empty  # and before any record


@pytest.mark.parametrize("topic,what", [("", "empty"), ("  \n\t ", "empty"), ("顿悟\x00念佛", "NUL"),
                                        ("字" * (MAX_TOPIC_CHARS + 1), "limit")])
def test_other_bad_topics(topic, what):
    with pytest.raises(InputError, match=what):
        validate_topic(topic)


def test_cli_refuses_a_100kb_topic_in_one_line(tmp_path):
    topic_file = tmp_path / "topic.txt"
    topic_file.write_text(BIG_TOPIC, "utf-8")
    r = run_cli("debate", BIG_TOPIC, "--archive", str(tmp_path / "a.duckdb"))
    assert r.returncode == 2 and r.stdout == ""
    assert r.stderr.strip().splitlines() == [f"error: the topic is {len(BIG_TOPIC)} characters; the limit is 500"]


# -------------------------------------------------------------- path traversal


@pytest.fixture
def ws(tmp_path):
    from debate_core.research.tools import Workspace

    root = tmp_path / "ws"
    (root / "docs").mkdir(parents=True)
    (root / "docs" / "a.md").write_text("inside\n", "utf-8")
    secret = tmp_path / "secret.txt"
    secret.write_text("TOP-SECRET-OUTSIDE\n", "utf-8")
    (root / "link-file").symlink_to(secret)
    (root / "link-dir").symlink_to(tmp_path)
    (root / "docs" / "up").symlink_to("../..")
    return Workspace(root)


TRAVERSALS = [
    "../secret.txt", "docs/../../secret.txt", "./../secret.txt", "docs/./../../secret.txt", "..",
    "/etc/passwd", "//etc/passwd", "~/.bashrc", "~root/.profile", "\\etc\\passwd", "..\\secret.txt",
    "docs\\..\\..\\secret.txt", "C:\\Windows\\win.ini", "c:/windows/win.ini", "link-file", "link-dir/secret.txt",
    "docs/up/secret.txt", "docs/up/ws/docs/a.md/../../../secret.txt", "docs/a.md\x00.txt", "%2e%2e/secret.txt",
    "docs/" + "../" * 40 + "etc/passwd", "/proc/self/environ", "../" * 200 + "etc/shadow",
]


@pytest.mark.parametrize("path", TRAVERSALS)
def test_read_traversal_is_refused(ws, path):
    rec = ws.execute("read", {"path": path})
    assert rec.error.startswith("error: ") and not rec.result, rec
    assert "TOP-SECRET" not in rec.error and "root:" not in rec.error


@pytest.mark.parametrize("path", TRAVERSALS)
def test_grep_traversal_is_refused_or_stays_inside(ws, path):
    rec = ws.execute("grep", {"pattern": "SECRET|root", "path": path})
    assert "TOP-SECRET" not in rec.result + rec.error and "root:x" not in rec.result + rec.error


@pytest.mark.parametrize("pattern", ["../*", "../**", "**/../*", "/etc/*", "/**", "~/*", "docs/up/*", "link-dir/*",
                                     "**/*secret*", "**", "*"])
def test_glob_never_lists_outside(ws, pattern):
    rec = ws.execute("glob", {"pattern": pattern})
    listing = rec.result + rec.error
    assert "secret.txt" not in listing and "passwd" not in listing


@pytest.mark.parametrize("raw", ['{"path": "../secret.txt"}', '{"path": ["../secret.txt"]}', '{"path": 5}',
                                 '{"path": {"$ref": "/etc/passwd"}}', "../secret.txt", '{"path": "docs/a.md", '
                                 '"offset": -5, "limit": 10000000}', "[1, 2]", "{" * 5000])
def test_hostile_tool_arguments(ws, raw):
    rec = ws.execute("read", raw)
    assert "TOP-SECRET" not in rec.result + rec.error


def test_unknown_tools_do_nothing(ws, tmp_path):
    for name in ("write", "bash", "exec", "delete", "../read", "read\x00"):
        rec = ws.execute(name, {"path": "docs/a.md", "content": "x", "command": "rm -rf /"})
        assert rec.error.startswith("error: no tool named")
    assert (tmp_path / "ws" / "docs" / "a.md").read_text() == "inside\n"


def test_a_fifo_in_the_workspace_does_not_hang_a_read(ws, tmp_path):
    """A named pipe inside the workspace must be refused like a folder, not read (it blocks forever).

    Bug in research_tools.Workspace.read: it checks ``is_dir()`` but not ``is_file()``, so
    ``read_bytes()`` on a FIFO waits for a writer that never comes and the trial hangs.
    (``_walk`` for glob/grep already skips anything that is not a regular file.)
    """
    fifo = tmp_path / "ws" / "docs" / "pipe.md"
    os.mkfifo(fifo)
    out: list = []
    t = threading.Thread(target=lambda: out.append(ws.execute("read", {"path": "docs/pipe.md"})), daemon=True)
    t.start()
    t.join(3)
    hung = t.is_alive()
    if hung:  # unblock the reader so the test run goes on
        with open(fifo, "wb"):
            pass
        t.join(3)
    assert not hung, "read() of a FIFO inside the workspace blocked"
    assert out[0].error.startswith("error: ")


def test_grep_and_glob_skip_special_files(ws, tmp_path):
    os.mkfifo(tmp_path / "ws" / "docs" / "pipe2.md")
    result: list = []
    t = threading.Thread(target=lambda: result.append((ws.execute("grep", {"pattern": "x"}),
                                                        ws.execute("glob", {"pattern": "**/*"}))), daemon=True)
    t.start()
    t.join(5)
    assert not t.is_alive() and "pipe2.md" not in result[0][1].result


# --------------------------------------------------------------------- SQL box


@pytest.fixture
def archive(tmp_path):
    from debate_core.archive import open_archive
    from debate_core.engines.offline import OfflineEngine
    from debate_core.content.packs import DEFAULT_PACK, load_pack
    from debate_core.protocols.master import MasterDebate

    arc = open_archive(tmp_path / "sql.duckdb")
    pack = load_pack(DEFAULT_PACK)
    md = MasterDebate(pack, OfflineEngine(pack), recorder=arc)
    md.run(md.prepare(DebateConfig(topic="顿悟与念佛", masters=["huineng", "yinguang"])))
    return arc


ESCAPES = [
    "COPY debates TO '{out}/leak.csv'",
    "copy (select * from speeches) to '{out}/leak.json' (format json)",
    "/* hi */ COPY debates TO '{out}/leak.csv'",
    "EXPLAIN ANALYZE COPY debates TO '{out}/leak.csv'",
    "EXPORT DATABASE '{out}/leakdb'",
    "ATTACH '{out}/other.duckdb' AS o",
    "ATTACH ':memory:' AS m",
    "SELECT * FROM read_csv('/etc/passwd')",
    "SELECT * FROM read_csv_auto('/etc/passwd')",
    "SELECT * FROM read_csv(['/etc/passwd', '/etc/hostname'])",
    "SELECT * FROM read_json('/etc/passwd')",
    "SELECT * FROM read_text('/etc/passwd')",
    "SELECT * FROM read_blob('/etc/passwd')",
    "SELECT * FROM sniff_csv('/etc/passwd')",
    "SELECT * FROM '/etc/passwd'",
    "FROM '/etc/passwd'",
    "SELECT * FROM 'https://example.com/x.csv'",
    "SELECT * FROM read_parquet('http://127.0.0.1:9/x.parquet')",
    "WITH x AS (SELECT * FROM read_csv('/etc/passwd')) SELECT * FROM x",
    "SELECT (SELECT count(*) FROM read_csv('/etc/passwd')) AS n",
    "SELECT * FROM glob('/etc/*')",
    "SELECT * FROM duckdb_secrets()",
    "INSTALL httpfs",
    "FORCE INSTALL httpfs",
    "INSTALL httpfs FROM 'http://127.0.0.1:9'",
    "LOAD httpfs",
    "LOAD '{out}/evil.duckdb_extension'",
    "SET enable_external_access = true",
    "SET GLOBAL enable_external_access = true",
    "RESET enable_external_access",
    "SELECT set_config('enable_external_access', 'true')",
    "PRAGMA enable_external_access=true",
    "CALL pragma_version()",
    "CREATE SECRET s (TYPE s3, KEY_ID 'x', SECRET 'y')",
    "CREATE MACRO m() AS 1",
    "DROP TABLE debates",
    "DELETE FROM debates",
    "UPDATE debates SET topic = 'x'",
    "INSERT INTO meta VALUES ('schema_version', '99')",
    "SELECT 1; DROP TABLE debates",
    "SELECT 1; COPY debates TO '{out}/leak.csv'",
    "VACUUM",
    "CHECKPOINT",
    "USE memory",
    "BEGIN; DELETE FROM debates; COMMIT",
]


@pytest.mark.parametrize("query", ESCAPES)
def test_sql_box_escapes_are_refused_and_touch_nothing(archive, query, tmp_path):
    from debate_core.archive import SqlRefused

    out = tmp_path / "out"
    out.mkdir()
    before = sha(archive.path)
    q = query.format(out=out)
    try:
        df = archive.sql(q)
    except SqlRefused as exc:
        msg = str(exc)
        # a refusal, or DuckDB's own one-line error ("Catalog Error: …"), never "SQL error: …" twice over
        assert "\n" not in msg and (msg.startswith("refused") or " Error: " in msg.split(":")[0] + ": "), msg
    else:  # a few are harmless reads (e.g. a SELECT that fails closed): they must show nothing outside
        assert "root:" not in df.to_string()
        pytest.fail(f"not refused: {q!r} -> {df.head(3).to_dict()}")
    assert sha(archive.path) == before
    assert list(out.iterdir()) == []  # nothing written


def test_sql_box_cannot_see_the_environment(archive, monkeypatch):
    from debate_core.archive import SqlRefused

    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-PLANTED0123456789abcdef")
    for q in ("SELECT getenv('OPENAI_API_KEY')", "SELECT * FROM duckdb_settings() WHERE value LIKE '%sk-test%'"):
        try:
            df = archive.sql(q)
        except SqlRefused:
            continue
        assert "sk-test-PLANTED" not in df.to_string()


def test_sql_box_cli_refuses_in_one_line(archive, tmp_path):
    r = run_cli("sql", f"COPY debates TO '{tmp_path}/x.csv'", "--archive", str(archive.path))
    assert r.returncode == 2 and "Traceback" not in r.stderr
    assert [x for x in r.stderr.splitlines() if x.strip()] == [x for x in r.stderr.splitlines() if x.startswith("error")]
    assert not (tmp_path / "x.csv").exists()


# ------------------------------------------------------------------ archives


def _corrupt_files(tmp_path: Path, good: Path) -> dict[str, Path]:
    files = {}
    raw = good.read_bytes()
    variants = {
        "random": os.urandom(300_000),
        "text": b"this is not a database\n" * 100,
        "truncated": raw[: len(raw) // 3],
        "header-only": raw[:4096],
        "bad-body": raw[:4096] + os.urandom(len(raw) - 4096),
        "sqlite": b"SQLite format 3\x00" + os.urandom(8192),
        "zeros": b"\x00" * 100_000,
    }
    for name, data in variants.items():
        p = tmp_path / f"{name}.duckdb"
        p.write_bytes(data)
        files[name] = p
    return files


@pytest.fixture
def good_archive(tmp_path):
    from debate_core.archive import open_archive

    p = tmp_path / "good.duckdb"
    open_archive(p)
    return p


@pytest.mark.parametrize("kind", ["random", "text", "truncated", "header-only", "bad-body", "sqlite", "zeros"])
def test_a_corrupt_archive_is_refused_and_left_untouched(kind, tmp_path, good_archive):
    from debate_core.archive import ArchiveError, open_archive, run_readonly_sql

    path = _corrupt_files(tmp_path, good_archive)[kind]
    before = sha(path)
    try:
        arc = open_archive(path)
    except ArchiveError as exc:
        msg = str(exc)
        assert "\n" not in msg and str(path.name) in msg
    else:  # DuckDB may read a damaged body lazily: then every use must fail cleanly, never rewrite the file
        with pytest.raises(ArchiveError):
            arc.list_debates()
    assert sha(path) == before
    from debate_core.archive import SqlRefused

    with pytest.raises((SqlRefused, ArchiveError)):
        run_readonly_sql(path, "SELECT * FROM debates")
    assert sha(path) == before
    assert not Path(str(path) + ".wal").exists() or Path(str(path) + ".wal").stat().st_size == 0


def test_a_foreign_duckdb_file_is_refused_and_untouched(tmp_path):
    import duckdb

    from debate_core.archive import ArchiveError, open_archive

    path = tmp_path / "foreign.duckdb"
    con = duckdb.connect(str(path))
    con.execute("CREATE TABLE invoices (n INTEGER)")
    con.execute("INSERT INTO invoices VALUES (1)")
    con.close()
    before = sha(path)
    with pytest.raises(ArchiveError, match="not a debate archive"):
        open_archive(path)
    assert sha(path) == before


@pytest.mark.parametrize("version", ["99", "next", "banana"])
def test_an_archive_from_a_newer_schema_is_refused_and_untouched(version, good_archive):
    import duckdb

    from debate_core.archive import SCHEMA_VERSION, ArchiveError, open_archive

    version = str(SCHEMA_VERSION + 1) if version == "next" else version

    con = duckdb.connect(str(good_archive))
    con.execute("UPDATE meta SET value = ? WHERE key = 'schema_version'", [version])
    con.close()
    before = sha(good_archive)
    with pytest.raises(ArchiveError) as info:
        open_archive(good_archive)
    msg = str(info.value)
    assert "\n" not in msg and "untouched" in msg
    if version.isdigit():
        assert f"schema version {version}" in msg and "newer" in msg
    assert sha(good_archive) == before
    r = run_cli("list", "--archive", str(good_archive))
    assert r.returncode == 2 and "Traceback" not in r.stderr
    assert r.stderr.strip().startswith("error: ") and len(r.stderr.strip().splitlines()) == 1
    assert sha(good_archive) == before


def test_a_folder_as_the_archive_is_refused(tmp_path):
    from debate_core.archive import ArchiveError, open_archive

    with pytest.raises(ArchiveError, match="is a folder"):
        open_archive(tmp_path)


def test_cli_on_a_corrupt_archive_one_line_and_untouched(tmp_path, good_archive):
    path = _corrupt_files(tmp_path, good_archive)["bad-body"]
    before = sha(path)
    for args in (["retry", "abc"], ["sql", "SELECT 1"]):
        r = run_cli(*args, "--archive", str(path))
        assert r.returncode == 2, (args, r.stderr)
        lines = [x for x in r.stderr.splitlines() if x.strip()]
        assert len(lines) == 1 and lines[0].startswith("error: ") and "Traceback" not in r.stderr, (args, r.stderr)
    assert sha(path) == before
