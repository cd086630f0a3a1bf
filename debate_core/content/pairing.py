"""Which two masters debate a topic, in the master-debate seed's order of rules.

1. ``user``: two masters named by the user (slug, name, short name or alias: 六祖, 罗什); then two masters the
   topic itself names (宗喀巴讲…慧能却说…), unless a table row gives that very pair.
2. ``table``: the seed's topic-to-pair table (``resources/pair_table.json``).  A row
   matches by one of its short forms, which name both sides at once (禅净, 空有, 顿渐,
   性相; also written 禅与净, 空和有), or when the topic evokes both of its sides (a
   side's terms, or any name of the side's master).  A term that only occurs inside a
   longer term of another master does not count for its own (中观 in 应成中观).  A row
   with a short form ranks first, then the row with more distinct terms hit, then the
   seed's row order; so rows sharing a master (huineng has four) are told apart by
   the other side.
3. ``coverage``: a case of the argument layer the topic is (a concrete question under a theme) that
   two masters both answer, with objections both ways on its theme; else the topic's best-matching
   argument-layer theme (``content.themes``) on which a pair of the bank both hold a position and have
   objections aimed at each other's claims; pairs
   whose masters the topic names (or whose keywords it holds) rank first, then the pair with more
   objections both ways.
4. ``keywords``: scoring over each master's ``search_scope.keywords`` and names (keywords shorter
   than ``min_keyword_length`` ignored); the top master, with the partner he has most objections
   both ways with (in a derived bank without such partners: the top two from different schools).
5. ``default``: the default pair.

A pack with a written argument layer only ever routes to pairs with objections both ways.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Sequence
from functools import lru_cache
from importlib import resources

from pydantic import BaseModel, Field

from debate_core.content.aliases import apply_default_aliases, topic_names
from debate_core.content.packs import resolve_master
from debate_core.content.schools import NamedSchool, schools_named
from debate_core.content.situation import fitting_cases
from debate_core.errors import PairError
from debate_core.models import Master, Pack

__all__ = [
    "PairChoice",
    "PairError",
    "apply_default_aliases",
    "choose_pair",
    "keyword_scores",
    "pair_table",
    "row_theme",
    "school_key",
    "table_matches",
]


Allow = Callable[[str, str], bool] | None  # which pairs a rule may choose (the topic's named voices)


class PairChoice(BaseModel):
    a: str
    b: str
    rule: str  # user / table / keywords / default
    reason: str
    row: str = ""
    hits: dict[str, list[str]] = Field(default_factory=dict)


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


def _names(m: Master, pack: Pack | None = None) -> list[str]:
    return topic_names(m, pack)


# ------------------------------------------------------------------ short forms


def _alt(words: Sequence[str]) -> str:
    return "|".join(re.escape(w) for w in sorted(set(words), key=len, reverse=True))


@lru_cache(maxsize=64)
def _short_form_patterns(x: str, y: str, strict: bool) -> tuple[re.Pattern, ...]:
    table = pair_table()
    conj = _alt(table.get("conjunctions", ["与", "和"]))
    dispute = _alt(table.get("dispute_words", ["之争"]))
    X, Y = re.escape(x), re.escape(y)
    joined = [re.compile(rf"{X}\s*(?:{conj})\s*{Y}", re.I), re.compile(rf"{Y}\s*(?:{conj})\s*{X}", re.I)]
    if strict:  # an ordinary word too (性相近): only joined, before a dispute word, or the whole topic
        return (*joined, re.compile(rf"{X}{Y}\s*(?:{dispute})"), re.compile(rf"^[\W_]*{X}{Y}[\W_]*$"))
    return (*joined, re.compile(rf"{X}{Y}"))


def short_forms_in(topic: str, row: dict) -> list[str]:
    """The row's short forms the topic contains (as written in the table: 禅净, 空有 …)."""
    out = []
    for sf in row.get("short_forms", []):
        x, y = sf["pair"]
        if any(p.search(topic) for p in _short_form_patterns(x, y, bool(sf.get("strict")))):
            out.append(x + y)
    return out


# ------------------------------------------------------------------ side terms


def _vocabulary(pack: Pack) -> list[tuple[str, str]]:
    """(term, master) for every side term of the table and every topic name of a table master."""
    vocab: set[tuple[str, str]] = set()
    for row in pair_table()["rows"]:
        for side in (row["a"], row["b"]):
            slug = side["master"]
            vocab.update((t, slug) for t in side.get("terms", []) if t)
    for slug in {s for _, s in vocab}:
        m = pack.masters.get(slug)
        if m is not None:
            vocab.update((n, slug) for n in _names(m, pack))
    return sorted(vocab)


