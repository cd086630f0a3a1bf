"""Masters' common names: 六祖 → huineng, 罗什 → kumarajiva, 智者大师 → zhiyi …

A master is named by its slug, its ``name`` (慧能大师), its short name (慧能) or one of
its ``aliases``.  A pack may list aliases in each ``meta.json``; a master that lists
none gets the fallback list of ``resources/aliases.json`` (by slug) when the pack loads
(:func:`apply_default_aliases`), so packs written before aliases existed resolve too.

* :func:`resolve_name` — the slug a name denotes in a pack (exact, then without an
  honorific such as 大师 / 老法师 / 三藏), or ``None``; an alias that two masters share
  names neither.
* :func:`topic_names` — the names to look for inside a topic: every unambiguous name
  of two characters or more, minus the ones that are ordinary words as well (智者).
"""

from __future__ import annotations

import json
import re
from functools import lru_cache
from importlib import resources

from debate_core.models import Master, Pack

# Honorifics that may follow a name without changing whom it names (longest first).
HONORIFICS = (
    "老和尚",
    "老法师",
    "大和尚",
    "仁波切",
    "和尚",
    "大师",
    "法师",
    "禅师",
    "尊者",
    "菩萨",
    "祖师",
    "长老",
    "论师",
    "三藏",
    "国师",
    "上人",
    "老人",
)


@lru_cache(maxsize=1)
def _resource() -> dict:
    text = resources.files("debate_core").joinpath("resources/aliases.json").read_text(encoding="utf-8")
    return json.loads(text)


def default_aliases() -> dict[str, list[str]]:
    """The fallback alias list, slug → names."""
    return {k: list(v) for k, v in _resource().get("aliases", {}).items()}


def not_in_topics() -> frozenset[str]:
    return frozenset(_resource().get("not_in_topics", []))


def apply_default_aliases(pack: Pack) -> Pack:
    """Give every master without aliases of its own the fallback aliases of its slug; returns ``pack``."""
    fallback = default_aliases()
    for slug, m in pack.masters.items():
        own = [a.strip() for a in m.aliases if isinstance(a, str) and a.strip()]
        m.aliases = list(dict.fromkeys(own or fallback.get(slug, [])))
    return pack


def bare(name: str) -> str:
    """``name`` without one trailing honorific (印光老法师 → 印光), when two characters or more remain."""
    name = re.sub(r"\s+", "", name or "")
    for suffix in HONORIFICS:
        if name.endswith(suffix) and len(name) - len(suffix) >= 2:
            return name[: -len(suffix)]
    return name


def _norm_slug(name: str) -> str:
    return re.sub(r"[\s_]+", "-", name.strip().lower())


def name_index(pack: Pack) -> dict[str, set[str]]:
    """Every name (as written and without its honorific) → the slugs it may denote."""
    out: dict[str, set[str]] = {}
    for slug, m in pack.masters.items():
        for n in m.all_names:
            for key in {n, bare(n)}:
                if key:
                    out.setdefault(key, set()).add(slug)
    return out


def resolve_name(pack: Pack, name: str) -> str | None:
    """The slug ``name`` denotes in ``pack``, or None (unknown, or shared by two masters)."""
    name = (name or "").strip()
    if not name:
        return None
    if name in pack.masters:
        return name
    slug = _norm_slug(name)
    if slug in pack.masters:
        return slug
    index = name_index(pack)
    for key in (name, re.sub(r"\s+", "", name), bare(name)):
        hits = index.get(key)
        if hits and len(hits) == 1:
            return next(iter(hits))
    return None


def ambiguous(pack: Pack, name: str) -> list[str]:
    """The slugs a name shared by several masters may denote (empty when it is not shared)."""
    for key in (name.strip(), bare(name)):
        hits = name_index(pack).get(key, set())
        if len(hits) > 1:
            return sorted(hits)
    return []


def topic_names(master: Master, pack: Pack | None = None) -> list[str]:
    """The names of ``master`` to look for inside a topic, longest first."""
    skip = not_in_topics()
    shared: set[str] = set()
    if pack is not None:
        shared = {n for n, slugs in name_index(pack).items() if len(slugs) > 1}
    return [n for n in master.all_names if len(n) >= 2 and n not in skip and n not in shared]
