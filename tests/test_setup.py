"""The set-up: `make venv` (the environment `make run` uses) and `make dev` (the one `make test` uses) from a
clean copy of the repository, with a PATH that holds only python3, and the one-line errors when python3 is
missing or too old.  The installs are real (uv, or pip, into the copy's own .venv; uv's cache makes them quick)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
MAKE = shutil.which("make")
pytestmark = pytest.mark.skipif(MAKE is None, reason="make is not installed")


def _real_python3() -> str:
    """The interpreter the tests run on, outside any virtual environment (a venv's python is a symlink)."""
    base = getattr(sys, "_base_executable", sys.executable)
    return str(Path(base).resolve())


def _clean_copy(dest: Path) -> Path:
    """The repository's files as a clone would have them (tracked and new, not ignored), nothing else."""
    files = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"], cwd=REPO,
                           capture_output=True, check=True).stdout.decode().split("\0")
    for name in filter(None, files):
        src = REPO / name
        if src.is_file():
            (dest / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, dest / name)
    return dest


def _make(clone: Path, bindir: Path, *targets: str, **extra: str) -> subprocess.CompletedProcess:
    # the machine's environment (its certificates, proxies, caches) with PATH replaced; no venv active
    env = {k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", "PYTHONHOME", "PYTHONPATH")}
    env["PATH"] = str(bindir)
    env.update(extra)
    return subprocess.run([MAKE, *targets], cwd=clone, env=env, capture_output=True, text=True, timeout=900)


@pytest.mark.slow
def test_both_environment_steps_run_from_a_clean_clone_with_only_python3(tmp_path):
    clone = _clean_copy(tmp_path / "clone")
    bindir = tmp_path / "bin"
    bindir.mkdir()
    (bindir / "python3").symlink_to(_real_python3())

    run_env = _make(clone, bindir, "venv")
    assert run_env.returncode == 0, run_env.stdout[-3000:] + run_env.stderr[-3000:]
    assert "making the virtual environment .venv" in run_env.stdout
    vpy = clone / ".venv" / "bin" / "python"
    probe = subprocess.run([str(vpy), "-c", "import sys, streamlit, duckdb, debate_core; "
                            "print(sys.prefix != sys.base_prefix, debate_core.__file__)"],
                           capture_output=True, text=True, cwd=tmp_path)
    assert probe.returncode == 0, probe.stderr
    in_venv, where = probe.stdout.split()
    assert in_venv == "True" and Path(where).resolve().is_relative_to(clone.resolve())  # the clone's, editable
    debate = subprocess.run([str(clone / ".venv" / "bin" / "debate"), "--help"], capture_output=True, text=True)
    assert debate.returncode == 0 and "{debate,pair,masters," in debate.stdout  # the same CLI

    test_env = _make(clone, bindir, "dev")
    assert test_env.returncode == 0, test_env.stdout[-3000:] + test_env.stderr[-3000:]
    assert "making the virtual environment" not in test_env.stdout  # the same .venv, brought up to date
    probe = subprocess.run([str(vpy), "-c", "import pytest, hypothesis, playwright, importlinter"],
                           capture_output=True, text=True)
    assert probe.returncode == 0, probe.stderr
    again = _make(clone, bindir, "dev")  # up to date: nothing to do
    assert again.returncode == 0 and "install" not in again.stdout


def test_no_python3_on_path_is_one_line(tmp_path):
    clone = _clean_copy(tmp_path / "clone")
    empty = tmp_path / "bin"
    empty.mkdir()
    r = _make(clone, empty, "venv")
    assert r.returncode != 0
    lines = [line for line in r.stderr.splitlines() if not line.startswith("make")]
    assert lines == [lines[0]] and lines[0].startswith("error: python3 not found on PATH")
    assert not (clone / ".venv").exists()


def test_an_old_python3_is_one_line(tmp_path):
    clone = _clean_copy(tmp_path / "clone")
    bindir = tmp_path / "bin"
    bindir.mkdir()
    fake = bindir / "python3"  # answers the version question as Python 3.10 would
    fake.write_text("#!/bin/sh\necho 3.10\n")
    fake.chmod(0o755)
    r = _make(clone, bindir, "venv")
    assert r.returncode != 0
    lines = [line for line in r.stderr.splitlines() if not line.startswith("make")]
    assert len(lines) == 1 and lines[0].startswith("error: python3 is Python 3.10; Debate Workbench needs 3.11")
    assert not (clone / ".venv").exists()


def test_pyproject_lists_what_the_requirements_files_list():
    import tomllib

    project = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]

    def reqs(name: str) -> list[str]:
        lines = (REPO / name).read_text().splitlines()
        return [line.split(" --")[0].strip() for line in lines if line.strip() and not line.startswith("#")]

    assert project["dependencies"] == reqs("requirements.txt")
    assert project["optional-dependencies"]["dev"] == reqs("requirements-dev.txt")
    assert project["optional-dependencies"]["local"] == reqs("requirements-local.txt")
    assert project["optional-dependencies"]["ray"] == reqs("requirements-ray.txt")
    assert project["scripts"]["debate"] == "debate_core.cli.main:main"


