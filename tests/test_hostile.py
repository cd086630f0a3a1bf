"""Hostile input (issue 23): what an attacker sends cannot take the process down.

Covered here: zip bombs stopped while streaming under a real address-space limit, research-tool
patterns that would backtrack (run while a heartbeat thread checks the process never stalls),
a trial workspace outside the configured roots, and grep naming the files it skipped."""

from __future__ import annotations

import io
import os
import subprocess
import sys
import textwrap
import threading
import time
import zipfile
from pathlib import Path

import pytest

from debate_core.errors import InputError
from debate_core.research.tools import Workspace, tidy_glob
from debate_core.settings import CAPS, check_workspace

REPO = Path(__file__).resolve().parent.parent


class Heartbeat:
    """A thread that ticks every 10 ms; ``worst`` is the longest gap between two ticks."""

    def __init__(self):
        self.worst = 0.0
        self._stop = threading.Event()
        self._t = threading.Thread(target=self._run, daemon=True)

    def _run(self):
        last = time.monotonic()
        while not self._stop.is_set():
            time.sleep(0.01)
            now = time.monotonic()
            self.worst = max(self.worst, now - last)
            last = now

    def __enter__(self):
        self._t.start()
        return self

    def __exit__(self, *exc):
        self._stop.set()
        self._t.join()


def _bomb(entry_bytes: int) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
        with zf.open("bomb.json", "w", force_zip64=True) as fh:
            block = b"0" * (1 << 20)
            for _ in range(entry_bytes // len(block)):
                fh.write(block)
    return buf.getvalue()


def test_zip_bomb_stops_at_the_entry_cap_under_a_real_memory_limit(tmp_path):
    data = _bomb(1 << 30)  # 1 GiB of zeros in about 1 MB
    assert len(data) < 5 * (1 << 20)
    bomb = tmp_path / "bomb.zip"
    bomb.write_bytes(data)
    # staged by the app's own function, in a process limited to 1.5 GiB of address space
    code = textwrap.dedent(f"""
        import resource, sys
        resource.setrlimit(resource.RLIMIT_AS, (1536 << 20, 1536 << 20))
        sys.path.insert(0, {str(REPO)!r})
        from pathlib import Path
        from webapp.views.archive import stage_uploads
        try:
            stage_uploads([("bomb.zip", Path({str(bomb)!r}).read_bytes())], Path({str(tmp_path / 'stage')!r}))
        except ValueError as exc:
            print("REFUSED", exc)
        """)
    env = dict(os.environ, DEBATE_UPLOAD_MAX_ENTRY_BYTES=str(16 << 20))
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, env=env)
    assert p.returncode == 0, p.stderr[-2000:]
    assert "REFUSED" in p.stdout and "UPLOAD_MAX_ENTRY_BYTES" in p.stdout and "bomb.json" in p.stdout
    written = sum(f.stat().st_size for f in (tmp_path / "stage").rglob("*") if f.is_file())
    assert written <= (16 << 20) + (1 << 20)


def test_upload_total_and_entry_count_caps(tmp_path, monkeypatch):
    from webapp.views.archive import stage_uploads

    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        for i in range(30):
            zf.writestr(f"d/{i}.json", "x" * 1000)
    monkeypatch.setenv("DEBATE_UPLOAD_MAX_ENTRIES", "10")
    with pytest.raises(InputError, match="UPLOAD_MAX_ENTRIES"):
        stage_uploads([("many.zip", buf.getvalue())], tmp_path / "a")
    monkeypatch.delenv("DEBATE_UPLOAD_MAX_ENTRIES")
    monkeypatch.setenv("DEBATE_UPLOAD_MAX_TOTAL_BYTES", "5000")
    with pytest.raises(InputError, match="UPLOAD_MAX_TOTAL_BYTES"):
        stage_uploads([("many.zip", buf.getvalue())], tmp_path / "b")
    monkeypatch.delenv("DEBATE_UPLOAD_MAX_TOTAL_BYTES")
    assert stage_uploads([("many.zip", buf.getvalue())], tmp_path / "c")  # under the caps: staged


def test_patterns_never_freeze_the_process(tmp_path):
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / ("x" * 60)).write_text("x\n")
    (tmp_path / "long.txt").write_text("a" * 100_000 + "\n")
    ws = Workspace(tmp_path)
    assert tidy_glob("**************b") == "**b" and tidy_glob("**/**/**/*.md") == "**/*.md"
    with Heartbeat() as hb:
        t0 = time.monotonic()
        assert "no files match" in ws.glob("**************b")
        assert "no files match" in ws.glob("*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*b")
        assert "no matches" in ws.grep("(a|aa)*b")
        assert "no matches" in ws.grep("(x+x+)+y", glob="*" * 50 + ".txt")
        took = time.monotonic() - t0
    assert hb.worst < 0.5, f"the process stalled {hb.worst:.2f} s"
    assert took < 5


