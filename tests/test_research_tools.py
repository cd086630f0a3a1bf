"""Read-only research tools: what they find, and what they refuse."""

from __future__ import annotations

import json
import os

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from debate_core.research import tools as rt
from debate_core.research.tools import TOOL_NAMES, TOOL_SPECS, ToolError, Workspace


@pytest.fixture()
def ws(tmp_path):
    root = tmp_path / "ws"
    (root / "src").mkdir(parents=True)
    (root / "docs").mkdir()
    (root / "src" / "app.py").write_text("import os\n\ndef main():\n    return 'REST endpoint'\n", encoding="utf-8")
    (root / "docs" / "design.md").write_text("# Design\nWe use REST today.\ngRPC was considered.\n", encoding="utf-8")
    (root / "blob.bin").write_bytes(b"\x00\x01\x02REST")
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.txt").write_text("TOP SECRET REST\n", encoding="utf-8")
    os.symlink(outside / "secret.txt", root / "leak.txt")
    os.symlink(outside, root / "leakdir")
    os.symlink(root / "docs" / "design.md", root / "alias.md")  # inside -> inside: fine
    return Workspace(root)


def test_only_read_glob_grep_exist():
    assert TOOL_NAMES == ("read", "glob", "grep")
    for spec in TOOL_SPECS:
        assert spec["type"] == "function" and spec["function"]["parameters"]["type"] == "object"


def test_read_numbers_lines(ws):
    out = ws.read("src/app.py")
    assert "    1  import os" in out and "'REST endpoint'" in out
    assert ws.read("src/app.py", offset=3, limit=1).splitlines()[0].strip().startswith("3  def main")


def test_read_inside_symlink_is_allowed(ws):
    assert "We use REST today." in ws.read("alias.md")


@pytest.mark.parametrize("path, words", [
    ("/etc/passwd", "absolute paths are refused"),
    ("~/x", "absolute paths are refused"),
    ("../outside/secret.txt", "'..' is refused"),
    ("docs/../../outside/secret.txt", "'..' is refused"),
    ("leak.txt", "leads outside the workspace"),
    ("leakdir/secret.txt", "leads outside the workspace"),
])
def test_escapes_are_refused(ws, path, words):
    with pytest.raises(ToolError, match=words):
        ws.read(path)
    rec = ws.execute("read", {"path": path})
    assert rec.error.startswith("error: ") and words in rec.error and rec.result == ""
    assert "TOP SECRET" not in rec.error


def test_grep_and_glob_never_see_outside(ws):
    out = ws.grep("REST")
    assert "docs/design.md:2: We use REST today." in out and "src/app.py:4:" in out
    assert "SECRET" not in out and "leak" not in out and "blob.bin" not in out
    assert "alias.md:2:" in out  # an inside symlink is searched
    assert ws.execute("grep", {"pattern": "REST", "path": "leakdir"}).error
    listing = ws.glob("**/*")
    assert "leak.txt" not in listing and "secret" not in listing and "docs/design.md" in listing
    assert ws.glob("*.md").splitlines() == ["alias.md"]
    assert set(ws.glob("**/*.md").splitlines()) == {"alias.md", "docs/design.md"}
    assert ws.glob("src/*.p?").splitlines() == ["src/app.py"] and ws.glob("[ds]*/*.md").splitlines() == ["docs/design.md"]
    for bad in ("/etc/*", "../*", "docs/../../*"):
        assert ws.execute("glob", {"pattern": bad}).error


def test_grep_options_and_errors(ws):
    assert ws.grep("grpc", ignore_case=True) == ("alias.md:3: gRPC was considered.\ndocs/design.md:3: gRPC was considered."
                                                 "\n[skipped 1 file(s) not searched: 1 binary]")
    assert ws.grep("REST", glob="*.py").startswith("src/app.py:4:")
    assert ws.grep("REST", path="docs/design.md") == "docs/design.md:2: We use REST today."
    assert "no matches" in ws.grep("nothing-here-at-all")
    assert "bad regular expression" in ws.execute("grep", {"pattern": "("}).error


def test_reads_are_capped(ws, monkeypatch):
    big = ws.root / "big.txt"
    big.write_text("\n".join("line %d %s" % (i, "x" * 80) for i in range(3000)), encoding="utf-8")
    out = ws.read("big.txt", limit=2000)
    assert len(out) <= rt.MAX_READ_CHARS + 200 and "continue with offset=" in out
    monkeypatch.setattr(rt, "MAX_FILE_BYTES", 1000)
    assert "larger than" in ws.execute("read", {"path": "big.txt"}).error
    assert "binary" in ws.execute("read", {"path": "blob.bin"}).error
    assert "is a folder" in ws.execute("read", {"path": "docs"}).error
    assert "no such file" in ws.execute("read", {"path": "nope.txt"}).error


def test_execute_dispatch_is_read_only(ws):
    before = sorted(p.name for p in ws.root.rglob("*"))
    for name in ("write", "edit", "bash", "exec", "delete"):
        rec = ws.execute(name, {"path": "x", "content": "y", "command": "touch pwned"})
        assert "no tool named" in rec.error and "read-only" in rec.error
    assert ws.execute("read", '{"path": "docs/design.md"}').result.count("\n") >= 2  # JSON-string arguments
    assert "not valid JSON" in ws.execute("read", "{path:").error
    assert "bad arguments" in ws.execute("read", {}).error
    assert sorted(p.name for p in ws.root.rglob("*")) == before
    rec = ws.execute("read", {"path": "docs/design.md", "mode": "w"})  # unknown arguments are dropped
    assert rec.result and json.dumps(rec.arguments)


def test_workspace_must_be_a_folder(tmp_path):
    with pytest.raises(ValueError, match="not a folder"):
        Workspace(tmp_path / "missing")


_PARTS = st.sampled_from(["..", ".", "src", "docs", "leak.txt", "leakdir", "alias.md", "secret.txt", "/", "~", "a b",
                          "design.md", "", "//", "\\\\"])


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(_PARTS, min_size=1, max_size=5), st.booleans())
def test_no_path_ever_resolves_outside(ws, parts, leading_slash):
    path = ("/" if leading_slash else "") + "/".join(parts)
    try:
        real = ws.resolve(path)
    except ToolError:
        return
    assert real == ws.root or ws.root in real.parents
    for name in ("read", "grep"):
        rec = ws.execute(name, {"path": path, "pattern": "."})
        assert "TOP SECRET" not in rec.result
