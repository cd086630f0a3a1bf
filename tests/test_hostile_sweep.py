"""Hostile input to the CLI (issue 23, item 6 and 7d / 7e / 7j): one ``error:`` line, exit 2, never a traceback.

The first half reproduces each case the audit found: an archive in a read-only folder (``debate``,
``import``), ``export --out`` into a read-only folder, ``/proc`` and ``/dev/null``, JSON numbers
DuckDB cannot hold, debate ids that are not ids, ``--archive`` in a missing folder, and named pipes,
devices and oversized files given to ``import``.

Read-only folders mean nothing to root.  When the tests run as root, the CLI subprocess drops the
capabilities that let root ignore file permissions (``CAP_DAC_OVERRIDE``, ``CAP_DAC_READ_SEARCH``,
``CAP_FOWNER``, from its bounding set before ``exec``): it stays uid 0, which keeps the interpreter
under /root readable, but meets a ``chmod 555`` folder as any user would.  A probe checks that
this holds; where it cannot, those tests skip and say why.

The second half is a hypothesis sweep over CLI argv (every subcommand, random flags and values),
batch spec values and imported JSON values, run in-process through ``debate_core.cli.main.main``:
the exit code is 0, 1 or 2, stderr holds at most one ``error:`` line and never a traceback.
"""

from __future__ import annotations

import contextlib
import copy
import io
import json
import os
import shutil
import subprocess
import sys
import uuid
from pathlib import Path
from typing import Callable, Optional

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.conftest import REPO

CHAN = "禅宗顿悟和净土念佛，到底谁更直接？"


# ------------------------------------------------------------------ helpers


def _drop_file_privileges() -> None:  # pragma: no cover - runs in the child, between fork and exec
    import ctypes

    libc = ctypes.CDLL(None, use_errno=True)
    for cap in (1, 2, 3):  # CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH, CAP_FOWNER
        if libc.prctl(24, cap, 0, 0, 0) != 0:  # PR_CAPBSET_DROP
            raise OSError(ctypes.get_errno(), "prctl(PR_CAPBSET_DROP) failed")


def cli(*args: str, preexec: Optional[Callable] = None, timeout: float = 300, cwd=REPO) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "debate_core", *args], cwd=cwd, capture_output=True, text=True,
                          timeout=timeout, preexec_fn=preexec)


def inproc(*args: str) -> subprocess.CompletedProcess:
    """The CLI run in this process (``main(argv)``), as a CompletedProcess."""
    code, out, err = run_main(list(args))
    return subprocess.CompletedProcess(list(args), code, out, err)


def one_error(out: subprocess.CompletedProcess, code: int = 2) -> str:
    """The one ``error:`` line of a run that failed with ``code`` and no traceback."""
    assert "Traceback" not in out.stderr, out.stderr
    assert out.returncode == code, (out.returncode, out.stderr)
    lines = [ln for ln in out.stderr.splitlines() if ln.strip()]
    errors = [ln for ln in lines if ln.startswith("error:")]
    assert len(errors) == 1, out.stderr
    return errors[0]


@pytest.fixture(scope="module")
def made(tmp_path_factory):
    """An archive holding one offline debate, that debate as a JSON export, and its id."""
    root = tmp_path_factory.mktemp("hostile")
    db = root / "a.duckdb"
    out = cli("debate", CHAN, "--archive", str(db), "--quiet", "--format", "json")
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    (root / "d.json").write_text(out.stdout, encoding="utf-8")
    return {"root": root, "db": db, "id": data["id"], "json": data}


@pytest.fixture
def read_only(tmp_path):
    """A chmod 555 folder and the preexec that makes a CLI subprocess meet it as read-only."""
    folder = tmp_path / "ro"
    folder.mkdir()
    preexec = _drop_file_privileges if os.geteuid() == 0 else None
    yield folder, preexec
    folder.chmod(0o755)


