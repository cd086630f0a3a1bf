"""Which argument-layer themes a topic asks about, explainably.

A theme's keywords (and its title) are looked up in the topic.  A hit that lies inside a longer hit
of the same theme counts once (禅净双修 holds 禅净); a keyword of one character counts only when it
is not part of a longer keyword of any theme found in the topic.  A theme scores the characters of
its distinct hits, so 忏悔 and 业障 (4) outrank 烦恼 (2); a school's name (天台宗, 南传: ``content.schools``)
counts one, since it says whose voice is asked, not what about.  A *general* theme (``general: true``, the
path itself: 修行, 学佛 …) ranks after every specific theme the topic also matches, so that
修行人怎么面对病痛 asks about illness, not about practice in general.  :func:`match_themes` returns every theme
the topic touches, best first, each with the words that matched: that list is the explanation.
"""

from __future__ import annotations

from collections.abc import Sequence

from pydantic import BaseModel, Field

from debate_core.content.schools import school_terms
from debate_core.plans import Theme

__all__ = ["ThemeMatch", "match_themes"]


class ThemeMatch(BaseModel):
    theme: str
    title: str
    score: int
    terms: list[str] = Field(default_factory=list)


def _spans(topic: str, term: str) -> list[tuple[int, int]]:
    out, start = [], 0
    while term and (i := topic.find(term, start)) >= 0:
        out.append((i, i + len(term)))
        start = i + 1
    return out


def match_themes(topic: str, themes: Sequence[Theme]) -> list[ThemeMatch]:
    """Every theme the topic touches, best first (score, then the theme's order in the bank)."""
    topic = topic or ""
    found: list[tuple[int, int, str, str]] = []  # start, end, term, theme id
    for t in themes:
        for term in dict.fromkeys([t.title, *t.keywords]):
            term = (term or "").strip()
            if len(term) >= 2:  # one character is ordinary Chinese (戒 in 戒烟, 空 in 有空吗)
                found += [(s, e, term, t.id) for s, e in _spans(topic, term)]
    kept: dict[str, list[str]] = {}
    for s, e, term, tid in found:
        inside = any(s2 <= s and e <= e2 and (e2 - s2) > (e - s) and tid2 == tid for s2, e2, _t, tid2 in found)
        if not inside and term not in kept.setdefault(tid, []):
            kept[tid].append(term)
    # a school's name (天台宗, 南传) says whose voice is asked, not what about: it counts one, so 天台宗讲的止观
    # is a question on 止观 and not on 判教 (the pair is chosen for the school: content.schools)
    names = school_terms()
    order = {t.id: i for i, t in enumerate(themes)}
    titles = {t.id: t.title for t in themes}
    out = [
        ThemeMatch(theme=tid, title=titles[tid], score=sum(1 if x in names else len(x) for x in terms), terms=terms)
        for tid, terms in kept.items()
        if terms
    ]
    general = {t.id for t in themes if t.general}
    return sorted(out, key=lambda m: (m.theme in general, -m.score, order[m.theme]))
