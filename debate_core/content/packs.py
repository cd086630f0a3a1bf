"""Persona packs in the Master-skill layout: loading and validation.

Layout of a pack folder::

    pack.json                      optional {"name", "version"}
    master-<slug>/meta.json        one persona (see models.Master)
    master-<slug>/sources/*.md     excerpt files: "## theme" sections with bullets
    master-<slug>/references/voice.md, teaching.md
    master-debate/meta.json        {"debate_protocol": {...}}

Loading never stops at the first problem: every problem becomes a
:class:`~debate_core.models.Problem` naming file, field and value, and a broken
master file does not stop the others from loading.
"""

from __future__ import annotations

import json
import re
from functools import lru_cache
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from debate_core.content.aliases import apply_default_aliases
from debate_core.content.teachings import read_master
from debate_core.errors import PackError
from debate_core.models import DebateProtocol, Excerpt, Master, Pack, PackReport, Problem

# The project's own pack: data/packs/default in a checkout; in an installed wheel, the copy it carries
# (debate_core/resources/packs/default, which in the checkout is a link to data/packs/default).
_CHECKOUT_PACK = Path(__file__).resolve().parents[2] / "data" / "packs" / "default"
_WHEEL_PACK = Path(__file__).resolve().parents[1] / "resources" / "packs" / "default"
DEFAULT_PACK = _CHECKOUT_PACK if _CHECKOUT_PACK.is_dir() else _WHEEL_PACK
PROTOCOL_DIR = "master-debate"
MAX_META_BYTES = 2_000_000


def pair_key(a: str, b: str) -> str:
    """Sort the two slugs, then join with ``-vs-`` (slugs may contain hyphens)."""
    x, y = sorted((a, b))
    return f"{x}-vs-{y}"


def _rel(path: Path, root: Path) -> str:
    try:
        return str(path.relative_to(root))
    except ValueError:
        return str(path)


