"""The README's first CLI block runs as written, from the repository root: the offline commands, on the default
pack and the shipped sample speech (examples/speech.txt), each exiting 0 with output."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent


def _cli_block() -> list[str]:
    text = (REPO / "README.md").read_text()
    section = text[text.index("## The CLI"):]
    block = re.search(r"```bash\n(.*?)```", section, re.S).group(1)
    joined = block.replace("\\\n", " ")
    commands = []
    for line in joined.splitlines():
        line = re.sub(r"\s+#[^\"']*$", "", line).strip()  # the trailing comment
        if line:
            commands.append(line)
    return commands


def test_the_block_is_the_offline_examples():
    commands = _cli_block()
    assert len(commands) >= 8 and all(c.startswith("python -m debate_core ") for c in commands)
    assert not [c for c in commands if "../shared" in c]
    assert any("examples/speech.txt" in c for c in commands) and (REPO / "examples" / "speech.txt").is_file()


@pytest.mark.parametrize("command", _cli_block())
def test_a_readme_example_runs_as_written(command, tmp_path):
    env = {k: v for k, v in os.environ.items() if k not in ("DEBATE_ARCHIVE", "DEBATE_MODEL", "DEBATE_API_BASE")}
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"  # `python` is this interpreter
    bindir = tmp_path / "bin"
    bindir.mkdir()
    (bindir / "python").symlink_to(sys.executable)
    env["PATH"] = f"{bindir}{os.pathsep}{env['PATH']}"
    r = subprocess.run(["/bin/bash", "-c", command], cwd=REPO, env=env, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, f"{command}\n{r.stderr[-2000:]}"
    assert r.stdout.strip() and "Traceback" not in r.stderr
