"""``python -m debate_core``: a CLI that composes.

Every command prints to stdout (Markdown or JSON with ``--format json``) and
reports bad input as one ``error: …`` line on stderr with a non-zero exit.
Commands register themselves in ``COMMANDS``; each is ``add(subparsers)`` plus a
``run(args) -> int``.
"""

from __future__ import annotations

import argparse
import json
import os
import stat
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, NoReturn

from debate_core.i18n import tr
from debate_core.protocols import registry

if TYPE_CHECKING:
    from debate_core.models import DebateConfig

EXIT_OK, EXIT_FAIL, EXIT_USAGE = 0, 1, 2


def _print_json(data) -> None:
    sys.stdout.write(json.dumps(data, ensure_ascii=False, indent=2, default=str) + "\n")


# --------------------------------------------------------- numbers and errors


class OneLineParser(argparse.ArgumentParser):
    """Bad arguments are one ``error: …`` line naming the command and what is wrong, exit 2."""

    def error(self, message: str) -> NoReturn:
        command = self.prog.removeprefix("python -m debate_core").strip()
        sys.stderr.write(f"error: {command + ': ' if command else ''}{message} (see --help)\n")
        sys.exit(EXIT_USAGE)


def _number(kind: type, low, high, what: str) -> Callable[[str], object]:
    """An argparse type: a ``kind`` (int or float) between ``low`` and ``high`` inclusive, finite;
    anything else is refused by argparse naming the flag and the value given."""

    def parse(text: str):
        try:
            value = kind(text.strip())
        except (TypeError, ValueError):
            raise argparse.ArgumentTypeError(f"{text!r} is not a number: give {what}") from None
        if value != value or value in (float("inf"), float("-inf")) or value < low or value > high:
            raise argparse.ArgumentTypeError(f"{text!r} is out of range: give {what}")
        return value

    parse.__name__ = what  # argparse names the type in some messages
    return parse


MAX_INT = 1_000_000_000


def positive_int(high: int = MAX_INT) -> Callable[[str], object]:
    """Whole numbers 1 … ``high``."""
    return _number(int, 1, high, f"a whole number from 1 to {high:,}")


def count_int(high: int = MAX_INT) -> Callable[[str], object]:
    """Whole numbers 0 … ``high`` (0: none)."""
    return _number(int, 0, high, f"a whole number from 0 to {high:,}")


def positive_float(high: float = 86_400.0) -> Callable[[str], object]:
    """Numbers above 0, up to ``high``."""
    return _number(float, 1e-9, high, f"a number above 0 and at most {high:g}")


def _add_pack(p: argparse.ArgumentParser) -> None:
    p.add_argument("--pack", help="persona pack folder (default: data/packs/default)")


def _add_format(p: argparse.ArgumentParser, choices=("md", "json")) -> None:
    p.add_argument("--format", choices=choices, default=choices[0])


def add_archive_option(p: argparse.ArgumentParser) -> None:
    p.add_argument("--archive", help="archive file (default: $DEBATE_ARCHIVE or data/archive.duckdb)")


CREATE_DIR_HELP = "create the --archive file's folder when it does not exist (without it, a missing folder is an error)"
# the commands that make a new archive file when none is there (the others only read one, or refuse a missing one)
CREATES_ARCHIVE = ("debate", "import", "batch")