def _lock(folder: Path, preexec) -> None:
    folder.chmod(0o555)
    probe = subprocess.run([sys.executable, "-c", f"open({str(folder / 'probe')!r}, 'w')"], capture_output=True,
                           preexec_fn=preexec)
    if probe.returncode == 0:
        folder.chmod(0o755)
        (folder / "probe").unlink()
        pytest.skip("this process can write a chmod 555 folder (root that cannot drop CAP_DAC_OVERRIDE): run the "
                    "suite as a normal user to check read-only folders")


def _debates_in(db) -> int:
    from debate_core.archive import open_archive

    return int(open_archive(db, create=False).query("SELECT count(*) AS n FROM debates")["n"][0])


# ----------------------------------------------------------- read-only folders


def test_an_archive_in_a_read_only_folder_is_one_line_for_debate_and_import(made, read_only):
    folder, preexec = read_only
    db = folder / "a.duckdb"
    shutil.copy(made["db"], db)
    fresh = _write(folder.parent / "fresh.json", dict(copy.deepcopy(made["json"]), id="fresh0000001"))
    _lock(folder, preexec)
    for args in (("debate", CHAN, "--quiet"), ("import", str(fresh))):
        line = one_error(cli(*args, "--archive", str(db), preexec=preexec))
        assert line.startswith(f"error: archive {db}: its folder {folder} is read-only"), line
        assert "a.duckdb.wal" in line
    folder.chmod(0o755)
    assert _debates_in(db) == 1  # nothing was half-written


def test_export_into_a_read_only_folder_proc_and_dev_null(made, read_only):
    folder, preexec = read_only
    _lock(folder, preexec)
    base = ("export", made["id"], "--archive", str(made["db"]))
    for fmt in ("json", "parquet", "md"):
        target = folder / f"x.{fmt}"
        line = one_error(cli(*base, "--format", fmt, "--out", str(target), preexec=preexec))
        assert line == f"error: {target}: Permission denied", line
    for fmt in ("json", "parquet"):
        line = one_error(inproc(*base, "--format", fmt, "--out", f"/proc/x.{fmt}"))
        assert line == f"error: /proc/x.{fmt}: No such file or directory", line  # was "error: 2"
    line = one_error(inproc(*base, "--format", "debate-dir", "--out", "/dev/null"))
    assert line.startswith("error: /dev/null/") and line.endswith(": Not a directory"), line


# ----------------------------------------------------------------- JSON import


def _write(path: Path, data, raw: Optional[str] = None) -> Path:
    path.write_text(raw if raw is not None else json.dumps(data, ensure_ascii=False, indent=1), encoding="utf-8")
    return path


def test_json_numbers_duckdb_cannot_hold_are_refused_naming_file_field_and_value(made, tmp_path):
    db = tmp_path / "i.duckdb"
    base = copy.deepcopy(made["json"])
    text = json.dumps(dict(base, id="huge"), ensure_ascii=False, indent=1)
    huge = _write(tmp_path / "huge.json", None, text.replace('"planned_rounds": ', '"planned_rounds": ' + "9" * 5000
                                                             + ", \"x\": ", 1))
    r30 = copy.deepcopy(base)
    r30["id"], r30["rounds"][0]["round"] = "r30", 10 ** 30
    p63 = dict(copy.deepcopy(base), id="p63", planned_rounds=2 ** 63)
    cases = {huge: "bad JSON: a whole number of 5,000 digits",
             _write(tmp_path / "round.json", r30): "rounds.0.round: a number of about 31 digits is out of range",
             _write(tmp_path / "planned.json", p63): "planned_rounds: 9223372036854775808 is out of range"}
    for path, says in cases.items():
        line = one_error(inproc("import", str(path), "--archive", str(db)))
        assert line.startswith(f"error: {path}, line ") and says in line, line
    assert _debates_in(db) == 0  # nothing half-written

    # the app imports through import_paths: its error names the file too
    from debate_core.archive import open_archive
    from debate_core.io.importers import ImportFormatError, import_paths

    with pytest.raises(ImportFormatError) as err:
        import_paths(open_archive(db), [tmp_path / "planned.json"])
    assert str(tmp_path / "planned.json") in str(err.value) and "planned_rounds" in str(err.value)