def test_grep_says_which_files_it_skipped(tmp_path, monkeypatch):
    (tmp_path / "big.txt").write_text("needle\n" * 1000)
    (tmp_path / "blob.bin").write_bytes(b"\x00needle")
    monkeypatch.setenv("DEBATE_GREP_MAX_FILE_BYTES", "100")
    out = Workspace(tmp_path).grep("needle")
    assert "no matches" in out and "skipped 2 file(s)" in out and "larger than 100 bytes" in out and "1 binary" in out


def test_trial_workspace_must_be_under_a_configured_root(tmp_path, monkeypatch):
    monkeypatch.setenv("DEBATE_WORKSPACE_ROOTS", str(tmp_path))
    (tmp_path / "w").mkdir()
    assert check_workspace(str(tmp_path / "w")) == os.path.realpath(tmp_path / "w")
    for bad in ("/", "/etc", str(tmp_path.parent)):
        with pytest.raises(InputError, match="DEBATE_WORKSPACE_ROOTS"):
            check_workspace(bad)
    monkeypatch.setenv("DEBATE_WORKSPACE_ROOTS", "/")  # / itself is never a root
    with pytest.raises(InputError):
        check_workspace("/etc")


def test_trial_start_refuses_a_workspace_outside_the_roots(tmp_path, monkeypatch):
    monkeypatch.setenv("DEBATE_WORKSPACE_ROOTS", str(tmp_path))
    p = subprocess.run([sys.executable, "-m", "debate_core", "debate", "Is X good?", "--protocol", "trial",
                        "--model", "openai/x", "--api-base", "http://127.0.0.1:9/v1", "--workspace", "/"],
                       capture_output=True, text=True, cwd=REPO, timeout=120,
                       env=dict(os.environ, DEBATE_WORKSPACE_ROOTS=str(tmp_path)))
    assert p.returncode == 2 and "Traceback" not in p.stderr
    assert "not inside an allowed root" in p.stderr and len(p.stderr.strip().splitlines()) == 1


def test_every_cap_is_documented():
    doc = (REPO / "docs" / "security.md").read_text(encoding="utf-8")
    for name, c in CAPS.items():
        assert name in doc and c.env in doc


def test_credentials_in_an_api_base_url_are_never_stored(tmp_path):
    from debate_core.archive import open_archive
    from debate_core.models import DebateConfig
    from debate_core import runs

    archive = open_archive(tmp_path / "a.duckdb")
    config = DebateConfig(protocol="master", topic="禅净之争", api_base="http://user:hunter2pass@127.0.0.1:9/v1")
    runner, debate = runs.start(config, archive)
    runner.run(debate)
    stored = archive.query("SELECT config FROM debates")["config"][0]
    assert "hunter2pass" not in stored and "user:" not in stored and "[redacted]@127.0.0.1:9/v1" in stored


def test_the_app_listens_on_localhost_by_default():
    import tomllib

    conf = tomllib.loads((REPO / ".streamlit" / "config.toml").read_text(encoding="utf-8"))
    assert conf["server"]["address"] == "localhost"


# ------------------------------------------------------------------ the SQL box


@pytest.fixture(scope="module")
def sql_archive(tmp_path_factory):
    from debate_core.archive import open_archive
    from tests.archive_helpers import make_pack, run_debate

    root = tmp_path_factory.mktemp("hostile-sql")
    arc = open_archive(root / "a.duckdb")
    run_debate(arc, make_pack(root))
    return arc


def test_a_huge_sql_result_stops_at_a_cap_under_a_real_memory_limit(sql_archive):
    # the CLI in a process tree limited to 3 GiB of address space; before the caps this query
    # passed 4 GB (8 GB at its 30 s timeout).  The wrapper reports the tree's peak RSS.
    query = "SELECT repeat('x',1000000) FROM range(100000)"
    code = textwrap.dedent(f"""
        import resource, subprocess, sys
        lim = 3 << 30
        def limit():
            resource.setrlimit(resource.RLIMIT_AS, (lim, lim))
        p = subprocess.run([sys.executable, "-m", "debate_core", "sql", {query!r}, "--archive",
                            {str(sql_archive.path)!r}], cwd={str(REPO)!r}, capture_output=True, text=True,
                           preexec_fn=limit, timeout=300)
        peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * 1024
        print(p.returncode, peak)
        sys.stderr.write(p.stderr)
        """)
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=400)
    rc, peak = (int(x) for x in p.stdout.split())
    assert rc == 2 and "Traceback" not in p.stderr and len(p.stderr.strip().splitlines()) == 1, p.stderr[-2000:]
    assert "SQL_MEMORY_LIMIT" in p.stderr or "SQL_RESULT_BYTES" in p.stderr, p.stderr
    assert peak < 2 << 30, f"the process tree peaked at {peak / (1 << 30):.2f} GiB"


