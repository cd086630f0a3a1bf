"""A pack's argument layer: load it, check it, or derive it from a pack that has none.

The layer is an optional addition to the Master-skill layout (docs/arguments.md)::

    <pack>/themes.yaml                               themes (else the project's default list)
    <pack>/master-<slug>/arguments.yaml              that master's positions on themes
    <pack>/master-debate/arguments/<a>-vs-<b>.yaml   a pair's objections, replies, common ground
    <pack>/master-debate/cases/<theme>.yaml          concrete questions under a theme, each master's answer

Every entry is checked when it loads: a reason or an objection cited to a source the master does
not list, a position on an unknown theme, an objection aimed at a point nobody holds, or a reply to
an objection that does not exist is dropped with a one-line problem naming file, field and value.

A pack with none of these files (the upstream Master-skill pack as it is) gets a *derived* layer:
each teaching the pack reader kept is mapped onto themes by their keywords, the best three on a
theme become that master's reasons (cited only when the reader found the unit's own source), and
each ``cross_critique`` entry becomes an objection at the target master's position on the theme its
words match.  A derived layer has no replies and no common ground: a debate on it says so.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import yaml
from pydantic import ValidationError

from debate_core.content.packs import DEFAULT_PACK, PROTOCOL_DIR, pair_key
from debate_core.content.themes import match_themes
from debate_core.models import Master, Pack
from debate_core.plans import ArgumentBank, Case, CaseAnswer, Objection, PairBank, Position, Reason, Reply, Theme

__all__ = ["ARGUMENT_FILES", "bank_of", "derive_bank", "load_bank", "load_themes", "has_layer"]

THEMES_FILE = "themes.yaml"
POSITIONS_FILE = "arguments.yaml"
PAIRS_DIR = Path(PROTOCOL_DIR) / "arguments"
CASES_DIR = Path(PROTOCOL_DIR) / "cases"
ARGUMENT_FILES = (THEMES_FILE, f"master-*/{POSITIONS_FILE}", f"{PAIRS_DIR}/*.yaml", f"{CASES_DIR}/*.yaml")
MAX_FILE_BYTES = 2_000_000
_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)  # libyaml's safe loader when PyYAML has it


def _read_yaml(path: Path, root: Path, problems: list[str]) -> Any:
    rel = _rel(path, root)
    try:
        if path.stat().st_size > MAX_FILE_BYTES:
            problems.append(f"{rel}: larger than {MAX_FILE_BYTES} bytes; not read")
            return None
        return yaml.load(path.read_text(encoding="utf-8"), Loader=_LOADER)  # noqa: S506 (a safe loader)
    except (OSError, UnicodeDecodeError) as exc:
        problems.append(f"{rel}: unreadable ({type(exc).__name__})")
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" line {mark.line + 1}" if mark is not None else ""
        problems.append(f"{rel}:{where} not valid YAML")
    return None


def _rel(path: Path, root: Path) -> str:
    try:
        return str(path.relative_to(root))
    except ValueError:
        return str(path)


def load_themes(root: Path | None = None, problems: list[str] | None = None) -> list[Theme]:
    """The pack's themes.yaml, else the project's default list."""
    problems = problems if problems is not None else []
    for base in ([root] if root else []) + [DEFAULT_PACK]:
        f = base / THEMES_FILE
        if f.is_file():
            data = _read_yaml(f, base, problems) or {}
            out = []
            for i, t in enumerate(data.get("themes") or [] if isinstance(data, dict) else []):
                try:
                    out.append(Theme.model_validate(t))
                except ValidationError as exc:
                    problems.append(f"{_rel(f, base)}: themes[{i}]: {exc.errors()[0]['msg']}")
            if out:
                return out
    return []


def has_layer(root: Path) -> bool:
    return any(any(root.glob(g)) for g in ARGUMENT_FILES[1:])


# ------------------------------------------------------------------ the written layer


def _check_reason(r: Reason, m: Master, where: str, problems: list[str]) -> bool:
    if r.source and r.source not in m.source_ids:
        problems.append(f"{where}: source {r.source!r} is not one of {m.slug}'s sources; dropped")
        return False
    return bool(r.text.strip())


def _positions(root: Path, pack: Pack, theme_ids: set[str], problems: list[str]) -> dict[str, list[Position]]:
    out: dict[str, list[Position]] = {}
    for slug, m in pack.masters.items():
        f = root / f"master-{slug}" / POSITIONS_FILE
        if not f.is_file():
            continue
        data = _read_yaml(f, root, problems)
        rel = _rel(f, root)
        if not isinstance(data, dict):
            if data is not None:
                problems.append(f"{rel}: expected a mapping with `positions`")
            continue
        for i, raw in enumerate(data.get("positions") or []):
            where = f"{rel}: positions[{i}]"
            try:
                p = Position.model_validate({**(raw or {}), "master": slug})
            except (ValidationError, TypeError) as exc:
                msg = exc.errors()[0]["msg"] if isinstance(exc, ValidationError) else "not a mapping"
                problems.append(f"{where}: {msg}")
                continue
            if p.theme not in theme_ids:
                problems.append(f"{where}: theme {p.theme!r} is not a known theme; dropped")
                continue
            p.reasons = [r for j, r in enumerate(p.reasons) if _check_reason(r, m, f"{where}.reasons[{j}]", problems)]
            if any(q.theme == p.theme for q in out.get(slug, [])):
                problems.append(f"{where}: a second position on theme {p.theme!r}; dropped")
                continue
            out.setdefault(slug, []).append(p)
    return out


def _point_exists(bank: ArgumentBank, target: str) -> bool:
    m = re.fullmatch(r"([^:#]+):([^#]+)#(\d+)", target)
    if not m:
        return False
    pos = bank.position(m.group(1), m.group(2))
    return pos is not None and int(m.group(3)) <= len(pos.reasons)


def _pairs(root: Path, pack: Pack, bank: ArgumentBank, problems: list[str]) -> dict[str, PairBank]:
    out: dict[str, PairBank] = {}
    folder = root / PAIRS_DIR
    for f in sorted(folder.glob("*.yaml")) if folder.is_dir() else []:
        rel = _rel(f, root)
        data = _read_yaml(f, root, problems)
        if not isinstance(data, dict):
            continue
        try:
            pb = PairBank.model_validate(data)
        except ValidationError as exc:
            e = exc.errors()[0]
            problems.append(f"{rel}: {'.'.join(str(x) for x in e['loc'])}: {e['msg']}")
            continue
        if len(pb.pair) != 2 or any(s not in pack.masters for s in pb.pair):
            problems.append(f"{rel}: pair {pb.pair!r} does not name two masters of this pack")
            continue
        a, b = pb.pair
        kept: list[Objection] = []
        for i, o in enumerate(pb.objections):
            where = f"{rel}: objections[{i}]"
            other = b if o.by == a else a if o.by == b else None
            if other is None or o.target_master != other:
                problems.append(f"{where}: by {o.by!r} at {o.target!r} is not one side at the other; dropped")
            elif not _point_exists(bank, o.target):
                problems.append(f"{where}: target {o.target!r} names no point of a position; dropped")
            elif o.source and o.source not in pack.masters[o.by].source_ids:
                problems.append(f"{where}: source {o.source!r} is not one of {o.by}'s sources; dropped")
            elif any(k.id == o.id for k in kept):
                problems.append(f"{where}: id {o.id!r} used twice; dropped")
            else:
                kept.append(o)
        pb.objections = kept
        ids = {o.id: o for o in kept}
        replies = []
        for i, r in enumerate(pb.replies):
            to = ids.get(r.to)
            if to is None or r.by != to.target_master:
                problems.append(f"{rel}: replies[{i}]: {r.to!r} is no objection aimed at {r.by!r}; dropped")
            elif r.source and r.source not in pack.masters[r.by].source_ids:
                problems.append(f"{rel}: replies[{i}]: source {r.source!r} is not one of {r.by}'s sources; dropped")
            else:
                replies.append(r)
        pb.replies = replies
        key = pair_key(a, b)
        if key in out:
            problems.append(f"{rel}: a second file for pair {key}; not read")
            continue
        out[key] = pb
    return out


MATCH_SYNONYMS = "match-synonyms.yaml"  # in master-debate/: everyday words a case's match may also take


def match_synonyms(root: Path, problems: list[str]) -> dict[str, list[str]]:
    """``master-debate/match-synonyms.yaml``: ``groups:``, each a list of everyday words a reader may use
    for one another (睡不着 / 失眠 / 睡不好).  A case's match group that holds one word of a synonym group
    also matches on the others, so a case author lists a word once and the pack's table supplies how
    people say it.  Returns word -> its group; a word of fewer than two characters, or in two groups,
    is a problem line and is left out."""
    f = root / PROTOCOL_DIR / MATCH_SYNONYMS
    if not f.is_file():
        return {}
    rel = _rel(f, root)
    data = _read_yaml(f, root, problems)
    groups = data.get("groups") if isinstance(data, dict) else None
    if not isinstance(groups, list):
        if data is not None:
            problems.append(f"{rel}: expected a mapping with a `groups` list")
        return {}
    out: dict[str, list[str]] = {}
    for i, g in enumerate(groups):
        words = g.get("words") if isinstance(g, dict) else g
        if not isinstance(words, list):
            problems.append(f"{rel}: groups[{i}]: expected a list of words")
            continue
        kept = []
        for w in words:
            w = str(w).strip()
            if len(w) < 2:
                problems.append(f"{rel}: groups[{i}]: word {w!r} is shorter than two characters; left out")
            elif w in out:
                problems.append(f"{rel}: groups[{i}]: word {w!r} is already in another group; left out")
            elif w not in kept:
                kept.append(w)
        for w in kept:
            out[w] = kept
    return out


def match_words(root: Path, problems: list[str], key: str) -> list[str]:
    """A word list of ``master-debate/match-synonyms.yaml`` by its key.  ``generic:``: words that say how the
    asker feels or hedges (担心, 害怕, 万一 …) and never which situation he is in; ``scene:``: words that say who
    is there or where and when (顾客, 服务员, 历史上), never what happened.  A case is the topic only when at
    least one of its words the topic holds is in neither list (r7 and r10: a worry about one's own health was
    answered as "worry about one's family" on 担心 + 万一 alone)."""
    f = root / PROTOCOL_DIR / MATCH_SYNONYMS
    data = _read_yaml(f, root, []) if f.is_file() else None
    words = data.get(key) if isinstance(data, dict) else None
    if words is None:
        return []
    if not isinstance(words, list):
        problems.append(f"{_rel(f, root)}: {key}: expected a list of words")
        return []
    return [str(w).strip() for w in words if str(w).strip()]


def _widened(match: list[list[str]], synonyms: dict[str, list[str]]) -> list[list[str]]:
    """Each match group with the synonyms of its words added (its own words first, in their order)."""
    out = []
    for g in match:
        seen = list(dict.fromkeys(g))
        for w in g:
            seen += [x for x in synonyms.get(w, ()) if x not in seen]
        out.append(seen)
    return out


def _cases(root: Path, pack: Pack, bank: ArgumentBank, problems: list[str]) -> list[Case]:
    """``master-debate/cases/*.yaml``: a ``cases:`` list each.  A case on an unknown theme or without a
    match is dropped; an answer by a master who holds no position on the case's theme, or cited to a
    source he does not list, is dropped (one problem line each)."""
    out: list[Case] = []
    synonyms = match_synonyms(root, problems)
    folder = root / CASES_DIR
    for f in sorted(folder.glob("*.yaml")) if folder.is_dir() else []:
        rel = _rel(f, root)
        data = _read_yaml(f, root, problems)
        if not isinstance(data, dict):
            if data is not None:
                problems.append(f"{rel}: expected a mapping with `cases`")
            continue
        for i, raw in enumerate(data.get("cases") or []):
            where = f"{rel}: cases[{i}]"
            try:
                c = Case.model_validate(raw)
            except (ValidationError, TypeError) as exc:
                e = exc.errors()[0] if isinstance(exc, ValidationError) else {"loc": (), "msg": "not a mapping"}
                problems.append(f"{where}: {'.'.join(str(x) for x in e['loc'])}: {e['msg']}".replace(": : ", ": "))
                continue
            if bank.theme(c.theme) is None:
                problems.append(f"{where}: theme {c.theme!r} is not a known theme; dropped")
                continue
            c.match = [[w.strip() for w in g if w and w.strip()] for g in c.match]
            if not c.match or any(not g for g in c.match):
                problems.append(f"{where}: match needs at least one group of words, none empty; dropped")
                continue
            c.match = _widened(c.match, synonyms)
            if any(k.id == c.id for k in out):
                problems.append(f"{where}: id {c.id!r} used twice; dropped")
                continue
            kept_answers: list[CaseAnswer] = []
            for j, a in enumerate(c.answers):
                m = pack.masters.get(a.by)
                if m is None:
                    problems.append(f"{where}.answers[{j}]: {a.by!r} is no master of this pack; dropped")
                elif bank.position(a.by, c.theme) is None:
                    problems.append(f"{where}.answers[{j}]: {a.by} holds no position on {c.theme!r}; dropped")
                elif any(s and s not in m.source_ids for s in (a.source, a.then_source)):
                    bad = next(s for s in (a.source, a.then_source) if s and s not in m.source_ids)
                    problems.append(f"{where}.answers[{j}]: source {bad!r} is not one of {a.by}'s sources; dropped")
                elif any(k.by == a.by for k in kept_answers):
                    problems.append(f"{where}.answers[{j}]: a second answer by {a.by}; dropped")
                else:
                    for k, g in enumerate(list(a.more)):
                        if g.source and g.source not in m.source_ids:
                            problems.append(
                                f"{where}.answers[{j}].more[{k}]: source {g.source!r} is not one of {a.by}'s "
                                "sources; dropped"
                            )
                            a.more.remove(g)
                    kept_answers.append(a)
            c.answers = kept_answers
            objs = []
            for j, o in enumerate(c.objections):
                m = pack.masters.get(o.by)
                if m is None or c.answer(o.by) is None or c.answer(o.at) is None or o.by == o.at:
                    problems.append(
                        f"{where}.objections[{j}]: {o.by!r} at {o.at!r} is not one answer at another; dropped"
                    )
                elif o.source and o.source not in m.source_ids:
                    problems.append(
                        f"{where}.objections[{j}]: source {o.source!r} is not one of {o.by}'s sources; dropped"
                    )
                else:
                    at = pack.masters.get(o.at)
                    if o.reply is not None and o.reply.source and (at is None or o.reply.source not in at.source_ids):
                        problems.append(
                            f"{where}.objections[{j}].reply: source {o.reply.source!r} is not one of "
                            f"{o.at}'s sources; reply dropped"
                        )
                        o.reply = None
                    if o.press is not None and (
                        o.reply is None or (o.press.source and o.press.source not in m.source_ids)
                    ):
                        why = "it presses no reply" if o.reply is None else f"source {o.press.source!r} is not {o.by}'s"
                        problems.append(f"{where}.objections[{j}].press: {why}; press dropped")
                        o.press = None
                    objs.append(o)
            c.objections = objs
            out.append(c)
    return out


# A written layer is YAML that takes a few hundred ms to parse; the checked bank is kept as JSON in a
# user cache folder, keyed by the bytes of every file it was built from and this format's version.
BANK_CACHE_VERSION = "6"
CACHE_DIR_ENV = "DEBATE_CACHE_DIR"


def _cache_path(root: Path) -> Path | None:
    import hashlib
    import os

    files = sorted(
        [
            root / "themes.yaml",
            *root.glob("master-*/arguments.yaml"),
            *root.glob("master-*/meta.json"),
            *(root / PROTOCOL_DIR / "arguments").glob("*.yaml"),
            *(root / CASES_DIR).glob("*.yaml"),
            root / PROTOCOL_DIR / MATCH_SYNONYMS,
        ]
    )
    h = hashlib.sha1(BANK_CACHE_VERSION.encode())
    try:
        for f in files:
            if f.is_file():
                h.update(str(f.relative_to(root)).encode() + b"\0" + f.read_bytes() + b"\0")
    except OSError:
        return None
    base = Path(os.environ.get(CACHE_DIR_ENV) or Path.home() / ".cache" / "debate-workbench")
    return base / f"bank-{h.hexdigest()}.json"