@pytest.mark.parametrize("bad, says", [
    ("", "is empty"),
    ("a\0b", "holds a control or text-direction character (U+0000)"),
    ("ab\u202ecd", "holds a control or text-direction character (U+202E)"),
    ("x" * 100_000, "is 100,000 characters long (at most 128)"),
    ("../..", "holds a path separator"),
    ("../../etc/passwd", "holds a path separator"),
    ("..", "holds '..'"),
    ("a\\b", "holds a path separator"),
])
def test_imported_debate_ids_are_validated(made, tmp_path, bad, says):
    path = _write(tmp_path / "bad-id.json", dict(copy.deepcopy(made["json"]), id=bad))
    db = tmp_path / "i.duckdb"
    line = one_error(inproc("import", str(path), "--archive", str(db)))
    assert line.startswith(f"error: {path}") and "debate id " in line and says in line, line
    assert "\u202e" not in line and "\0" not in line  # the id is shown escaped
    assert _debates_in(db) == 0


# ------------------------------------------------------- the archive's folder


def test_archive_in_a_missing_folder_is_an_error_unless_asked_to_create_it(made, tmp_path):
    deep = tmp_path / "missing" / "deep" / "a.duckdb"
    for args in (("debate", CHAN, "--quiet"), ("import", str(made["root"] / "d.json")),
                 ("batch", str(made["root"] / "d.json"))):
        line = one_error(inproc(*args, "--archive", str(deep)))
        assert line == f"error: --archive {deep}: the folder {deep.parent} does not exist; create it, or pass " \
                       "--create-archive-dir", line
    assert not (tmp_path / "missing").exists()
    out = inproc("import", str(made["root"] / "d.json"), "--archive", str(deep), "--create-archive-dir")
    assert out.returncode == 0, out.stderr
    assert _debates_in(deep) == 1
    listed = inproc("list", "--archive", str(tmp_path / "nowhere" / "a.duckdb"))  # reading creates nothing
    assert listed.returncode == 0 and not (tmp_path / "nowhere").exists()


# ------------------------------------------------- pipes, devices, big files


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no named pipes here")
def test_pipes_devices_and_links_to_them_are_refused_before_opening(tmp_path):
    fifo = tmp_path / "p.json"
    os.mkfifo(fifo)
    zero_json, zero_md = tmp_path / "z.json", tmp_path / "z.md"
    zero_json.symlink_to("/dev/zero")
    zero_md.symlink_to("/dev/zero")
    db = tmp_path / "i.duckdb"
    cases = {fifo: "a named pipe", zero_json: "a character device", zero_md: "a character device",
             Path("/dev/zero"): "a character device"}
    for path, kind in cases.items():
        # in a process of its own for the pipe: an import that opened it would block (killed at the timeout)
        out = cli("import", str(path), "--archive", str(db), timeout=120) if path == fifo else \
            inproc("import", str(path), "--archive", str(db))
        assert one_error(out) == f"error: {path}: {kind}, not a regular file: import reads only files and folders"
    # in a folder, a pipe or device named like a debate file is passed over, never opened
    folder = tmp_path / "folder"
    folder.mkdir()
    os.mkfifo(folder / "q.json")
    (folder / "z.md").symlink_to("/dev/zero")
    out = inproc("import", str(folder), "--archive", str(db))
    assert "nothing to import" in one_error(out)
    # the archive itself may not be a pipe or a device either (DuckDB would block on a pipe)
    for target in (fifo, Path("/dev/zero")):
        line = one_error(inproc("list", "--archive", str(target)))
        assert line == f"error: --archive {target}: not a regular file; give an archive file such as " \
                       "data/archive.duckdb", line