def _add_create_dir(parser: argparse.ArgumentParser) -> None:
    """``--create-archive-dir`` on every (sub)command that takes ``--archive``."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for sub in set(action.choices.values()):
                _add_create_dir(sub)
    opts = {o for a in parser._actions for o in a.option_strings}
    if "--archive" in opts and "--create-archive-dir" not in opts:
        parser.add_argument("--create-archive-dir", action="store_true", help=CREATE_DIR_HELP)


def _archive_named(args) -> str | None:
    """The archive a command was pointed at (``--archive``, else $DEBATE_ARCHIVE), when it takes one."""
    if not hasattr(args, "archive"):
        return None
    return getattr(args, "archive", None) or os.environ.get("DEBATE_ARCHIVE") or None


def check_archive_folder(args) -> None:
    """A command that would create a new archive in a folder that does not exist: an error, unless
    ``--create-archive-dir`` asks for the folder (a typo in ``--archive`` never makes a folder tree)."""
    from debate_core.errors import InputError

    named = _archive_named(args)
    if not named:
        return
    path = Path(named).expanduser()
    try:
        mode = path.stat().st_mode
    except OSError:
        mode = None
    if mode is not None and not (stat.S_ISREG(mode) or stat.S_ISDIR(mode)):  # a pipe would block DuckDB
        raise InputError(f"--archive {named}: not a regular file; give an archive file such as data/archive.duckdb")
    if getattr(args, "cmd", None) not in CREATES_ARCHIVE or path.exists():
        return
    folder = path.parent
    if folder.is_dir():
        return
    if folder.exists():
        raise InputError(f"--archive {named}: {folder} is not a folder")
    if not getattr(args, "create_archive_dir", False):
        raise InputError(
            f"--archive {named}: the folder {folder} does not exist; create it, or pass --create-archive-dir"
        )
    folder.mkdir(parents=True, exist_ok=True)


# ----------------------------------------------------------------------- debate


def add_debate(sub) -> None:
    p = sub.add_parser("debate", help="run a debate and print it")
    p.add_argument("topic")
    p.add_argument("--protocol", choices=registry.names(), default="master")
    p.add_argument("--masters", help="two masters for a master debate: slugs or names, comma-separated")
    p.add_argument(
        "--rounds",
        type=positive_int(1000),
        help="master debate: rounds (the last is 综合, so a 反驳 needs at least 3; a value outside the "
        "pack's range is clamped, with a notice); topic debate: 1-3; trial: 1-8",
    )
    p.add_argument("--model", help="litellm model string (default: $DEBATE_MODEL, else the offline engine)")
    p.add_argument("--models", help="topic/trial: one model per debater, comma-separated")
    p.add_argument("--judge-model")
    p.add_argument(
        "--check-model",
        help="master debate: a model that also audits every speech against the rules "
        "(a second, model-graded layer beside the deterministic checks; off by "
        "default)",
    )
    p.add_argument("--stances", help='topic debate: stances separated by "|" (skips the split)')
    p.add_argument("--workspace", help="trial: folder the debaters may read")
    p.add_argument("--api-base", help="OpenAI-compatible server URL (vLLM, Ollama, a litellm proxy)")
    p.add_argument("--timeout", type=positive_float(), default=60.0, help="seconds a model call may take")
    p.add_argument(
        "--lang",
        choices=("zh", "en"),
        help="the debate's language (default: the topic's: CJK means zh, anything else en); "
        "master debates are Chinese only",
    )
    p.add_argument("--quiet", action="store_true", help="no progress on stderr")
    _add_pack(p)
    add_archive_option(p)
    _add_format(p)


def config_from_args(args) -> DebateConfig:
    from debate_core.models import DebateConfig

    masters = [m.strip() for m in args.masters.split(",")] if getattr(args, "masters", None) else []
    models = [m.strip() for m in args.models.split(",") if m.strip()] if getattr(args, "models", None) else []
    stances = [s.strip() for s in args.stances.split("|") if s.strip()] if getattr(args, "stances", None) else []
    return DebateConfig(
        protocol=args.protocol,
        topic=args.topic,
        masters=masters,
        rounds=args.rounds,
        model=args.model,
        models=models,
        judge_model=args.judge_model,
        check_model=getattr(args, "check_model", None),
        api_base=args.api_base,
        timeout=args.timeout,
        pack=args.pack,
        stances=stances,
        workspace=args.workspace,
        lang=getattr(args, "lang", None),
    )


def open_recorder(args):
    """The archive when one is wanted (``--archive`` / $DEBATE_ARCHIVE), else nothing."""
    from debate_core.recorder import NULL_RECORDER

    path = getattr(args, "archive", None) or os.environ.get("DEBATE_ARCHIVE")
    if not path:
        return NULL_RECORDER
    from debate_core.archive import open_archive

    return open_archive(path)


def _progress(args, lang: str | None = None) -> Callable | None:
    """Progress lines on stderr, in the debate's language (``lang``, else read from each speech)."""
    if getattr(args, "quiet", False):
        return None

    def on_speech(speech) -> None:
        if speech.role in MASTER_ROLES:  # a master debate: its progress is Chinese, like the debate
            sys.stderr.write(master_progress_line(speech) + "\n")
            return
        # topic debate and trial: in the debate's language (zh or en), read from the speech's labels
        from debate_core.render.judged import progress_line

        sys.stderr.write(progress_line(speech, lang) + "\n")

    return on_speech


