"""Schools a topic names (南传, 天台, 密宗 …) and the masters of a pack who speak for them.

A reader who asks how 南传 mindfulness differs from Chan's 无念 expects a 南传 voice in the debate. The
schools and the words that name them are our own curation (``resources/schools.json``); a master belongs
to a school when his ``tradition`` or ``school`` (meta.json) contains one of its ``members`` or when the
school lists his slug under ``also``, so any pack in the Master-skill layout is read the same way.

* :func:`schools_named` — the schools a topic names, in the order it names them, each with its masters in
  the pack; a term inside a longer term does not count, and a school whose
  masters include all of another named school's (藏传 beside 格鲁) gives way to the narrower one; a school
  that covers most of the pack (汉传, 大乘) counts only beside another (南传 … 汉传).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources

from debate_core.models import Pack

__all__ = ["NamedSchool", "school_table", "school_terms", "schools_named"]


@dataclass(frozen=True)
class NamedSchool:
    """A voice the topic asks for: a school it names, or (``kind="master"``, from ``pairing.voices_named``)
    a master it names by name, whose id is his slug."""

    id: str
    label: str
    said: tuple[str, ...]  # the words of the topic that name it
    masters: tuple[str, ...]  # slugs, in the pack's order
    kind: str = "school"  # "school" or "master"


@lru_cache(maxsize=1)
def school_table() -> list[dict]:
    text = resources.files("debate_core").joinpath("resources/schools.json").read_text(encoding="utf-8")
    return list(json.loads(text)["schools"])


@lru_cache(maxsize=1)
def school_terms() -> frozenset[str]:
    """Every word that names a school (南传, 天台宗, 密宗 …), and the same with 宗 / 派 added or dropped."""
    out = set()
    for school in school_table():
        for term in [*school["terms"], school["label"]]:
            bare = term[:-1] if term.endswith(("宗", "派")) else term
            out |= {term, bare, bare + "宗", bare + "派"}
    return frozenset(t for t in out if len(t) >= 2)


def _masters(school: dict, pack: Pack) -> tuple[str, ...]:
    members = school.get("members", [])
    out = [
        slug
        for slug, m in pack.masters.items()
        if any(w in (m.tradition or "") or w in (m.school or "") for w in members)
    ]
    out += [s for s in school.get("also", []) if s in pack.masters and s not in out]
    return tuple(out)


def _guarded(topic: str, start: int, end: int, guard: dict) -> bool:
    before = topic[start - 1] if start > 0 else ""
    after = topic[end] if end < len(topic) else ""
    return bool(before and before in guard.get("before", "")) or bool(after and after in guard.get("after", ""))


def _occurrences(topic: str) -> list[tuple[int, int, str, str]]:
    """(start, end, school id, term) for every unguarded term, minus those inside a longer term (天台 in
    天台宗; 中观 in a longer word of another school)."""
    occ = []
    for school in school_table():
        guards = school.get("guards", {})
        for term in school["terms"]:
            for m in re.finditer(re.escape(term), topic):
                if not _guarded(topic, m.start(), m.end(), guards.get(term, {})):
                    occ.append((m.start(), m.end(), school["id"], term))
    return [o for o in occ if not any(s <= o[0] and o[1] <= e and (e - s) > (o[1] - o[0]) for s, e, _sid, _t in occ)]


def schools_named(topic: str, pack: Pack) -> list[NamedSchool]:
    occ = sorted(_occurrences(topic))
    found: dict[str, list[str]] = {}
    for _s, _e, sid, term in occ:
        found.setdefault(sid, [])
        if term not in found[sid]:
            found[sid].append(term)
    table = {s["id"]: s for s in school_table()}
    named = [
        NamedSchool(sid, str(table[sid]["label"]), tuple(terms), _masters(table[sid], pack))
        for sid, terms in found.items()
    ]
    named = [n for n in named if n.masters]
    if all(table[n.id].get("only_beside") for n in named):  # 汉传 or 大乘 alone asks for no one in particular
        return []
    # a school that holds every master of another named school gives way to it (藏传 beside 格鲁派)
    return [n for n in named if not any(o is not n and set(o.masters) < set(n.masters) for o in named)]