def test_a_smaller_huge_result_stops_at_the_result_cap(sql_archive):
    from debate_core.errors import SqlRefused

    with pytest.raises(SqlRefused, match="SQL_RESULT_BYTES") as info:
        sql_archive.sql("SELECT repeat('x', 100000) FROM range(100000)")  # 10 GB in 100 KB rows
    assert "\n" not in str(info.value)


def test_a_long_query_does_not_block_other_sessions(sql_archive):
    from debate_core.errors import SqlRefused

    sql_archive.sql("SELECT 1")  # a warm worker, as in a running app
    done = {}

    def long_query():
        t0 = time.monotonic()
        try:
            sql_archive.sql("SELECT count(*) FROM range(1000000000000) a", timeout=3)
        except SqlRefused as exc:
            done["error"] = str(exc)
        done["took"] = time.monotonic() - t0

    worst, reads = 0.0, 0
    with Heartbeat() as hb:
        t = threading.Thread(target=long_query)
        t.start()
        time.sleep(0.3)
        while t.is_alive():
            t0 = time.monotonic()
            assert len(sql_archive.list_debates()) == 1
            worst = max(worst, time.monotonic() - t0)
            reads += 1
        t.join()
    assert "longer than 3 s" in done["error"] and done["took"] >= 3
    assert reads >= 5 and worst < 0.5, f"{reads} reads, the slowest took {worst:.2f} s"
    assert hb.worst < 0.5, f"the process stalled {hb.worst:.2f} s"


def test_pivot_is_allowed_and_writes_are_not(sql_archive):
    from debate_core.errors import SqlRefused

    df = sql_archive.sql("PIVOT debates ON status USING count(*) GROUP BY protocol")
    assert df.to_dict(orient="records") == [{"protocol": "master", "completed": 1}]
    for query in ("CREATE TABLE t AS PIVOT debates ON status USING count(*)", "DELETE FROM debates"):
        with pytest.raises(SqlRefused, match="read-only"):
            sql_archive.sql(query)


# ------------------------------------------------------------ CLI numbers


BAD_NUMBERS = [
    (["list", "--limit", "0"], "--limit", "'0'"),
    (["list", "--limit", "-1"], "--limit", "'-1'"),
    (["sql", "SELECT 1", "--max-rows", "-1"], "--max-rows", "'-1'"),
    (["sql", "SELECT 1", "--max-rows", "0"], "--max-rows", "'0'"),
    (["debate", "Is X good?", "--timeout", "-5"], "--timeout", "'-5'"),
    (["debate", "Is X good?", "--timeout", "nan"], "--timeout", "'nan'"),
    (["debate", "Is X good?", "--rounds", "-1"], "--rounds", "'-1'"),
    (["ratings", "--bootstrap", "-3"], "--bootstrap", "'-3'"),
    (["judges", "--bootstrap", "-1"], "--bootstrap", "'-1'"),
    (["batch", "spec.yaml", "--concurrency", "0"], "--concurrency", "'0'"),
    (["batch", "spec.yaml", "--processes", "0"], "--processes", "'0'"),
    (["batch", "spec.yaml", "--processes", "many"], "--processes", "'many'"),
    (["audit", "--concurrency", "-2"], "--concurrency", "'-2'"),
    (["check", "--round", "0"], "--round", "'0'"),
    (["list", "--limit", "1" + "0" * 30], "--limit", "out of range"),
]


@pytest.mark.parametrize("argv,flag,value", BAD_NUMBERS, ids=[" ".join(a[0:1] + a[-2:]) for a, _f, _v in BAD_NUMBERS])
def test_negative_and_zero_numbers_are_refused_in_one_line(argv, flag, value, capsys):
    from debate_core.cli.main import main

    with pytest.raises(SystemExit) as info:
        main(argv)
    err = capsys.readouterr().err
    assert info.value.code == 2
    assert len(err.strip().splitlines()) == 1 and err.startswith("error: ") and "Traceback" not in err, err
    assert flag in err and value in err, err


def test_a_bad_number_is_one_line_from_the_real_cli(sql_archive):
    p = subprocess.run([sys.executable, "-m", "debate_core", "list", "--limit", "-1", "--archive",
                        str(sql_archive.path)], capture_output=True, text=True, cwd=REPO, timeout=120)
    assert p.returncode == 2 and p.stdout == "" and "Traceback" not in p.stderr
    assert p.stderr == ("error: list: argument --limit: '-1' is out of range: give a whole number from 1 to "
                        "1,000,000,000 (see --help)\n")