def test_a_file_over_the_import_cap_is_refused_naming_the_cap(made, tmp_path, monkeypatch):
    from debate_core.archive import open_archive
    from debate_core.io.importers import ImportFormatError, import_paths

    monkeypatch.setenv("DEBATE_IMPORT_MAX_FILE_BYTES", "1000")
    path = made["root"] / "d.json"
    with pytest.raises(ImportFormatError) as err:
        import_paths(open_archive(tmp_path / "i.duckdb"), [path])
    text = str(err.value)
    assert text.startswith(f"{path}: the file is ") and "over the cap IMPORT_MAX_FILE_BYTES" in text
    assert "$DEBATE_IMPORT_MAX_FILE_BYTES" in text


# ============================================================ hypothesis sweep


def run_main(argv: list[str]) -> tuple[int, str, str]:
    """``main(argv)`` in this process: (exit code, stdout, stderr).  Anything escaping main fails the test."""
    from debate_core.cli.main import main

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main(argv)
        except SystemExit as exc:  # argparse: --help (0) or a usage error (2)
            code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 2)
    return code, out.getvalue(), err.getvalue()


def assert_tidy(argv: list, code: int, err: str) -> None:
    assert code in (0, 1, 2), (argv, code, err)
    assert "Traceback" not in err, (argv, err)
    errors = [ln for ln in err.splitlines() if ln.startswith("error:")]
    assert len(errors) <= 1, (argv, err)
    if code == 2:
        assert len(errors) == 1 or "usage:" in err, (argv, err)


@pytest.fixture(scope="module")
def sweep(made, tmp_path_factory):
    """Files and folders the sweep points the CLI at: good ones, and hostile ones."""
    root = tmp_path_factory.mktemp("sweep")
    db = root / "a.duckdb"
    shutil.copy(made["db"], db)
    ro = root / "ro"
    ro.mkdir()
    (root / "plain.txt").write_text("not an archive\n", encoding="utf-8")
    (root / "speech.txt").write_text("每个人心中本有觉悟的可能。\n", encoding="utf-8")
    (root / "bad.json").write_text('{"id": ', encoding="utf-8")
    shutil.copy(made["root"] / "d.json", root / "d.json")
    spec = root / "spec.yaml"
    spec.write_text(f"topics: [{CHAN}]\n", encoding="utf-8")
    if hasattr(os, "mkfifo"):
        os.mkfifo(root / "pipe.json")
    (root / "zero.json").symlink_to("/dev/zero")
    paths = [str(db), str(root / "plain.txt"), str(root / "speech.txt"), str(root / "bad.json"), str(root / "d.json"),
             str(spec), str(root / "pipe.json"), str(root / "zero.json"), str(root / "missing" / "x.duckdb"),
             str(root), str(ro / "x.json"), "/dev/null", "/dev/zero", "/proc/x.json", "../..", "", "-",
             str(root / "out"), str(root / "out.parquet")]
    ro.chmod(0o555)
    yield {"root": root, "db": str(db), "paths": paths, "id": made["id"], "spec": str(spec)}
    ro.chmod(0o755)


