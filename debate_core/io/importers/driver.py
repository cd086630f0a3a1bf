"""Which format a path holds, and the driver: parse every path, then write all new debates at once."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from debate_core.errors import one_line
from debate_core.io.importers import benchmark, json_export, master_md, topic_folder
from debate_core.io.importers.common import ImportFormatError, ImportResult, check_regular, check_values, read_text
from debate_core.models import Debate

TOPIC, MASTER, JSON, BENCHMARK = topic_folder.KIND, master_md.KIND, json_export.KIND, benchmark.KIND


def _expand(path: Path) -> list[tuple[str, Path]]:
    """``(kind, path)`` of every debate a path holds, told by its name and layout."""
    if not path.exists():
        raise ImportFormatError(path, None, "no such file or folder")
    if path.is_dir():
        if benchmark.is_checkout(path):
            return [(BENCHMARK, path)]
        if (path / "debate-log.md").is_file():
            return [(TOPIC, path)]
        found: list[tuple[str, Path]] = []
        for child in sorted(path.iterdir()):
            if child.is_dir() and (child / "debate-log.md").is_file():
                found.append((TOPIC, child))
            elif child.is_dir() and benchmark.is_checkout(child):  # an unpacked zip of a checkout
                found.append((BENCHMARK, child))
            elif child.is_file() and child.suffix.lower() == ".json":
                found.append((JSON, child))
            elif child.is_file() and child.suffix.lower() == ".md" and "## 议题" in read_text(child):
                found.append((MASTER, child))  # other Markdown in the folder (a README) is not a debate
        if not found:
            raise ImportFormatError(path, None, "nothing to import: no <slug>.debate/ folder, .json or .md file")
        return found
    check_regular(path)  # a named pipe, a device (or a link to one) is refused before it is opened
    if path.name in ("debate-log.md", "verdict.md"):
        return [(TOPIC, path.parent)]
    suffix = path.suffix.lower()
    if suffix == ".json":
        return [(JSON, path)]
    if suffix in (".md", ".markdown"):
        return [(MASTER, path)]
    raise ImportFormatError(
        path, None, "unknown format: give a <slug>.debate/ folder, a .md transcript or a .json export"
    )


def parse_path(path: str | Path, *, pack: str | None = None) -> list[tuple[str, Path, Debate]]:
    """Parse one path (file or folder) into debates without touching any archive.  A benchmark
    checkout's malformed files are left out here; :func:`import_paths` reports them."""
    return _parse(Path(path).expanduser(), pack, [], {})


def _parse(
    path: Path, pack: str | None, problems: list[ImportFormatError], sources: dict[str, list[dict]]
) -> list[tuple[str, Path, Debate]]:
    """Every debate ``path`` holds, each checked (its id, and values the archive can store) before
    anything is written; an error names the file."""
    out = []
    try:
        found = _parse_all(path, pack, problems, sources)
    except ImportFormatError:
        raise
    except (ValueError, OverflowError, RecursionError) as exc:  # a parser met a value it cannot take
        raise ImportFormatError(path, None, one_line(exc)) from None
    for kind, p, d in found:
        if kind != JSON:  # a JSON export's debates were checked as they were read (with their lines)
            check_values(p, d)
        out.append((kind, p, d))
    return out


def _parse_all(
    path: Path, pack: str | None, problems: list[ImportFormatError], sources: dict[str, list[dict]]
) -> list[tuple[str, Path, Debate]]:
    out = []
    for kind, p in _expand(path):
        if kind == BENCHMARK:
            found = benchmark.parse_checkout(p)
            problems += found.problems
            sources.setdefault("leaderboards", []).extend(found.leaderboards)
            sources.setdefault("model_names", []).extend(
                {"model": k, "name": v, "source": benchmark.SOURCE} for k, v in found.model_names.items()
            )
            out += [(kind, f, d) for f, d in found.debates]
        elif kind == TOPIC:
            folder_kind, d = topic_folder.parse_folder(p)  # a folder may hold a master transcript
            out.append((folder_kind, p, d))
        elif kind == JSON:
            out += [(kind, p, d) for d in json_export.parse_json(p, read_text(p))]
        else:
            out.append((kind, p, master_md.parse_master_md(p, read_text(p), pack_path=pack)))
    return out


def import_paths(archive, paths: Iterable[str | Path], *, pack: str | None = None) -> list[ImportResult]:
    """Parse every path first, then write all new debates in one transaction.

    A benchmark checkout's malformed files come back as ``skipped`` rows naming the file and
    line; its debates whose judgments changed at the source since they were imported are
    rewritten (``updated``)."""
    parsed: list[tuple[str, Path, Debate]] = []
    problems: list[ImportFormatError] = []
    sources: dict[str, list[dict]] = {}
    for p in paths:
        parsed += _parse(Path(p).expanduser(), pack, problems, sources)
    if not parsed and not problems:
        raise ImportFormatError("(no paths)", None, "nothing to import")
    unique: dict[str, tuple[str, Path, Debate]] = {}
    for item in parsed:
        unique.setdefault(item[2].id, item)
    items = list(unique.values())
    bench_ids = [d.id for k, _, d in items if k == BENCHMARK]
    stored = archive.judgment_counts(bench_ids) if bench_ids else {}
    changed = {d.id for k, _, d in items if k == BENCHMARK and d.id in stored and stored[d.id] != len(d.judgments)}
    fresh = [it for it in items if it[2].id not in changed]
    written = archive.save_many(
        [d for _, _, d in fresh], imported_from=[str(p.resolve()) for _, p, _ in fresh], replace=False, sources=sources
    )
    if changed:
        redo = [it for it in items if it[2].id in changed]
        archive.save_many([d for _, _, d in redo], imported_from=[str(p.resolve()) for _, p, _ in redo])
    results = []
    by_id = {d.id: ok for (_, _, d), ok in zip(fresh, written, strict=False)}
    for kind, p, d in parsed:
        if d.id in changed:
            status = "updated"
            changed.discard(d.id)
        else:
            status = "imported" if by_id.pop(d.id, False) else "exists"
        results.append(ImportResult(path=str(p), kind=kind, id=d.id, topic=d.topic, status=status))
    for exc in problems:
        results.append(ImportResult(path=exc.file, kind=BENCHMARK, id="", topic="", status="skipped", message=str(exc)))
    return results
