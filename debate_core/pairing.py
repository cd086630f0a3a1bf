"""Which two masters debate a topic, in the master-debate seed's order of rules.

1. ``user``: two masters named by the user.
2. ``table``: the seed's topic-to-pair table (``resources/pair_table.json``); a row
   matches when the topic evokes both of its sides.
3. ``keywords``: scoring over each master's ``search_scope.keywords`` (keywords
   shorter than ``min_keyword_length`` ignored), the top two from different schools.
4. ``default``: the default pair.
"""

from __future__ import annotations

import json
import re
from functools import lru_cache
from importlib import resources
from typing import Optional, Sequence

from pydantic import BaseModel, Field

from .models import Master, Pack
from .packs import resolve_master


class PairChoice(BaseModel):
    a: str
    b: str
    rule: str  # user / table / keywords / default
    reason: str
    row: str = ""
    hits: dict[str, list[str]] = Field(default_factory=dict)


class PairError(ValueError):
    pass


@lru_cache(maxsize=1)
def pair_table() -> dict:
    text = resources.files("debate_core").joinpath("resources/pair_table.json").read_text(encoding="utf-8")
    return json.loads(text)


def school_key(master: Master) -> str:
    """Coarse school identity: the school with parenthetical notes removed.

    The reference pack's ``tradition`` is too coarse (禅宗 and 净土宗 are both 汉传),
    so schools are compared instead; "禅宗（五宗兼嗣）" and "禅宗" count as one.
    """
    s = re.sub(r"[（(][^）)]*[）)]", "", master.school or master.tradition or master.slug)
    return s.strip() or master.slug


def _names(m: Master) -> list[str]:
    return [n for n in {m.name, m.short_name} if n and len(n) >= 2]


def _side_hits(topic: str, side: dict, pack: Pack) -> list[str]:
    terms = list(side.get("terms", []))
    m = pack.masters.get(side["master"])
    if m is not None:
        terms += _names(m)
    return sorted({t for t in terms if t and t in topic}, key=terms.index)


def _table_choice(topic: str, pack: Pack) -> Optional[PairChoice]:
    best = None
    for row in pair_table()["rows"]:
        a, b = row["a"]["master"], row["b"]["master"]
        if a not in pack.masters or b not in pack.masters:
            continue
        ha, hb = _side_hits(topic, row["a"], pack), _side_hits(topic, row["b"], pack)
        if ha and hb:
            score = len(set(ha) | set(hb))
            if best is None or score > best[0]:
                best = (score, row, ha, hb)
    if best is None:
        return None
    _, row, ha, hb = best
    a, b = row["a"]["master"], row["b"]["master"]
    return PairChoice(a=a, b=b, rule="table", row=row["label"], hits={a: ha, b: hb},
                      reason=f"topic table row 「{row['label']}」: topic evokes both sides ({'、'.join(ha)} / {'、'.join(hb)})")


def keyword_scores(topic: str, pack: Pack) -> dict[str, list[str]]:
    table = pair_table()
    min_len = int(table.get("min_keyword_length", 2))
    out: dict[str, list[str]] = {}
    for slug, m in pack.masters.items():
        hits = [k for k in m.search_scope.keywords if isinstance(k, str) and len(k) >= min_len and k in topic]
        hits += [n for n in _names(m) if n in topic and n not in hits]
        if hits:
            out[slug] = hits
    return out


def _default_pair(pack: Pack) -> tuple[str, str]:
    a, b = pair_table().get("default_pair", [None, None])
    if a in pack.masters and b in pack.masters:
        return a, b
    slugs = sorted(pack.masters)
    if len(slugs) < 2:
        raise PairError(f"pack {pack.name!r} has fewer than two masters")
    first = pack.masters[slugs[0]]
    other = next((s for s in slugs[1:] if school_key(pack.masters[s]) != school_key(first)), slugs[1])
    return slugs[0], other


def choose_pair(topic: str, pack: Pack, masters: Optional[Sequence[str]] = None) -> PairChoice:
    if masters:
        names = [m for m in masters if m and m.strip()]
        if len(names) != 2:
            raise PairError(f"name exactly two masters, got {len(names)}: {', '.join(names) or '(none)'}")
        try:
            a, b = (resolve_master(pack, n) for n in names)
        except KeyError as exc:
            raise PairError(exc.args[0]) from None
        if a == b:
            raise PairError(f"the same master twice: {a!r}; name two different masters")
        return PairChoice(a=a, b=b, rule="user", reason="masters named by the user")

    row = _table_choice(topic, pack)
    if row is not None:
        return row

    weight = int(pair_table().get("keyword_weight", 3))
    scores = keyword_scores(topic, pack)
    ranked = sorted(scores, key=lambda s: (-len(scores[s]) * weight, s))
    if ranked:
        a = ranked[0]
        sa = school_key(pack.masters[a])
        b = next((s for s in ranked[1:] if school_key(pack.masters[s]) != sa), None)
        if b is None:
            da, db = _default_pair(pack)
            b = next((s for s in (da, db) if s != a and school_key(pack.masters[s]) != sa), None)
            b = b or next(s for s in sorted(pack.masters) if school_key(pack.masters[s]) != sa and s != a)
        hits = {s: scores[s] for s in (a, b) if s in scores}
        desc = "; ".join(f"{pack.masters[s].name}: {'、'.join(h)}" for s, h in hits.items())
        return PairChoice(a=a, b=b, rule="keywords", hits=hits,
                          reason=f"keyword scoring over search_scope.keywords, top two from different schools ({desc})")

    a, b = _default_pair(pack)
    return PairChoice(a=a, b=b, rule="default", reason="no table row or keyword matched the topic; default pair")