HOSTILE_TEXT = st.one_of(
    st.sampled_from(["", " ", "0", "-1", "-5", "1e309", "nan", "inf", "9" * 40, "2147483648", "1.5", "auto",
                     "offline", "../..", "a\u202eb", "x" * 600, "%s", "{}", "[]", "'; DROP TABLE debates; --",
                     "SELECT 1", "SELECT * FROM debates", "PIVOT debates ON status", CHAN, "huineng,yinguang",
                     "a|b", "all", "md", "json"]),
    st.text(alphabet=st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00"), max_size=30),
    st.integers(min_value=-10 ** 20, max_value=10 ** 20).map(str),
)
# options that would reach a model over the network, or wait on one: never given a value by the sweep
NETWORKED = {"--model", "--models", "--judge-model", "--check-model", "--api-base", "--judges", "--ray"}
# never drawn either: --force would let an export replace an existing file (as root, even a device)
SKIPPED = NETWORKED | {"--force"}
# commands whose successful run would do real work (a whole debate, a batch, a judge audit)
LONG = {"debate", "batch", "audit"}


def _commands():
    import argparse

    from debate_core.cli.main import build_parser

    parser = build_parser()
    out = {}

    def walk(p, prefix):
        subs = [a for a in p._actions if isinstance(a, argparse._SubParsersAction)]
        if not subs:
            out[" ".join(prefix)] = p
            return
        for name, child in subs[0].choices.items():
            walk(child, prefix + [name])

    walk(parser, [])
    return out


COMMANDS = _commands()


@st.composite
def argvs(draw, paths: list[str], debate_id: str):
    import argparse

    name = draw(st.sampled_from(sorted(COMMANDS)))
    parser = COMMANDS[name]
    argv = name.split()
    value = st.one_of(HOSTILE_TEXT, st.sampled_from(paths), st.just(debate_id))
    for action in parser._actions:
        if isinstance(action, (argparse._HelpAction,)) or action.option_strings and \
                set(action.option_strings) & SKIPPED:
            continue
        if not action.option_strings:  # a positional
            if action.nargs in ("?", "*") and draw(st.booleans()):
                continue
            if name == "check":
                argv.append(draw(st.sampled_from(paths[1:4])))  # never "-": stdin is the test's
                continue
            argv.append(draw(value))
            continue
        if not draw(st.integers(0, 3)) == 0:
            continue
        flag = draw(st.sampled_from(action.option_strings))
        if action.nargs == 0:
            argv.append(flag)
        elif action.choices and draw(st.booleans()):
            argv += [flag, str(draw(st.sampled_from(list(action.choices))))]
        else:
            argv += [flag, draw(value)]
    if name in LONG and "--archive" not in argv:
        argv += ["--archive", draw(st.sampled_from(paths))]
    return argv


# bounded (about a minute in all on a slow machine) and the same examples every run; DEBATE_SWEEP_EXAMPLES=N
# sweeps N random examples per test instead (a deeper search, by hand)
DEEP = int(os.environ.get("DEBATE_SWEEP_EXAMPLES", "0") or 0)
SWEEP = settings(max_examples=DEEP or 150, deadline=None, derandomize=not DEEP,
                 suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow,
                                        HealthCheck.data_too_large])


def _quick_long_run(argv: list[str]) -> bool:
    """A debate, batch or audit the sweep drew that could succeed (and so run for real): left out."""
    name = argv[0]
    if name not in LONG:
        return False
    if "--help" in argv or "-h" in argv:
        return False
    if name == "batch":
        return "--dry-run" not in argv
    return True


def test_sweep_cli_argv(sweep, monkeypatch):
    monkeypatch.chdir(sweep["root"])  # an export with a relative --out lands here, never in the repo
    monkeypatch.setenv("DEBATE_ARCHIVE", sweep["db"])
    monkeypatch.setenv("DEBATE_SQL_TIMEOUT_S", "2")
    seen: set[str] = set()

    @SWEEP
    @given(argvs(sweep["paths"], sweep["id"]))
    def check(argv):
        if _quick_long_run(argv):
            argv = [argv[0], "--help"]
        seen.add(argv[0])
        code, _out, err = run_main(argv)
        assert_tidy(argv, code, err)

    check()
    assert len(seen) >= 10  # the sweep reached most commands