def load_bank(pack: Pack) -> ArgumentBank:
    """The pack's argument layer: written when it has one, else derived (see the module doc).  A written
    layer is read from the user's cache when its files are unchanged (``$DEBATE_CACHE_DIR``, default
    ~/.cache/debate-workbench); a cache that cannot be read or written is simply not used."""
    root = Path(pack.path)
    cache = _cache_path(root) if has_layer(root) else None
    if cache is not None and cache.is_file():
        try:
            return ArgumentBank.model_validate_json(cache.read_bytes())
        except (OSError, ValueError):
            pass
    bank = _load_bank(pack, root)
    if cache is not None:
        try:
            cache.parent.mkdir(parents=True, exist_ok=True)
            tmp = cache.with_suffix(".tmp")
            tmp.write_text(bank.model_dump_json(), encoding="utf-8")
            tmp.replace(cache)
        except OSError:
            pass
    return bank


def _load_bank(pack: Pack, root: Path) -> ArgumentBank:
    problems: list[str] = []
    themes = load_themes(root, problems)
    if not has_layer(root):
        bank = derive_bank(pack, themes)
        bank.problems = problems + bank.problems
        return bank
    bank = ArgumentBank(themes=themes)
    bank.positions = _positions(root, pack, {t.id for t in themes}, problems)
    bank.pairs = _pairs(root, pack, bank, problems)
    bank.cases = _cases(root, pack, bank, problems)
    synonyms = match_synonyms(root, [])  # (its problems are already reported by _cases)
    # each list with the synonyms of its words: 往坏处想 is generic, so is 往坏处
    bank.generic, bank.scene = (
        list(dict.fromkeys(words + [x for w in words for x in synonyms.get(w, ())]))
        for words in (match_words(root, problems, "generic"), match_words(root, problems, "scene"))
    )
    bank.problems = problems
    return bank