def _uncovered(topic: str, pack: Pack) -> set[tuple[str, str]]:
    """(term, master) pairs with at least one occurrence in ``topic`` that no longer term
    of *another* master contains."""
    occ: list[tuple[int, int, str, str]] = []
    for term, slug in _vocabulary(pack):
        for m in re.finditer(re.escape(term), topic):
            occ.append((m.start(), m.end(), term, slug))
    out = set()
    for s, e, term, slug in occ:
        covered = any(s2 <= s and e <= e2 and (e2 - s2) > (e - s) and slug2 != slug for s2, e2, _t, slug2 in occ)
        if not covered:
            out.add((term, slug))
    return out


def _side_hits(side: dict, pack: Pack, found: set[tuple[str, str]]) -> list[str]:
    slug = side["master"]
    terms = list(side.get("terms", []))
    m = pack.masters.get(slug)
    if m is not None:
        terms += [n for n in _names(m, pack) if n not in terms]
    hits = [t for t in dict.fromkeys(terms) if (t, slug) in found]
    return [t for t in hits if not any(t != u and t in u for u in hits)]  # 印光 inside 印光老法师: one hit


def table_matches(topic: str, pack: Pack) -> list[dict]:
    """Every table row the topic matches, best first: {row, short, a_hits, b_hits, score}."""
    found = _uncovered(topic, pack)
    out = []
    for index, row in enumerate(pair_table()["rows"]):
        a, b = row["a"]["master"], row["b"]["master"]
        if a not in pack.masters or b not in pack.masters:
            continue
        short = short_forms_in(topic, row)
        ha, hb = _side_hits(row["a"], pack, found), _side_hits(row["b"], pack, found)
        if short or (ha and hb):
            score = (1 if short else 0, len(set(ha) | set(hb)), -index)
            out.append({"row": row, "short": short, "a_hits": ha, "b_hits": hb, "score": score})
    return sorted(out, key=lambda r: r["score"], reverse=True)


def _table_choice(topic: str, pack: Pack) -> PairChoice | None:
    matches = table_matches(topic, pack)
    if not matches:
        return None
    best = matches[0]
    row, ha, hb = best["row"], best["a_hits"], best["b_hits"]
    a, b = row["a"]["master"], row["b"]["master"]
    hits = {a: list(dict.fromkeys(best["short"] + ha)), b: list(dict.fromkeys(best["short"] + hb))}
    if best["short"]:
        why = f"short form {'、'.join(best['short'])} names both sides"
    else:
        why = f"topic evokes both sides ({'、'.join(ha)} / {'、'.join(hb)})"
    others = [m["row"]["label"] for m in matches[1:]]
    also = f"; also matched, ranked lower: {'、'.join(others)}" if others else ""
    return PairChoice(
        a=a, b=b, rule="table", row=row["label"], hits=hits, reason=f"topic table row 「{row['label']}」: {why}{also}"
    )


def keyword_scores(topic: str, pack: Pack) -> dict[str, list[str]]:
    table = pair_table()
    min_len = int(table.get("min_keyword_length", 2))
    terms: dict[str, list[str]] = {}
    for row in table["rows"]:  # the table's side terms are keywords of their master too
        for side in (row["a"], row["b"]):
            terms.setdefault(side["master"], []).extend(side.get("terms", []))
    out: dict[str, list[str]] = {}
    for slug, m in pack.masters.items():
        words = list(dict.fromkeys([*m.search_scope.keywords, *terms.get(slug, [])]))
        hits = [k for k in words if isinstance(k, str) and len(k) >= min_len and k in topic]
        hits += [n for n in _names(m, pack) if n in topic and n not in hits]
        if hits:
            out[slug] = hits
    return out


def row_theme(a: str, b: str) -> str:
    """The theme of the table row of this pair (either order), or ""."""
    for row in pair_table()["rows"]:
        if {row["a"]["master"], row["b"]["master"]} == {a, b}:
            return str(row.get("theme", ""))
    return ""


def _both_ways(bank, a: str, b: str, theme: str | None = None) -> tuple[int, int]:
    return len(bank.objections(a, b, theme)), len(bank.objections(b, a, theme))