def test_sweep_long_commands_with_hostile_flags_fail_in_one_line(sweep, monkeypatch):
    """debate / batch / audit with hostile values that make them fail before any real work."""
    monkeypatch.chdir(sweep["root"])
    root = sweep["root"]
    cases = [
        ["debate", CHAN, "--archive", str(root / "plain.txt")],
        ["debate", CHAN, "--archive", str(root)],
        ["debate", CHAN, "--archive", "/dev/null"],
        ["debate", "", "--archive", sweep["db"]],
        ["debate", "x" * 100_000, "--archive", sweep["db"]],
        ["debate", CHAN, "--rounds", "-3"],
        ["debate", CHAN, "--rounds", "9" * 50],
        ["debate", CHAN, "--timeout", "nan"],
        ["debate", CHAN, "--protocol", "trial", "--workspace", "/"],
        ["debate", CHAN, "--pack", "/dev/null"],
        ["debate", CHAN, "--masters", "a\u202eb,../.."],
        ["batch", str(root / "zero.json"), "--archive", sweep["db"]],
        ["batch", str(root / "pipe.json"), "--archive", sweep["db"]],
        ["batch", str(root / "bad.json"), "--archive", sweep["db"]],
        ["batch", "/dev/null", "--archive", sweep["db"]],
        ["batch", sweep["spec"], "--archive", str(root / "missing" / "a.duckdb")],
        ["batch", sweep["spec"], "--archive", str(root / "plain.txt")],
        ["batch", sweep["spec"], "--concurrency", "-1"],
        ["audit", "--archive", sweep["db"]],
        ["audit", "--batch", "nope", "--archive", str(root / "missing" / "a.duckdb")],
    ]
    for argv in cases:
        code, _out, err = run_main(argv)
        assert_tidy(argv, code, err)
        assert code == 2, (argv, err)


SPEC_KEYS = ["protocol", "topics", "pairs", "stances", "models", "tournament", "judge_models", "repeats", "swap",
             "concurrency", "rounds", "pack", "api_base", "temperature", "timeout", "max_retries", "check_retries",
             "workspace", "max_speech_length", "lang", "deployments", "fallbacks", "router", "gateway", "audit",
             "audit_variants", "resume", "commit", "processes", "ray", "name", "batch_id", "bogus"]
SPEC_VALUE = st.recursive(
    st.one_of(st.none(), st.booleans(), st.sampled_from([0, 1, 2, 3, -1, 1001, 10 ** 30, 2 ** 63, 1.5, float("nan")]),
              st.sampled_from(["", "master", "topic", "trial", "auto", "all", "canonical", "offline", "zh", "en",
                               "speech", CHAN, "huineng vs yinguang", "../..", "/", "/dev/zero", "a\u202eb",
                               "os.environ/HOME", "redis://u:p@h:1/0", "x" * 300]),
              st.text(max_size=12)),
    lambda inner: st.one_of(st.lists(inner, max_size=3), st.dictionaries(st.sampled_from(
        ["topic", "stances", "pairs", "model_name", "litellm_params", "model", "rpm", "redis_host", "redis_url",
         "num_cpus", "env_vars", "backoff", "x"]), inner, max_size=3)),
    max_leaves=8)


@st.composite
def specs(draw):
    data = {"topics": [CHAN]} if draw(st.booleans()) else {}
    for key in draw(st.lists(st.sampled_from(SPEC_KEYS), max_size=5, unique=True)):
        data[key] = draw(SPEC_VALUE)
    return data


