"""Words the rules reason with: what can be a *side* of a debate, who is the reader, who is a master.

These are vocabularies, not verdict phrases: a rule fires on a structure (a side + a comparative
predicate, a reader + a modal + a choice), and these lists say what may fill a slot.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator
from functools import lru_cache

from debate_core.checks import lexicons as _lx
from debate_core.content.aliases import default_aliases
from debate_core.models import Master

# Schools, traditions and vehicles: a named side of a debate.
SCHOOLS = _lx.words("sides.schools")
# Practices and doctrines that stand for a side in the seed's pairings.
PRACTICES = _lx.words("sides.practices")
# Pronouns and descriptions that point at a side.
SIDE_POINTERS = _lx.words("sides.side_pointers")
# Things that stand for a practice when a reader is told to put them down or take them up
# (放下佛号, 收起念珠, 丢下蒲团): sides only in a recommendation.
EMBLEMS = _lx.words("sides.emblems")
# Who a recommendation is addressed to.
READERS = _lx.words("sides.readers")
# First-person words a speaker uses for himself.
SELF = _lx.words("sides.self")

# Honorifics that may follow a name.
HONORIFICS = _lx.words("sides.honorifics")

# Names that are ordinary words too: a master only when an honorific follows.
COMMON_WORDS = frozenset({"智者", "唐僧", "法藏", "虚老", "贤首", "觉音"})


def matches_in(text: str) -> Callable[[re.Pattern], Iterator[re.Match]]:
    """``pattern -> pattern.finditer(text)``: how a rule scans a sentence for a pattern."""
    return lambda pattern: pattern.finditer(text)


def no_matches(_pattern: re.Pattern) -> Iterator[re.Match]:
    """What :func:`matches_in` gives for a sentence a pattern cannot match (a quick test said so)."""
    return iter(())


@lru_cache(maxsize=4096)
def bare(name: str) -> str:
    for suffix in HONORIFICS:
        if name.endswith(suffix) and len(name) - len(suffix) >= 2:
            return name[: -len(suffix)]
    return name


def master_names(m: Master) -> list[str]:
    names = list(m.all_names)
    if not m.aliases:
        names += default_aliases().get(m.slug, [])
    return list(dict.fromkeys(n for n in names if n))


def name_map(masters: Iterable[Master], extra: Iterable[str] = ()) -> dict[str, str]:
    """Every name of every master → a key naming that master (its slug; for a bare name list, the
    name without its honorific).  Worked out once per set of names (every speech of a batch asks
    again with the same masters); each caller gets its own copy."""
    named = tuple((m.slug, tuple(master_names(m))) for m in masters)
    return dict(_name_map(named, tuple(extra)))


@lru_cache(maxsize=64)
def _name_map(masters: tuple[tuple[str, tuple[str, ...]], ...], extra: tuple[str, ...]) -> dict[str, str]:
    out: dict[str, str] = {}
    for slug, names in masters:
        for n in names:
            out.setdefault(n, slug)
            out.setdefault(bare(n), slug)
    # each fallback master's names with and without their honorifics, worked out once for all of extra
    fallback = [
        (slug, aliases, set(aliases) | {bare(a) for a in aliases}) for slug, aliases in default_aliases().items()
    ]
    for n in extra:
        if not n or n in out:
            continue
        key = bare(n)
        for slug, aliases, forms in fallback:
            if n in forms or key in forms:
                key = slug
                for a in aliases:  # a master named by the caller is known by all its common names
                    out.setdefault(a, slug)
                break
        out[n] = key
        out.setdefault(bare(n), key)
    return {n: k for n, k in out.items() if len(n) >= 2}


@lru_cache(maxsize=64)
def name_regex(names: tuple[str, ...]) -> re.Pattern | None:
    """One pattern matching any of ``names`` (longest first); a name that is a common word only
    with an honorific after it."""
    parts = []
    for n in sorted(set(names), key=len, reverse=True):
        if n in COMMON_WORDS:
            parts.append(re.escape(n) + "(?=" + "|".join(HONORIFICS) + ")")
        else:
            parts.append(re.escape(n))
    if not parts:
        return None
    return re.compile("(?:" + "|".join(parts) + ")")


@lru_cache(maxsize=64)
def side_regex(extra: tuple[str, ...]) -> re.Pattern:
    words = set(SCHOOLS) | set(PRACTICES) | set(SIDE_POINTERS) | {w for w in extra if len(w) >= 2}
    singles = {"禅", "净", "教", "宗"}
    multi = sorted((w for w in words if w not in singles), key=len, reverse=True)
    # 禅 / 净 / 教 / 宗 alone are sides only as in 禅净, 舍净归禅, 禅与净 — not in 清净, 宗旨, 教导.
    single = (
        r"禅净|净禅|[禅净教宗](?=不如|不及|胜于|胜过|高于|优于|逊于|强于|远胜|比[禅净教宗])|(?<=不如|不及|胜于|"
        r"胜过|高于|优于|逊于|强于|远胜)[禅净教宗](?![定师心堂房机悦味意理义育导化训法诲旨])|"
        r"(?<=比)[禅净](?=[^定师心堂房机悦味意理义])|"
        r"(?<=[舍归弃从改转选择投])[禅净教宗](?![定师心堂房机悦味意理义育导化训法诲旨])|"
        r"[禅净教宗](?=[与和及、][禅净教宗])|(?<![清坐参洁干明])[禅净](?=为[正主辅优劣上下次胜负])|"
        r"(?<=[禅净教宗][与和及、])[禅净教宗]"
    )
    return re.compile("(?:" + "|".join(re.escape(w) for w in multi) + "|" + single + ")")


@lru_cache(maxsize=64)
def recommend_side_regex(extra: tuple[str, ...]) -> re.Pattern:
    """A side, or an emblem of a practice (佛号, 念珠, 蒲团 …): what a reader may be told to drop or take up."""
    base = side_regex(extra).pattern
    return re.compile("(?:" + "|".join(re.escape(w) for w in sorted(EMBLEMS, key=len, reverse=True)) + "|" + base + ")")


@lru_cache(maxsize=64)
def side_words_regex(extra: tuple[str, ...]) -> re.Pattern:
    """Any word :func:`side_regex` or :func:`recommend_side_regex` can match, with 禅 / 净 / 教 / 宗 in
    any context: a text this finds nothing in holds no side (a quick test before the rules that need one)."""
    words = set(SCHOOLS) | set(PRACTICES) | set(SIDE_POINTERS) | set(EMBLEMS) | {w for w in extra if len(w) >= 2}
    return re.compile("|".join(re.escape(w) for w in sorted(words, key=len, reverse=True)) + "|[禅净教宗]")


def side_terms_for(masters: Iterable[Master]) -> tuple[str, ...]:
    """The schools and names of the masters in play, as extra side words."""
    out: list[str] = []
    for m in masters:
        out += master_names(m)
        for field in (m.school, m.tradition):
            for part in re.split(r"[/／·（）()、，,\s]+", field or ""):
                part = re.sub(r"[A-Za-z'\-]+", "", part)
                if 2 <= len(part) <= 8:
                    out.append(part)
    return tuple(sorted(set(o for o in out if o and o not in COMMON_WORDS)))