def _coverage_choice(
    topic: str, pack: Pack, named: dict[str, int], allow: Allow = None, max_tier: int = 3
) -> PairChoice | None:
    """The best covered pair for the topic's themes, in tiers: both masters hold a position on the
    theme and aim objections at each other's claims on it; both hold a position and have objections
    both ways on other themes; one of them holds a position and the pair has objections both ways."""
    from debate_core.content.arguments import bank_of
    from debate_core.content.themes import match_themes

    bank = bank_of(pack)
    matches = match_themes(topic, bank.themes)
    pairs = [
        (a, b)
        for a, b in (bank.pairs[k].pair for k in sorted(bank.pairs))
        if a in pack.masters and b in pack.masters and (allow is None or allow(a, b))
    ]
    top = matches[0].score if matches else 0
    order = [(tier, m) for m in matches if m.score * 2 >= top for tier in (1, 2)]
    order += [(tier, m) for m in matches if m.score * 2 < top for tier in (1, 2)]
    order += [(3, m) for m in matches if max_tier >= 3]
    for tier, m in order:
        cands = []
        for a, b in pairs:
            held = sum(1 for x in (a, b) if bank.position(x, m.theme) is not None)
            ab, ba = _both_ways(bank, a, b, m.theme if tier == 1 else None)
            if not (ab and ba) or held < (2 if tier < 3 else 1):
                continue
            # then pairs that also argue the topic's other themes (念佛与戒律: 戒律 too), then the deeper bank
            also = sum(1 for o in matches if o.theme != m.theme and all(_both_ways(bank, a, b, o.theme)))
            cands.append(
                ((sum(named.get(x, 0) for x in (a, b)), also, min(ab, ba), ab + ba), f"{a}-vs-{b}", a, b, ab, ba)
            )
        if not cands:
            continue
        cands.sort(key=lambda c: (tuple(-x for x in c[0]), c[1]))
        _score, _key, a, b, ab, ba = cands[0]
        said = f"the topic says {'、'.join(m.terms)}"
        why = {
            1: f"both hold a position on it and aim {ab} / {ba} objections at each other's claims there",
            2: f"both hold a position on it; their objections at each other ({ab} / {ba}) are on other themes",
            3: "only one of them holds a position on it; no pair of the bank has both",
        }[tier]
        return PairChoice(
            a=a,
            b=b,
            rule="coverage",
            hits={a: list(m.terms), b: list(m.terms)},
            reason=f"theme 「{m.title}」 ({said}): {why}",
        )
    return None


def _case_choice(topic: str, pack: Pack, named: dict[str, int], allow: Allow = None) -> PairChoice | None:
    """The topic is a case of the argument layer (a concrete question under a theme): the pair of masters
    who both answer it and aim objections at each other's claims on its theme (named masters first,
    then the deeper bank)."""
    from debate_core.content.arguments import bank_of

    bank = bank_of(pack)
    for c in fitting_cases(bank, topic):
        who = sorted({a.by for a in c.answers if a.by in pack.masters})
        cands = []
        for i, a in enumerate(who):
            for b in who[i + 1 :]:
                ab, ba = _both_ways(bank, a, b, c.theme)
                if ab and ba and (allow is None or allow(a, b)):
                    cands.append(((-sum(named.get(x, 0) for x in (a, b)), -min(ab, ba), -(ab + ba)), a, b, ab, ba))
        if not cands:
            continue
        _k, a, b, ab, ba = min(cands)
        t = bank.theme(c.theme)
        return PairChoice(
            a=a,
            b=b,
            rule="coverage",
            hits={a: c.hits(topic), b: c.hits(topic)},
            reason=f"the topic is the argument layer's question 「{c.question}」 under "
            f"「{t.title if t else c.theme}」 "
            f"(it says {'、'.join(c.hits(topic))}): both answer it and aim {ab} / {ba} objections "
            "at each other's claims there",
        )
    return None


def _best_partner(pack: Pack, a: str) -> str | None:
    from debate_core.content.arguments import bank_of

    bank = bank_of(pack)
    scored = []
    for s in sorted(pack.masters):
        if s == a:
            continue
        ab, ba = _both_ways(bank, a, s)
        if ab and ba:
            scored.append((min(ab, ba), ab + ba, s))
    return max(scored, key=lambda x: (x[0], x[1], [-ord(c) for c in x[2]]))[2] if scored else None


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


def voices_named(topic: str, pack: Pack, named: dict[str, list[str]]) -> list[NamedSchool]:
    """The voices the topic asks for: each master it names by name, and each school it names
    (``content.schools``) unless a master named by name already speaks for it (印光 beside 净土)."""
    sides = [NamedSchool(s, pack.masters[s].name, tuple(named[s]), (s,), kind="master") for s in named]
    return sides + [n for n in schools_named(topic, pack) if not any(s in n.masters for s in named)]


