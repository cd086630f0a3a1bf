"""Archive commands for ``python -m debate_core``: resume, retry, import, export, list, sql, coverage, reindex.

Loaded by :func:`debate_core.cli._load_extra_commands`.  Every command takes
``--archive FILE`` (else ``$DEBATE_ARCHIVE``, else ``data/archive.duckdb``) and
reports problems as one ``error: …`` line with exit status 2.
"""

from __future__ import annotations

import sys
from pathlib import Path

from debate_core import runs
from debate_core.cli.main import (
    EXIT_FAIL,
    EXIT_OK,
    EXIT_USAGE,
    _add_pack,
    _print_json,
    _progress,
    add_archive_option,
    emit_debate,
)
from debate_core.io.exporters import export_debate
from debate_core.io.importers import import_paths
from debate_core.protocols import registry


def _open(args, *, create: bool = True):
    from debate_core.archive import open_archive

    return open_archive(getattr(args, "archive", None), create=create)


def _guard(run):
    """Archive errors become one ``error: …`` line and exit status 2."""

    def wrapped(args) -> int:
        from debate_core.archive import ArchiveError
        from debate_core.io.importers import ImportFormatError

        try:
            return run(args)
        except (ArchiveError, ImportFormatError) as exc:
            sys.stderr.write(f"error: {exc}\n")
            return EXIT_USAGE

    return wrapped


# ------------------------------------------------------------- resume / retry


def _add_continue(sub, name: str, help_: str) -> None:
    p = sub.add_parser(name, help=help_)
    p.add_argument("id", help="debate id (see `list`)")
    p.add_argument("--format", choices=("md", "json"), default="md")
    p.add_argument("--quiet", action="store_true", help="no progress on stderr")
    _add_pack(p)
    add_archive_option(p)


def add_resume(sub) -> None:
    _add_continue(sub, "resume", "finish an interrupted, stopped or failed debate from its first round not done")


def add_retry(sub) -> None:
    _add_continue(sub, "retry", "rerun the failed round of a debate, alone")


def _continue(args, only_one: bool) -> int:
    archive = _open(args, create=False)
    if only_one:
        debate = runs.retry(archive, args.id, pack=args.pack, on_speech=_progress(args))
    else:
        debate = runs.resume(archive, args.id, pack=args.pack, on_speech=_progress(args))
    emit_debate(debate, args.format)
    sys.stderr.write(f"debate {debate.id}: {debate.status} ({debate.stop_reason})\n")
    return EXIT_FAIL if debate.status == "failed" else EXIT_OK


@_guard
def run_resume(args) -> int:
    return _continue(args, only_one=False)


@_guard
def run_retry(args) -> int:
    return _continue(args, only_one=True)


# ------------------------------------------------------------ import / export


def add_import(sub) -> None:
    p = sub.add_parser(
        "import",
        help="import <slug>.debate/ folders, master-debate Markdown, JSON exports, or a "
        "debate benchmark checkout (transcripts/ + reports/, the lechmazur/debate layout)",
    )
    p.add_argument("paths", nargs="+", metavar="PATH")
    p.add_argument("--format", choices=("text", "json"), default="text")
    _add_pack(p)
    add_archive_option(p)


@_guard
def run_import(args) -> int:
    archive = _open(args)
    results = import_paths(archive, args.paths, pack=args.pack)
    skipped = [r for r in results if r.status == "skipped"]
    if args.format == "json":
        _print_json([r.as_dict() for r in results])
    else:
        for r in results:
            if r.status != "skipped":
                print(f"{r.status:<8} {r.id}  {r.kind:<12} {r.topic}  ({r.path})")
    for r in skipped:  # a malformed file: named with its line, skipped whole, the rest imported
        sys.stderr.write(f"skipped: {r.message}\n")
    return EXIT_FAIL if skipped else EXIT_OK