MASTER_ROLES = ("立论", "反驳", "回应", "综合")


def master_progress_line(speech) -> str:
    """``  R1｜鸠摩罗什 立论 完成 ✓ 检查通过`` (or ✗ / ? with the rules' names; 失败 with the cause)."""
    from debate_core.render.master import speech_heading, speech_verdict

    head = "  " + speech_heading(speech)
    if speech.status == "failed":
        return f"{head} 失败：{'；'.join(speech.warnings) or '没有回复'}"
    retried = f"（重写 {speech.retries} 次）" if speech.retries else ""
    return f"{head} 完成{retried} {speech_verdict(speech.findings)}"


def emit_debate(debate, fmt: str) -> None:
    if fmt == "json":
        from debate_core.io.exporters import to_json_dict

        _print_json(to_json_dict(debate))
    else:
        from debate_core.protocols import registry

        sys.stdout.write(registry.get(debate.protocol).render(debate))


def _warn_layer_problems(config, lang: str) -> None:
    """A master debate on a pack whose argument layer has problems says so on stderr, with the first of them:
    each problem leaves an entry (a case, an objection, a reply) out of every debate, which ``pack check`` lists."""
    if config.protocol != "master":
        return
    from debate_core.content.arguments import bank_of
    from debate_core.content.packs import get_pack

    pack = get_pack(config.pack)
    problems = bank_of(pack).problems
    if problems:
        line = tr(
            lang,
            "warning: the pack's argument layer has {n} problem(s), left out of this debate "
            "(`debate pack check {dir}` lists them); the first: {first}",
            n=len(problems),
            dir=pack.path,
            first=problems[0],
        )
        sys.stderr.write(line + "\n")


def run_debate_cmd(args) -> int:
    from debate_core import runs

    config = config_from_args(args)
    recorder = open_recorder(args)
    runner, debate = runs.start(config, recorder)
    _warn_layer_problems(config, debate.lang)
    if getattr(recorder, "path", None) is not None:
        # the CLI's own lines about a debate are in the debate's language
        sys.stderr.write(tr(debate.lang, "debate {id} archived in {path}", id=debate.id, path=recorder.path) + "\n")
        sys.stderr.flush()
    debate = runner.run(debate, on_speech=_progress(args, debate.lang))
    emit_debate(debate, args.format)
    if debate.status == "failed":
        line = tr(debate.lang, "error: {reason} (debate {id})", reason=debate.stop_reason, id=debate.id)
        sys.stderr.write(line + "\n")
        return EXIT_FAIL
    return EXIT_OK


# ------------------------------------------------------------------ pair, masters


def add_pair(sub) -> None:
    p = sub.add_parser("pair", help="which two masters a topic selects, and why")
    p.add_argument("topic")
    p.add_argument("--masters", help="two masters named by the user")
    _add_pack(p)
    add_archive_option(p)
    _add_format(p, ("text", "json"))


def run_pair(args) -> int:
    from debate_core.content.packs import get_pack
    from debate_core.content.pairing import PairError, choose_pair
    from debate_core.settings import validate_topic

    topic = validate_topic(args.topic)
    pack = get_pack(args.pack)
    masters = [m.strip() for m in args.masters.split(",")] if args.masters else None
    try:
        c = choose_pair(topic, pack, masters)
    except PairError as exc:
        raise _Usage(str(exc)) from None
    a, b = pack.masters[c.a], pack.masters[c.b]
    if args.format == "json":
        _print_json(
            {
                "topic": topic,
                "pair": [c.a, c.b],
                "names": [a.name, b.name],
                "rule": c.rule,
                "row": c.row,
                "reason": c.reason,
                "keywords": c.hits,
                "pack": pack.name,
            }
        )
    else:
        print(f"{a.name} ({c.a}) vs {b.name} ({c.b})")
        print(f"rule: {c.rule} — {c.reason}")
        for slug, hits in c.hits.items():
            print(f"  {slug}: {', '.join(hits)}")
    return EXIT_OK