def _allowances(sides: list[NamedSchool], pack: Pack) -> list[tuple[Allow, str]]:
    """The pair constraints to try in turn: a pair that gives two of the named voices; then one of them
    against a master outside them (南传为什么不承认中阴 asks a 南传 voice and one who holds 中阴); then one of
    them with anyone; then any pair. Each with the words the reason adds."""

    def labels(sides: list[NamedSchool]) -> str:
        return "; ".join(
            n.label if n.kind == "master" else f"{n.label} ({'、'.join(pack.masters[s].name for s in n.masters)})"
            for n in sides
        )

    def two(a: str, b: str) -> bool:
        return any(
            a in x.masters and b in y.masters for i, x in enumerate(sides) for j, y in enumerate(sides) if i != j
        )

    voiced = {s for x in sides for s in x.masters}

    def one(a: str, b: str) -> bool:
        return a in voiced or b in voiced

    def against(a: str, b: str) -> bool:  # one of the voices against someone outside them
        return (a in voiced) != (b in voiced)

    out: list[tuple[Allow, str]] = []
    if len(sides) >= 2:
        out.append((two, f"the topic names {labels(sides)}: a pair with two of these voices"))
    if sides:
        out.append((against, f"the topic names {labels(sides)}: one of these voices and a master outside them"))
        out.append((one, f"the topic names {labels(sides)}: a pair with one of these voices"))
    out.append((None, f"the topic names {labels(sides)}, but no pair with these voices fits it" if sides else ""))
    return out


def choose_pair(topic: str, pack: Pack, masters: Sequence[str] | None = None) -> PairChoice:
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
    scores = keyword_scores(topic, pack)
    named = {s: h for s, h in scores.items() if any(n in topic for n in _names(pack.masters[s], pack))}
    if len(named) >= 2 and (row is None or {row.a, row.b} != set(sorted(named, key=lambda s: (-len(named[s]), s))[:2])):
        # the topic names two masters: they debate, as if the user had named them, before any table row (r25:
        # 宗喀巴讲次第…慧能却说一悟即至佛地 went to the 顿渐 row's 慧能 / 智顗, and 宗喀巴 never spoke)
        a, b = sorted(named, key=lambda s: (-len(named[s]), s))[:2]
        return PairChoice(
            a=a,
            b=b,
            rule="keywords",
            hits={a: named[a], b: named[b]},
            reason=f"the topic names both masters ({'、'.join(named[a])} / {'、'.join(named[b])})",
        )
    if row is not None:
        return row

    weights = {s: 2 if s in named else 1 for s in scores}
    sides = voices_named(topic, pack, named)
    # a named voice first, as long as both masters have something to say on the topic (a case, or a
    # position each on its theme); a pair where only one holds a position comes after every constraint
    tries = [(allow, said, tier) for tier in (2, 3) for allow, said in _allowances(sides, pack)]
    for allow, said, tier in tries:
        cover = (_case_choice(topic, pack, weights, allow) if tier == 2 else None) or _coverage_choice(
            topic, pack, weights, allow, max_tier=tier
        )
        if cover is not None:
            if said:
                cover.reason += f"; {said}"
            return cover

    weight = int(pair_table().get("keyword_weight", 3))
    voiced = {s for side in sides for s in side.masters}
    ranked = sorted(scores, key=lambda s: (s not in voiced, -len(scores[s]) * weight, s))
    ranked += sorted(s for s in voiced if s not in scores)
    partner = _best_partner(pack, ranked[0]) if ranked else None
    if partner is not None:
        a, b = ranked[0], partner
        desc = "、".join(scores[a])
        return PairChoice(
            a=a,
            b=b,
            rule="keywords",
            hits={a: scores[a]},
            reason=f"keyword scoring names {pack.masters[a].name} ({desc}); paired with the master "
            f"he has most objections both ways with in the argument layer",
        )
    from debate_core.content.arguments import bank_of

    if ranked and bank_of(pack).derived:
        a = ranked[0]
        sa = school_key(pack.masters[a])
        pick = next((s for s in ranked[1:] if school_key(pack.masters[s]) != sa), None)
        if pick is None:
            da, db = _default_pair(pack)
            pick = next((s for s in (da, db) if s != a and school_key(pack.masters[s]) != sa), None)
            pick = pick or next(s for s in sorted(pack.masters) if school_key(pack.masters[s]) != sa and s != a)
        b = pick
        hits = {s: scores[s] for s in (a, b) if s in scores}
        desc = "; ".join(f"{pack.masters[s].name}: {'、'.join(h)}" for s, h in hits.items())
        return PairChoice(
            a=a,
            b=b,
            rule="keywords",
            hits=hits,
            reason=f"keyword scoring over search_scope.keywords, names and table terms, top two from "
            f"different schools ({desc})",
        )

    a, b = _default_pair(pack)
    return PairChoice(a=a, b=b, rule="default", reason="no table row or keyword matched the topic; default pair")