def add_export(sub) -> None:
    from debate_core.io.exporters import FORMATS

    p = sub.add_parser("export", help="export one debate (md, json, ipynb, html, parquet, debate-dir)")
    p.add_argument("id", help="debate id; with --format parquet, `all` exports every table whole")
    p.add_argument(
        "--format",
        choices=FORMATS,
        default="md",
        help="html: one self-contained page for reading and print (no external request)",
    )
    p.add_argument(
        "--plain",
        action="store_true",
        help="with --format md: the seed's transcript exactly (a master debate: headings, speeches and "
        "the observation; no check lines, citation checks or footer)",
    )
    p.add_argument("--out", help="file (md/json/ipynb/html) or folder (parquet, debate-dir); default stdout / here")
    p.add_argument("--force", action="store_true", help="overwrite files that already exist (never without it)")
    add_archive_option(p)


def _export_safely(archive, debate_id: str, fmt: str, out: str, force: bool, **options):
    """Export into a fresh folder first, then move the files into place: an existing file is
    never touched unless ``force``.  Returns the path written (as the exporter names it)."""
    import shutil
    import tempfile

    from debate_core.archive import ArchiveError

    dest = Path(out).expanduser().resolve()
    # an existing folder receives the export inside it, except a <slug>.debate folder, which is the target itself
    into_dir = dest.is_dir() and not (fmt == "debate-dir" and dest.name.endswith(".debate"))
    dest_root = dest if into_dir else dest.parent
    with tempfile.TemporaryDirectory(prefix="debate-export-") as tmp:
        tmp_root = Path(tmp).resolve()
        result = Path(
            export_debate(archive, debate_id, fmt, tmp_root if into_dir else tmp_root / dest.name, **options)
        ).resolve()
        files = sorted(p for p in tmp_root.rglob("*") if p.is_file())
        targets = [(f, dest_root / f.relative_to(tmp_root)) for f in files]
        clash = [t for _f, t in targets if t.exists()]
        if clash and not force:
            more = f" (and {len(clash) - 1} more)" if len(clash) > 1 else ""
            raise ArchiveError(
                f"export: {clash[0]} already exists{more}; nothing was written. "
                "Pass --force to overwrite, or choose another --out"
            )
        for f, t in targets:
            t.parent.mkdir(parents=True, exist_ok=True)
            shutil.move(str(f), str(t))
        return dest_root / result.relative_to(tmp_root)


@_guard
def run_export(args) -> int:
    archive = _open(args, create=False)
    out = args.out
    if out is None and args.format == "debate-dir":
        out = "."  # <slug>.debate/ here
    elif out is None and args.format == "parquet":
        out = f"{'archive' if args.id == 'all' else args.id}.parquet"
    options = {"plain": args.plain}
    if args.format == "html":
        from debate_core.analysis.ledger import build_ledger

        options["ledger_of"] = build_ledger  # the page's analysis shows the argument ledger
    if out is not None:
        result = _export_safely(archive, args.id, args.format, out, args.force, **options)
    else:
        result = export_debate(archive, args.id, args.format, None, **options)  # md / json / ipynb / html on stdout
    if isinstance(result, str):
        sys.stdout.write(result if result.endswith("\n") else result + "\n")
    else:
        sys.stderr.write(f"wrote {result}\n")
        if args.format == "debate-dir" and args.id != "all":
            _topic_wrap_up(archive, args.id, result)
    return EXIT_OK


def _topic_wrap_up(archive, debate_id: str, folder) -> None:
    """After a debate's folder is written: its protocol's wrap-up (the topic seed's), naming the folder and the
    archive."""
    debate = archive.get_debate(debate_id)
    wrap_up = registry.get(debate.protocol).wrap_up
    if wrap_up is not None:
        sys.stderr.write(wrap_up(debate, archive=str(archive.path), export=str(folder)))


# ------------------------------------------------------------------- list