def bank_of(pack: Pack) -> ArgumentBank:
    """The pack's bank, loaded once per loaded pack."""
    if pack.bank is None:
        pack.bank = load_bank(pack)
    return pack.bank


# ------------------------------------------------------------------ the derived layer


_CLAUSE = re.compile(r"[^，。；！？：]+")
# A derived position keeps the three best units as its reasons (#1..#3) and up to three more, which a
# plan may speak as support when a speech would fall short (a pack's units are short sentences).
DERIVED_REASONS = 6
# A cross_critique entry opens with a label naming its target (对马哈希标记法：…): the label is no speech.
_LABEL = re.compile(r"^对[^：:，。]{1,14}[：:]\s*")


def _gist(text: str, limit: int = 12) -> str:
    for c in _CLAUSE.findall(text):
        c = c.strip()
        if len(c) >= 4:
            return c if len(c) <= limit else c[:limit]
    return text[:limit]


def _derived_positions(m: Master, themes: list[Theme]) -> list[Position]:
    per_theme: dict[str, list[tuple[int, int, Reason]]] = {}
    for order, t in enumerate(m.teachings):
        for hit in match_themes(t.text, themes)[:2]:
            sid = t.source_id if t.own_source and t.source_id in m.source_ids else ""
            r = Reason(
                text=t.text if t.text.endswith(("。", "！", "？")) else t.text + "。", gist=_gist(t.text), source=sid
            )
            per_theme.setdefault(hit.theme, []).append((hit.score, order, r))
    out = []
    for tid, rows in per_theme.items():
        rows.sort(key=lambda x: (-x[0], x[1]))
        reasons = [r for _s, _o, r in rows[:DERIVED_REASONS]]
        first = _CLAUSE.findall(reasons[0].text)
        claim = (first[0] if first else reasons[0].text).strip()
        out.append(
            Position(master=m.slug, theme=tid, claim=claim, short=_gist(claim, 10), reasons=reasons, derived=True)
        )
    return out