def add_masters(sub) -> None:
    p = sub.add_parser("masters", help="list the masters of a pack")
    _add_pack(p)
    add_archive_option(p)
    _add_format(p, ("text", "json"))


def run_masters(args) -> int:
    from debate_core.content.packs import get_pack

    pack = get_pack(args.pack)
    rows = [m.listing_row() for m in pack.masters.values()]
    if args.format == "json":
        _print_json(rows)
    else:
        print(f"pack {pack.name} {pack.version} — {len(rows)} masters")
        for r in rows:
            print(
                f"{r['slug']:<16} {r['name']:<8} {r['school']} · {r['tradition']} · {r['era']} "
                f"({r['sources']} sources, {r['critiques']} critiques)"
            )
    return EXIT_OK


# ------------------------------------------------------------------------- pack


def add_pack_cmd(sub) -> None:
    p = sub.add_parser("pack", help="persona pack tools")
    psub = p.add_subparsers(dest="pack_cmd", required=True)
    c = psub.add_parser("check", help="validate a pack folder")
    c.add_argument("dir")
    add_archive_option(c)
    _add_format(c, ("text", "json"))


def run_pack(args) -> int:
    from debate_core.content.arguments import bank_of
    from debate_core.content.packs import load_pack
    from debate_core.content.teachings import teaching_report

    pack = load_pack(args.dir)
    r = pack.report
    # the argument layer's problems (a cases file that is not YAML, a reply cited to another's source …): each
    # names its file and what was left out; a debate runs without those entries, so they fail the check
    layer = bank_of(pack).problems
    # What the pack reader took as each master's teaching and what it set aside (and why).
    rows = teaching_report(pack.masters.values())
    if args.format == "json":
        data = r.model_dump(mode="json")
        data["problems"] = [p.model_dump() for p in r.problems]
        data["teachings"] = rows
        data["argument_layer_problems"] = layer
        _print_json(data)
    else:
        print(f"pack {r.name} {r.version} at {r.path}")
        print(
            f"masters: {r.masters}  critiques: {r.critiques}  pairs_both_ways: {r.pairs_both_ways}  "
            f"one_way: {r.one_way}  errors: {r.errors}  warnings: {r.warnings}"
        )
        for p in r.problems:
            print(f"  {p}")
        if layer:
            print(f"argument layer: {len(layer)} problem(s), those entries left out:")
            for line in layer:
                print(f"  {line}")
        print("teaching units per master (only these reach an offline speech):")
        for row in rows:
            aside = row["set_aside"]
            counts = ", ".join(f"{k} {v}" for k, v in aside.items()) or "none"
            uncited = f", {row['without_source']} without a source" if row["without_source"] else ""
            print(
                f"  {row['slug']}: {row['teachings']} teaching units{uncited}; "
                f"set aside {sum(aside.values())} ({counts})"
            )
            for ex in row["examples"][:4]:
                print(f"    {ex['file']}:{ex['line']} [{ex['reason']}] {ex['text']}")
    return EXIT_OK if r.errors == 0 and not layer else EXIT_FAIL


# ------------------------------------------------------------------- dispatch


class _Usage(Exception):
    pass


COMMANDS: dict[str, tuple[Callable, Callable]] = {
    "debate": (add_debate, run_debate_cmd),
    "pair": (add_pair, run_pair),
    "masters": (add_masters, run_masters),
    "pack": (add_pack_cmd, run_pack),
}


def _load_extra_commands() -> None:
    """Commands defined next to what they drive (archive, batch) register here."""
    import importlib

    for mod in (
        "debate_core.cli.archive",
        "debate_core.cli.batch",
        "debate_core.cli.check",
        "debate_core.cli.research",
    ):
        try:
            m = importlib.import_module(mod)
        except ModuleNotFoundError as exc:
            if exc.name == mod:
                continue
            raise
        COMMANDS.update(getattr(m, "COMMANDS", {}))