def add_list(sub) -> None:
    from debate_core.cli.main import positive_int

    p = sub.add_parser("list", help="list archived debates, newest first")
    p.add_argument("--protocol", choices=registry.stored_names())
    p.add_argument("--master", help="a participant slug, label or name")
    p.add_argument("--model")
    p.add_argument("--status", choices=("running", "completed", "failed", "stopped", "interrupted"))
    p.add_argument("--from", dest="date_from", metavar="DATE", help="created on or after (YYYY-MM-DD)")
    p.add_argument("--to", dest="date_to", metavar="DATE", help="created on or before (YYYY-MM-DD)")
    p.add_argument("--text", help="text in the topic or any speech")
    p.add_argument("--lang", choices=("zh", "en"), help="debates speaking this language")
    p.add_argument("--limit", type=positive_int(), default=500, help="at most this many debates (default 500)")
    p.add_argument("--format", choices=("text", "json"), default="text")
    add_archive_option(p)


def _jsonable(value):
    import math

    import pandas as pd

    if value is None:
        return None
    if isinstance(value, float) and math.isnan(value):
        return None
    if isinstance(value, pd.Timestamp):
        return None if pd.isna(value) else value.isoformat()
    if hasattr(value, "tolist"):
        return value.tolist()
    if hasattr(value, "isoformat"):
        return value.isoformat()
    return value


def _master_slug(name):
    """A master named by a common name (六祖, 罗什, 智者大师) is looked up by its slug in the default pack."""
    if not name:
        return name
    try:
        from debate_core.content.aliases import resolve_name
        from debate_core.content.packs import get_pack

        return resolve_name(get_pack(None), name) or name
    except Exception:  # noqa: BLE001 - no default pack here: match the name as given
        return name


@_guard
def run_list(args) -> int:
    from debate_core.archive import default_archive_path

    path = Path(args.archive).expanduser() if args.archive else default_archive_path()
    if not path.exists():  # nothing archived yet: an empty list, and no file is created
        if args.format == "json":
            _print_json([])
        else:
            print(f"no debates in {path} (no archive there yet)")
        return EXIT_OK
    archive = _open(args, create=False)
    df = archive.list_debates(
        protocol=args.protocol,
        master=_master_slug(args.master),
        model=args.model,
        status=args.status,
        date_from=args.date_from,
        date_to=args.date_to,
        text=args.text,
        limit=args.limit,
        lang=args.lang,
    )
    if args.format == "json":
        rows = []
        for rec in df.to_dict(orient="records"):
            row = {k: _jsonable(v) for k, v in rec.items()}
            if row.get("created_at") and not str(row["created_at"]).endswith(("Z", "+00:00")):
                row["created_at"] = str(row["created_at"]) + "Z"
            rows.append(row)
        _print_json(rows)
        return EXIT_OK
    if not len(df):
        print(f"no debates in {archive.path}")
        return EXIT_OK
    for r in df.itertuples():
        who = " vs ".join(r.participants)
        when = r.created_at.strftime("%Y-%m-%d %H:%M") if r.created_at is not None else ""
        print(f"{r.id}  {when}  {r.protocol:<6} {r.status:<11} {r.rounds}/{r.planned_rounds}  {who}  {r.topic}")
    return EXIT_OK


# -------------------------------------------------------------------- sql


def add_sql(sub) -> None:
    from debate_core.cli.main import positive_int

    p = sub.add_parser(
        "sql", help="run one read-only SELECT over the archive (bounded by the SQL_* caps, docs/security.md)"
    )
    p.add_argument("query")
    p.add_argument("--format", choices=("text", "json", "csv"), default="text")
    p.add_argument("--max-rows", type=positive_int(), default=10_000, help="at most this many rows (default 10,000)")
    add_archive_option(p)