def test_sweep_batch_spec_values(sweep, tmp_path_factory, monkeypatch):
    import yaml

    monkeypatch.chdir(sweep["root"])
    folder = tmp_path_factory.mktemp("specs")

    @SWEEP
    @given(specs(), st.booleans(), st.sampled_from(["yaml", "json"]))
    def check(data, raw_text, kind):
        path = folder / f"s-{uuid.uuid4().hex[:8]}.{kind}"
        if raw_text:  # the file's text itself mangled
            text = yaml.safe_dump(data, allow_unicode=True)
            text = text[: len(text) // 2] + "\n: - [\x01" + text[len(text) // 2:]
        else:
            text = json.dumps(data, ensure_ascii=False) if kind == "json" else yaml.safe_dump(data, allow_unicode=True)
        path.write_text(text, encoding="utf-8")
        argv = ["batch", str(path), "--archive", sweep["db"], "--dry-run", "--format", "json"]
        code, _out, err = run_main(argv)
        assert_tidy(argv, code, err)

    check()


JSON_VALUE = st.one_of(
    st.none(), st.booleans(),
    st.sampled_from([0, -1, 2 ** 31, -(2 ** 31) - 1, 2 ** 63, 10 ** 30, 10 ** 16, 1.5, 1e308]),
    st.integers(min_value=-(10 ** 40), max_value=10 ** 40),
    st.floats(allow_nan=True, allow_infinity=True),
    st.sampled_from(["", "a\0b", "ab\u202ecd", "\ud800", "../..", "x" * 5000, "completed", "running", "zh", "en",
                     "0001-01-01T00:00:00+05:00", "9999-12-31T23:59:59-05:00", "2024-01-01T00:00:00Z", "nope"]),
    st.text(max_size=20),
    st.lists(st.integers(), max_size=3), st.dictionaries(st.text(max_size=5), st.integers(), max_size=2),
)


def _paths_of(data, prefix=()):
    if isinstance(data, dict):
        for k, v in data.items():
            yield prefix + (k,)
            yield from _paths_of(v, prefix + (k,))
    elif isinstance(data, list):
        for i, v in enumerate(data[:3]):
            yield prefix + (i,)
            yield from _paths_of(v, prefix + (i,))


def test_sweep_imported_json_values(sweep, made, tmp_path_factory, monkeypatch):
    monkeypatch.chdir(sweep["root"])
    base = made["json"]
    places = [p for p in _paths_of(base) if p != ("id",)]
    folder = tmp_path_factory.mktemp("json")
    db = str(folder / "sweep.duckdb")

    @settings(max_examples=DEEP or 120, deadline=None, derandomize=not DEEP,
              suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
    @given(st.lists(st.tuples(st.sampled_from(places), JSON_VALUE), min_size=1, max_size=3),
           st.one_of(st.none(), JSON_VALUE))
    def check(changes, new_id):
        data = copy.deepcopy(base)
        data["id"] = uuid.uuid4().hex[:12] if new_id is None else new_id
        for place, value in changes:
            node = data
            try:
                for k in place[:-1]:
                    node = node[k]
                node[place[-1]] = value
            except (KeyError, IndexError, TypeError):
                continue
        path = folder / f"{uuid.uuid4().hex[:8]}.json"
        try:
            text = json.dumps(data, ensure_ascii=False, allow_nan=True)
        except (ValueError, UnicodeEncodeError):
            return
        try:
            path.write_text(text, encoding="utf-8", errors="surrogatepass")
        except UnicodeEncodeError:
            return
        argv = ["import", str(path), "--archive", db, "--format", "json"]
        code, out, err = run_main(argv)
        assert_tidy(argv, code, err)
        if code == 0:  # stored: listing it and exporting it must not fall over either
            debate_id = json.loads(out)[0]["id"]
            for argv in (["export", debate_id, "--archive", db, "--format", "md"],
                         ["export", debate_id, "--archive", db, "--format", "json"],
                         ["list", "--archive", db, "--limit", "3"]):
                code, _out, err = run_main(argv)
                assert_tidy(argv, code, err)

    check()


def test_sweep_a_small_sample_as_real_processes(sweep):
    """A few of the sweep's cases as real processes (the in-process runs share one interpreter)."""
    root = sweep["root"]
    cases = [["import", str(root / "zero.json"), "--archive", sweep["db"]],
             ["export", sweep["id"], "--archive", sweep["db"], "--format", "json", "--out", "/proc/x.json"],
             ["list", "--archive", str(root / "plain.txt")]]
    for argv in cases:
        out = cli(*argv, cwd=root)
        assert_tidy(argv, out.returncode, out.stderr)