@pytest.mark.slow
def test_a_built_wheel_carries_the_default_pack_and_runs_a_debate(tmp_path):
    # a non-editable install: the wheel uv builds from the checkout, unpacked outside it, imported from there
    import zipfile

    uv = shutil.which("uv") or str(Path(sys.executable).parent / "uv")
    if not Path(uv).exists():
        pytest.skip("uv is not installed in this environment")
    src = tmp_path / "src"  # the checkout's files, tracked or new (a build writes build/ and *.egg-info beside them)
    files = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"], cwd=REPO,
                           capture_output=True, text=True, check=True).stdout
    files = "\0".join(rel for rel in files.split("\0") if rel and rel != ".venv" and not rel.startswith(".venv/"))
    for rel in filter(None, files.split("\0")):
        (src / rel).parent.mkdir(parents=True, exist_ok=True)
        if (REPO / rel).is_symlink():
            (src / rel).symlink_to(os.readlink(REPO / rel))
        elif (REPO / rel).is_file():
            shutil.copy2(REPO / rel, src / rel)
    out = subprocess.run([uv, "build", "--wheel", "-o", str(tmp_path / "dist"), str(src)], capture_output=True,
                         text=True, timeout=600)
    assert out.returncode == 0, out.stderr[-2000:]
    wheel = next((tmp_path / "dist").glob("debate_workbench-*.whl"))
    site = tmp_path / "site"
    zipfile.ZipFile(wheel).extractall(site)
    packed = {p.relative_to(site / "debate_core/resources/packs/default") for p in
              (site / "debate_core/resources/packs/default").rglob("*") if p.is_file()}
    mine = {Path(rel).relative_to("data/packs/default") for rel in files.split("\0")
            if rel.startswith("data/packs/default/")}
    assert packed == mine
    for lang in ("en", "zh"):  # the content catalogs (debate_core/i18n.py reads them)
        assert (site / f"debate_core/locales/{lang}/LC_MESSAGES/debate.po").is_file()
    env = {**os.environ, "PYTHONPATH": str(site), "DEBATE_CACHE_DIR": str(tmp_path / "cache")}
    work = tmp_path / "elsewhere"
    work.mkdir()
    code = "import debate_core, sys; from debate_core.cli.main import main; print(debate_core.__file__); sys.exit(main(sys.argv[1:]))"
    r = subprocess.run([sys.executable, "-c", code, "debate", "放生一定有功德吗？", "--archive", str(work / "a.duckdb"),
                        "--quiet"], cwd=work, env=env, capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines()[0].startswith(str(site))  # the unpacked wheel, not the checkout
    assert "放生" in r.stdout
    words = ("from debate_core.i18n import tr, MISSING; from debate_core.research.tools import tool_specs; "
             "print(tr('zh', 'Topic'), tool_specs('zh')[0]['function']['description'][:4], len(MISSING))")
    r = subprocess.run([sys.executable, "-c", words], cwd=work, env=env, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0 and r.stdout.split() == ["辩题", "读取工作", "0"], r.stdout + r.stderr
