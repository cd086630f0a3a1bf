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