@_guard
def run_sql(args) -> int:
    from debate_core.archive import default_archive_path, run_readonly_sql

    path = Path(args.archive).expanduser() if args.archive else default_archive_path()
    df = run_readonly_sql(path, args.query, max_rows=args.max_rows)
    if args.format == "json":
        _print_json([{k: _jsonable(v) for k, v in rec.items()} for rec in df.to_dict(orient="records")])
    elif args.format == "csv":
        sys.stdout.write(df.to_csv(index=False))
    else:
        import pandas as pd

        with pd.option_context("display.max_rows", None, "display.max_columns", None, "display.width", 200):
            print(df.to_string(index=False) if len(df.columns) else "(no result)")
    return EXIT_OK


# --------------------------------------------------------------- coverage


def add_coverage(sub) -> None:
    p = sub.add_parser("coverage", help="cross-critique coverage matrix and gaps of a pack")
    _add_pack(p)
    p.add_argument("--debate", help="use the pack snapshot stored with this archived debate")
    p.add_argument("--format", choices=("text", "json"), default="text")
    add_archive_option(p)


@_guard
def run_coverage(args) -> int:
    from debate_core.archive import default_archive_path
    from debate_core.content.coverage import coverage_gaps, coverage_matrix, matrix_json, render_text

    archive = None
    path = Path(args.archive).expanduser() if args.archive else default_archive_path()
    if args.debate or path.is_file():
        archive = _open(args, create=False)
    if args.debate and archive is not None:  # (a debate's coverage always opens the archive)
        matrix, gaps = archive.coverage_snapshot(debate_id=args.debate)
    else:
        from debate_core.content.packs import get_pack

        pack = get_pack(args.pack)
        matrix, gaps = coverage_matrix(pack), coverage_gaps(pack)
    degraded = None
    if archive is not None:
        df = archive.degraded_pairs()
        degraded = [
            {"pair": r.pair, "a": r.a, "b": r.b, "debates": int(r.debates), "last_at": _jsonable(r.last_at)}
            for r in df.itertuples()
        ]
    if args.format == "json":
        _print_json(
            {
                "pack": gaps.get("pack"),
                "masters": list(matrix.index),
                "matrix": matrix_json(matrix),
                "gaps": {k: v for k, v in gaps.items() if k != "pack"},
                "degraded_pairs": degraded,
            }
        )
    else:
        sys.stdout.write(render_text(matrix, gaps, degraded))
    return EXIT_OK


# --------------------------------------------------------------- reindex


def add_reindex(sub) -> None:
    p = sub.add_parser("reindex", help="bring the text-search index up to date (or rebuild it with --full)")
    p.add_argument("--full", action="store_true", help="drop the index and build it again from every speech")
    p.add_argument("--format", choices=("text", "json"), default="text")
    add_archive_option(p)


@_guard
def run_reindex(args) -> int:
    import time

    from debate_core.archive import text_index

    archive = _open(args, create=False)
    t0 = time.perf_counter()
    indexed = archive.refresh_search_index(full=args.full, minimum=1)
    status = archive.search_index_status()
    status.update(indexed=indexed, seconds=round(time.perf_counter() - t0, 3))
    if args.format == "json":
        _print_json(status)
    else:
        print(
            f"indexed {indexed:,} speeches in {status['seconds']:.1f} s; the index covers speech numbers "
            f"below {status['covered_to']:,} in {status['runs']} run(s) of {status['postings']:,} postings; "
            f"{status['waiting']:,} speech(es) past it are scanned directly (the index takes whole groups of "
            f"{text_index.GROUP} speech numbers)"
        )
    return EXIT_OK


COMMANDS = {
    "resume": (add_resume, run_resume),
    "retry": (add_retry, run_retry),
    "import": (add_import, run_import),
    "export": (add_export, run_export),
    "list": (add_list, run_list),
    "sql": (add_sql, run_sql),
    "coverage": (add_coverage, run_coverage),
    "reindex": (add_reindex, run_reindex),
}

__all__ = ["COMMANDS"]