def build_parser() -> argparse.ArgumentParser:
    _load_extra_commands()
    parser = OneLineParser(
        prog="python -m debate_core", description="Debate Workbench: run, archive and analyse LLM debates."
    )
    sub = parser.add_subparsers(dest="cmd", required=True)
    for add, _ in COMMANDS.values():
        add(sub)
    _add_create_dir(parser)
    return parser


TRACEBACK_ENV = "DEBATE_TRACEBACK"  # set to 1: an unexpected error shows its traceback instead of one line


def os_error_line(exc: OSError) -> str:
    """``<path>: <reason>`` for a file-system error (``/proc/x.json: No such file or directory``)."""
    reason = exc.strerror or (str(exc.args[-1]) if exc.args else "") or type(exc).__name__
    where = exc.filename
    if where is not None and exc.filename2 is not None:
        where = f"{exc.filename} -> {exc.filename2}"
    return f"{where}: {reason}" if where is not None else reason


def _archive_error_line(exc: BaseException, args) -> str:
    """One line for an error DuckDB raised while the command used its archive, naming the archive
    (and its folder, when the folder is read-only: DuckDB writes ``<file>.wal`` beside the file)."""
    from debate_core.errors import one_line

    text = one_line(exc)
    named = _archive_named(args)
    if not named:
        from debate_core.archive.connection import default_archive_path

        named = str(default_archive_path())
    path = Path(named).expanduser()
    folder = path.parent
    if folder.is_dir() and not os.access(folder, os.W_OK):
        return (
            f"archive {path}: its folder {folder} is read-only, so the archive cannot be written "
            f"(DuckDB keeps {path.name}.wal beside it): {text}"
        )
    if path.exists() and not os.access(path, os.W_OK):
        return f"archive {path}: the file is read-only, so it cannot be written: {text}"
    return f"archive {path}: {text}"


def _is_duckdb_error(exc: BaseException) -> bool:
    return any(k.__module__.split(".")[0] in ("duckdb", "_duckdb") and k.__name__ == "Error" for k in type(exc).__mro__)


def main(argv: list[str] | None = None) -> int:
    from debate_core.content.packs import PackError
    from debate_core.engines.gateway import ConfigError, GatewayError
    from debate_core.errors import InputError

    parser = build_parser()
    args = parser.parse_args(argv)
    _, run = COMMANDS[args.cmd]
    try:
        check_archive_folder(args)
        return run(args)
    except (InputError, ConfigError, PackError, _Usage, KeyError) as exc:
        msg = exc.args[0] if exc.args else str(exc)
        _error(msg)
        return EXIT_USAGE
    except GatewayError as exc:
        _error(f"model call failed: {exc.cause}")
        return EXIT_FAIL
    except BrokenPipeError:
        return EXIT_OK
    except OSError as exc:  # a file or folder the command could not read or write: which, and why
        _error(os_error_line(exc))
        return EXIT_USAGE
    except KeyboardInterrupt:
        sys.stderr.write("interrupted\n")
        return 130
    except Exception as exc:  # noqa: BLE001 - a last line of defence: one line, no traceback
        name = type(exc).__name__
        if name in ("ArchiveError", "ImportFormatError", "SqlRefused"):
            _error(str(exc))
            return EXIT_USAGE
        if _is_duckdb_error(exc):
            _error(_archive_error_line(exc, args))
            return EXIT_USAGE
        if os.environ.get(TRACEBACK_ENV, "").strip() not in ("", "0"):
            raise
        from debate_core.errors import one_line

        _error(f"{one_line(exc)} ({name}; set {TRACEBACK_ENV}=1 to see where)")
        return EXIT_USAGE


def _error(msg) -> None:
    """The one ``error: …`` line (a message of several lines is folded into one)."""
    text = " ".join(str(msg).split("\n")).strip() or "unknown error"
    sys.stderr.write(f"error: {text}\n")