def _short(value: Any, limit: int = 80) -> str:
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=str)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _read_json(path: Path, root: Path, problems: list[Problem]) -> dict | None:
    rel = _rel(path, root)
    try:
        size = path.stat().st_size
        if size > MAX_META_BYTES:
            problems.append(Problem(file=rel, message=f"file is {size} bytes, over the {MAX_META_BYTES} byte limit"))
            return None
        raw = path.read_bytes()
        text = raw.decode("utf-8-sig")  # a BOM from a Windows editor is not an error
    except UnicodeDecodeError as exc:
        problems.append(Problem(file=rel, message=f"not UTF-8 text: {exc.reason} at byte {exc.start}"))
        return None
    except OSError as exc:
        problems.append(Problem(file=rel, message=f"cannot read: {exc.strerror}"))
        return None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        problems.append(
            Problem(file=rel, field=f"line {exc.lineno} column {exc.colno}", message=f"bad JSON: {exc.msg}")
        )
        return None
    except RecursionError:
        problems.append(Problem(file=rel, message="bad JSON: nested too deeply"))
        return None
    except ValueError as exc:  # e.g. an integer past Python's 4300-digit limit
        problems.append(Problem(file=rel, message=f"bad JSON: {str(exc).split(';')[0]}"))
        return None
    try:
        json.dumps(data, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError as exc:
        problems.append(
            Problem(
                file=rel,
                value=ascii(exc.object[exc.start : exc.end]),
                message="text holds a \\u escape that is not a Unicode character (a lone surrogate)",
            )
        )
        return None
    except (RecursionError, ValueError):
        problems.append(Problem(file=rel, message="bad JSON: nested too deeply"))
        return None
    if not isinstance(data, dict):
        problems.append(Problem(file=rel, value=_short(data), message="top level must be a JSON object"))
        return None
    return data


def _validation_problems(exc: ValidationError, rel: str) -> list[Problem]:
    out = []
    for err in exc.errors():
        field = ".".join(str(p) for p in err.get("loc", ()))
        kind = err.get("type", "")
        msg = "missing required field" if kind == "missing" else err.get("msg", "invalid")
        value = "" if kind == "missing" else _short(err.get("input"))
        out.append(Problem(file=rel, field=field, value=value, message=msg))
    return out


_SECTION_RE = re.compile(r"^##\s+(.+?)\s*$", re.M)
_SOURCE_LINE_RE = re.compile(r"^\s*(?:来源|出处|source)\s*[：:]\s*(\S+)", re.M | re.I)


def parse_excerpts(path: Path, source_ids: list[str], root: Path, problems: list[Problem]) -> list[Excerpt]:
    """Parse one ``sources/*.md`` file into themed excerpts.

    A section is a ``## heading``; its source id is an explicit ``来源：ID`` line,
    else the first of the master's source ids named in the section; its points are
    the ``- `` bullets.
    """
    rel = _rel(path, root)
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError as exc:
        problems.append(Problem(file=rel, message=f"cannot read: {exc.strerror}", severity="warning"))
        return []
    out: list[Excerpt] = []
    starts = [m for m in _SECTION_RE.finditer(text)]
    for i, m in enumerate(starts):
        body = text[m.end() : starts[i + 1].start() if i + 1 < len(starts) else len(text)]
        sid = ""
        explicit = _SOURCE_LINE_RE.search(body)
        if explicit:
            sid = explicit.group(1).strip("【】[]（）()，,。")
            if sid not in source_ids:
                problems.append(
                    Problem(
                        file=rel,
                        field=f"## {m.group(1)} / 来源",
                        value=sid,
                        message="excerpt cites an id that is not in this master's sources[].id",
                    )
                )
        else:
            sid = next((s for s in source_ids if s and s in body), "")
        points = []
        for line in body.splitlines():
            line = line.strip()
            if line.startswith(("- ", "* ")):
                p = line[2:].replace("**", "").strip().strip('"“”')
                if p:
                    points.append(p)
        out.append(Excerpt(file=path.name, heading=m.group(1).strip(), source_id=sid, points=points, text=body.strip()))
    return out


def _load_master(folder: Path, root: Path, problems: list[Problem]) -> Master | None:
    meta_path = folder / "meta.json"
    rel = _rel(meta_path, root)
    data = _read_json(meta_path, root, problems)
    if data is None:
        return None
    try:
        master = Master.model_validate(data)
    except ValidationError as exc:
        problems.extend(_validation_problems(exc, rel))
        return None
    expected = folder.name[len("master-") :]
    if master.slug != expected:
        problems.append(
            Problem(
                file=rel,
                field="slug",
                value=master.slug,
                message=f"slug does not match folder name (expected {expected!r})",
            )
        )
        return None
    seen: set[str] = set()
    for i, src in enumerate(master.sources):
        if src.id in seen:
            problems.append(
                Problem(
                    file=rel, field=f"sources[{i}].id", value=src.id, message="duplicate source id", severity="warning"
                )
            )
        seen.add(src.id)
    for i, kw in enumerate(master.search_scope.keywords):
        if not isinstance(kw, str) or not kw.strip():
            problems.append(
                Problem(
                    file=rel,
                    field=f"search_scope.keywords[{i}]",
                    value=_short(kw),
                    message="empty keyword",
                    severity="warning",
                )
            )
    ids = master.source_ids
    src_dir = folder / "sources"
    if src_dir.is_dir():
        for md in sorted(src_dir.glob("*.md")):
            if md.name.upper() == "INDEX.MD":
                continue
            master.excerpts.extend(parse_excerpts(md, ids, root, problems))
    read_master(master, folder, root)  # teachings and set-aside material (debate_core/teachings.py)
    for name, attr in (("voice.md", "voice_notes"), ("teaching.md", "teaching_notes")):
        p = folder / "references" / name
        if p.is_file():
            setattr(master, attr, p.read_text(encoding="utf-8", errors="replace"))
    return master


def _load_protocol(root: Path, problems: list[Problem]) -> tuple[DebateProtocol, str]:
    path = root / PROTOCOL_DIR / "meta.json"
    if not path.is_file():
        problems.append(
            Problem(file=_rel(path, root), message="no debate protocol file; using defaults", severity="warning")
        )
        return DebateProtocol(), ""
    data = _read_json(path, root, problems)
    if data is None:
        return DebateProtocol(), ""
    rel = _rel(path, root)
    raw = data.get("debate_protocol")
    if not isinstance(raw, dict):
        problems.append(
            Problem(file=rel, field="debate_protocol", value=_short(raw), message="missing or not an object")
        )
        return DebateProtocol(), str(data.get("version", ""))
    try:
        proto = DebateProtocol.model_validate(raw)
    except ValidationError as exc:
        problems.extend(_validation_problems(exc, rel))
        return DebateProtocol(), str(data.get("version", ""))
    return proto, str(data.get("version", ""))


def _check_protocol(proto: DebateProtocol, masters: dict[str, Master], root: Path, problems: list[Problem]) -> None:
    rel = f"{PROTOCOL_DIR}/meta.json"
    if not (proto.min_rounds <= proto.default_rounds <= proto.max_rounds) or proto.min_rounds < 1:
        problems.append(
            Problem(
                file=rel,
                field="debate_protocol.default_rounds",
                value=str(proto.default_rounds),
                message=f"must lie in [min_rounds, max_rounds] = [{proto.min_rounds}, {proto.max_rounds}]",
            )
        )
    for key, ov in proto.per_pair_overrides.items():
        field = f"debate_protocol.per_pair_overrides.{key}"
        parts = _split_known(key, masters)
        if parts is None:
            problems.append(
                Problem(file=rel, field=field, value=key, message="key does not name two known master slugs")
            )
        elif pair_key(*parts) != key:
            problems.append(
                Problem(
                    file=rel,
                    field=field,
                    value=key,
                    message=f"slugs must be sorted before joining (expected {pair_key(*parts)!r})",
                )
            )
        if not proto.min_rounds <= ov.default_rounds <= proto.max_rounds:
            problems.append(
                Problem(
                    file=rel,
                    field=field + ".default_rounds",
                    value=str(ov.default_rounds),
                    message=f"rounds outside [min_rounds, max_rounds] = [{proto.min_rounds}, {proto.max_rounds}]",
                )
            )


def _split_known(key: str, masters: dict[str, Master]) -> tuple[str, str] | None:
    """Split ``a-vs-b`` where a and b are known slugs (slugs may contain -vs-? no, but may contain -)."""
    for slug in masters:
        if key.startswith(slug + "-vs-"):
            rest = key[len(slug) + 4 :]
            if rest in masters and rest != slug:
                return slug, rest
    return None


def _check_critiques(masters: dict[str, Master], root: Path, problems: list[Problem]) -> None:
    for slug, m in masters.items():
        rel = f"master-{slug}/meta.json"
        ids = set(m.source_ids)
        for i, c in enumerate(m.cross_critique):
            field = f"cross_critique[{i}]"
            if c.target_master == slug:
                problems.append(
                    Problem(
                        file=rel,
                        field=field + ".target_master",
                        value=c.target_master,
                        message="a critique cannot target the speaker itself",
                    )
                )
            elif c.target_master not in masters:
                problems.append(
                    Problem(
                        file=rel, field=field + ".target_master", value=c.target_master, message="unknown master slug"
                    )
                )
            if not c.citation:
                problems.append(Problem(file=rel, field=field + ".citation", message="critique has no citation"))
            elif c.citation not in ids:
                problems.append(
                    Problem(
                        file=rel,
                        field=field + ".citation",
                        value=c.citation,
                        message="citation is not in this master's sources[].id",
                    )
                )


def coverage_counts(masters: dict[str, Master]) -> tuple[list[str], list[str], int]:
    """(pairs covered both ways, one-way directed entries 'a->b', total critiques)."""
    directed: dict[tuple[str, str], int] = {}
    total = 0
    for slug, m in masters.items():
        for c in m.cross_critique:
            total += 1
            if c.target_master in masters and c.target_master != slug:
                directed[(slug, c.target_master)] = directed.get((slug, c.target_master), 0) + 1
    both = sorted({pair_key(a, b) for (a, b) in directed if (b, a) in directed})
    one_way = []
    for (a, b), n in sorted(directed.items()):
        if (b, a) not in directed:
            one_way.extend([f"{a}->{b}"] * n)
    return both, one_way, total


def load_pack(path: str | Path | None = None) -> Pack:
    """Load a pack folder (default: the project's own pack). Never raises on bad
    content; raises :class:`PackError` only when the folder itself is unusable."""
    root = Path(path).expanduser() if path else DEFAULT_PACK
    if not root.exists():
        raise PackError(f"pack folder not found: {root}")
    if not root.is_dir():
        raise PackError(f"pack path is not a folder: {root}")
    problems: list[Problem] = []
    masters: dict[str, Master] = {}
    folders = sorted(
        p for p in root.iterdir() if p.is_dir() and p.name.startswith("master-") and p.name != PROTOCOL_DIR
    )
    for folder in folders:
        if not (folder / "meta.json").is_file():
            continue  # meta-skills without a persona (master-help, master-curriculum)
        m = _load_master(folder, root, problems)
        if m is not None:
            if m.slug in masters:
                problems.append(
                    Problem(file=_rel(folder / "meta.json", root), field="slug", value=m.slug, message="duplicate slug")
                )
                continue
            masters[m.slug] = m
    if not masters and not any(p.severity == "error" for p in problems):
        raise PackError(f"no master-<slug>/meta.json found in {root}")
    proto, proto_version = _load_protocol(root, problems)
    _check_critiques(masters, root, problems)
    _check_protocol(proto, masters, root, problems)

    name = root.name if root.name != "prebuilt" else root.parent.name
    version = proto_version
    info = root / "pack.json"
    if info.is_file():
        data = _read_json(info, root, problems) or {}
        name = str(data.get("name") or name)
        version = str(data.get("version") or version)

    both, one_way, total = coverage_counts(masters)
    errors = sum(1 for p in problems if p.severity == "error")
    report = PackReport(
        path=str(root),
        name=name,
        version=version,
        masters=len(masters),
        critiques=total,
        pairs_both_ways=len(both),
        one_way=len(one_way),
        errors=errors,
        warnings=len(problems) - errors,
        problems=problems,
        pairs=both,
        one_way_entries=one_way,
    )
    return apply_default_aliases(
        Pack(name=name, version=version, path=str(root), masters=masters, protocol=proto, report=report)
    )


def closest(name: str, options: list[str]) -> str | None:
    import difflib

    hit = difflib.get_close_matches(name, options, n=1, cutoff=0.4)
    return hit[0] if hit else None


def resolve_master(pack: Pack, name: str) -> str:
    """A slug from a slug, a full name (慧能大师), a short name (慧能) or a common name
    (六祖, 罗什, 智者大师, 印光老法师: the master's aliases, honorifics aside)."""
    from debate_core.content.aliases import ambiguous, resolve_name

    name = name.strip()
    slug = resolve_name(pack, name)
    if slug is not None:
        return slug
    shared = ambiguous(pack, name)
    if shared:
        raise KeyError(
            f"master name {name!r} is ambiguous in pack {pack.name!r}: it names {', '.join(shared)}; give the slug"
        )
    guess = closest(name, list(pack.masters) + [n for m in pack.masters.values() for n in m.all_names])
    if guess is not None and guess not in pack.masters:
        guess = resolve_name(pack, guess) or guess
    hint = f"; did you mean {guess!r}?" if guess else ""
    raise KeyError(f"unknown master {name!r} in pack {pack.name!r}{hint}")


@lru_cache(maxsize=8)
def _cached_pack(path: str, stamp: float) -> Pack:
    return load_pack(path or None)


def get_pack(path: str | Path | None = None) -> Pack:
    """:func:`load_pack`, cached until any meta.json in the pack changes."""
    root = Path(path).expanduser() if path else DEFAULT_PACK
    if not root.is_dir():
        raise PackError(f"pack folder not found: {root}")
    files = [
        *root.glob("*/meta.json"),
        *root.glob("*.yaml"),
        *root.glob("*/arguments.yaml"),
        *root.glob(f"{PROTOCOL_DIR}/arguments/*.yaml"),
    ]
    stamp = max((p.stat().st_mtime for p in files), default=0.0)
    return _cached_pack(str(root), stamp)