def derive_bank(pack: Pack, themes: list[Theme] | None = None) -> ArgumentBank:
    """A layer built from a pack that has none: teachings onto themes, cross_critique into objections."""
    themes = themes if themes is not None else load_themes(Path(pack.path))
    bank = ArgumentBank(themes=themes, derived=True)
    for slug, m in pack.masters.items():
        bank.positions[slug] = _derived_positions(m, themes)
    for slug, m in pack.masters.items():
        for i, c in enumerate(m.cross_critique):
            target = c.target_master
            held = bank.positions.get(target, [])
            if target not in pack.masters or not held:
                continue
            hits = [h.theme for h in match_themes(c.position, themes) if any(p.theme == h.theme for p in held)]
            # an entry whose words match none of the target's themes is aimed at him as a whole: it is
            # filed under his first theme, and a plan on a derived layer may fire it on any theme
            theme = hits[0] if hits else held[0].theme
            cite = c.citation if c.citation in m.source_ids else ""
            text = _LABEL.sub("", c.position.strip()) or c.position
            o = Objection(
                id=f"{slug}>{target}/{theme}/{i + 1}",
                by=slug,
                target=f"{target}:{theme}#0",
                text=text,
                gist=_gist(text),
                source=cite,
            )
            key = pair_key(slug, target)
            pb = bank.pairs.setdefault(key, PairBank(pair=sorted((slug, target))))
            pb.objections.append(o)
            if theme not in pb.themes:
                pb.themes.append(theme)
    return bank


def replies_for(bank: ArgumentBank, objection: Objection) -> list[Reply]:
    return bank.replies_to(objection.id, objection.target_master)
