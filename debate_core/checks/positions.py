"""Positions: what a debate sets against another, and which position each mention in a sentence names.

A *position* is an entry of ``lexicons/positions.yaml`` (chan, pure_land, yogacara …): a school, its practice, its
emblem, its people (禅门, 念佛, 佛号, 参禅的人).  A master of the pack names the positions his pack entry's school
names (慧能: 禅宗 → chan) and himself (``@huineng``); 本宗 / 吾宗 name the speaker's, 对方 / 彼宗 the opponent's.
Two mentions are *different sides* when the positions they name do not meet: 禅门 and 净土 do, 散心称名 and 摄心称名
(both 称名 → pure_land) do not, nor 观想 and 持名 (观想 names no position).  What one relies on names no side: 仗佛力,
靠自力 are a power a practitioner leans on, not a school set against another (``evaluation.relied_on``).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache

from debate_core.checks import lexicons as _lx
from debate_core.checks._lexicon import COMMON_WORDS, HONORIFICS, master_names

__all__ = ["POSITION_KEYS", "Mention", "Parties", "parties", "parties_for", "differ"]

# lexicons/positions.yaml: every entry is one position, its name the key
POSITION_KEYS: tuple[str, ...] = tuple(_lx.load("positions").entries)
_SPEAKER_POINTERS = _lx.words("sides.speaker_pointers")
_OPPONENT_POINTERS = _lx.words("sides.opponent_pointers")
# 禅 / 净 alone name a position only as a clause's subject before a predicate (禅为本而净为末) or in an analogy's
# frame (禅之于净，犹…之于…)
_SINGLE_SIDE = (
    r"(?:(?<=^)|(?<=[，,；;而与和则])|(?<=之于))(?P<single>[禅净])(?=[为而则是重主偏较比胜]|之于|(?<=之于[禅净])[，,])"
)
_SINGLE_KEYS = {"禅": "chan", "净": "pure_land"}
# what one relies on (仗佛力, 靠自力): a power or a means leaned on, not a side set against another
_RELIED_ON = _lx.regex("evaluation.relied_on")

Mention = tuple[int, int, frozenset[str]]  # start, end, the positions named


def differ(a: frozenset[str], b: frozenset[str]) -> bool:
    """Two mentions of different sides: each names a position, and none in common."""
    return bool(a) and bool(b) and not (a & b)


@dataclass(frozen=True)
class Parties:
    """Which positions each mention in a text names (one per debate: the speaker's and the opponent's pointers)."""

    regex: re.Pattern
    keys: dict[str, frozenset[str]]

    def mentions(self, text: str) -> list[Mention]:
        """The positions named in ``text``; not what is relied on (仗佛力往生: 佛力 is a power leaned on, no side)."""
        out = []
        for m in self.regex.finditer(text):
            keys = self.keys.get(m.group(0))
            if keys is None and m.group("single"):
                keys = frozenset({_SINGLE_KEYS[m.group("single")]})
            if keys and not _RELIED_ON.search(text, max(0, m.start() - 3), m.start()):
                out.append((m.start(), m.end(), keys))
        return out


def _positions_of(school: str) -> frozenset[str]:
    return frozenset(k for k in POSITION_KEYS if any(w in school for w in _lx.words(f"positions.{k}")))


Named = tuple[tuple[str, tuple[str, ...], str], ...]  # (slug, names, school) of each master


@lru_cache(maxsize=64)
def parties(masters: Named = (), speaker: str = "", opponent: str = "") -> Parties:
    """The mentions of positions in a debate between ``speaker`` and ``opponent`` (slugs), with the pack's
    ``masters`` as ``(slug, names, school)``; the lexicon's positions alone without them.  Worked out once."""
    keys: dict[str, frozenset[str]] = {}
    for k in POSITION_KEYS:
        for w in _lx.words(f"positions.{k}"):
            keys.setdefault(w, frozenset({k}))
    own: dict[str, frozenset[str]] = {}
    for slug, names, school in masters:
        own[slug] = _positions_of(school) | {"@" + slug}
        for n in names:
            if len(n) >= 2:
                keys.setdefault(n, own[slug])
    for slug, pointers in ((speaker, _SPEAKER_POINTERS), (opponent, _OPPONENT_POINTERS)):
        for w in pointers if slug in own else ():
            keys[w] = own[slug]
    # names that are common words too (智者, 法藏) only with an honorific after them; the rest as one prefix tree
    parts = [re.escape(w) + "(?=" + "|".join(HONORIFICS) + ")" for w in keys if w in COMMON_WORDS]
    parts.append(_lx.trie(w for w in keys if w not in COMMON_WORDS))
    return Parties(re.compile("|".join(parts) + "|" + _SINGLE_SIDE), keys)


def parties_for(masters: Iterable, speaker: str, opponent: str) -> Parties:
    """:func:`parties` for :class:`~debate_core.models.Master` objects."""
    named = tuple((m.slug, tuple(master_names(m)), f"{m.school or ''}/{m.tradition or ''}") for m in masters)
    return parties(named, speaker, opponent)
