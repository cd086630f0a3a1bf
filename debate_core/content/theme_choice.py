"""The theme a master debate argues, and what its material lacks.

The debate's theme is the same for both speakers (``debate_theme``, symmetric in the two masters):
a case of the bank (a concrete question under a theme) that both masters answer decides it; else the
best-matching theme of the topic on which both hold a position, else one that either holds, else the
table row's theme, else the core path.  A topic whose words match no theme's keywords is argued on
the nearest theme by the pair's own material (``nearest_theme``), and says so.  ``material_note``
words the warnings a debate carries at its top about its material.  The speech plans
(:mod:`debate_core.content.plan`) are built on the theme chosen here (docs/arguments.md).
"""

from __future__ import annotations

import weakref
from dataclasses import dataclass, field, replace

from debate_core.content.situation import fitting_cases
from debate_core.content.text import bigrams_of, cjk_only, personal_question, specific_question
from debate_core.content.themes import ThemeMatch, match_themes
from debate_core.plans import ArgumentBank

__all__ = ["CORE_THEME", "ThemeChoice", "debate_theme", "material_note", "nearest_theme"]

CORE_THEME = "core-path"


@dataclass
class ThemeChoice:
    theme: str
    title: str
    terms: list[str] = field(default_factory=list)
    how: str = "topic"  # topic (the topic names it) / row (the pair table's row) / core (nothing matched)
    held_by: list[str] = field(default_factory=list)
    asked: str = ""  # the theme the topic matched best, when the debate argues another
    case: str = ""  # the bank's case (a concrete question under the theme) the topic is, when there is one


# Bigrams of questions that say nothing about which theme is asked (怎么办, 是不是 …): never evidence.
_FUNCTION_BIGRAMS = frozenset(
    "什么 怎么 怎样 怎么办 么办 为什 为何 是不 不是 是否 可以 能不 不能 应该 该不 要不 不要 还是 我们 你们 他们 自己 "
    "一个 这个 那个 这样 那样 如果 因为 所以 但是 就是 还有 没有 有没 是什 么样 到底 究竟 真的 的话 一下 之后 "
    "以后 时候 "
    "现在 每天 总是 一直 觉得 知道 一定 非常 很多 这些 那些 哪里 如何 其实 只是 也是 都是 不会 会不 有人 别人 大家 "
    "佛法 学佛 修行 佛教 师父 大师 事情 具体 在乎".split()
)
# a bigram with one of these particles in it carries no subject (r22: 的舍 / 不在 / 都不 / 要在 took 四无量心里的舍
# to 布施与供养, 八正道里的正精进 to 持戒, and the debate's top called them the literally nearest themes)
_PARTICLES = frozenset("的了是在吗呢么把都也就这那里些要和与对给说不")


def _informative(grams: set[str]) -> set[str]:
    return {g for g in grams - _FUNCTION_BIGRAMS if not (set(g) & _PARTICLES)}


_DOCS: dict[tuple[int, tuple[str, ...]], tuple[weakref.ref, dict[str, set[str]]]] = {}


def _theme_docs(bank: ArgumentBank, who: tuple[str, ...]) -> dict[str, set[str]]:
    """Each theme's material as content bigrams (title, question, keywords, the masters' claims and
    reasons on it): built once per bank and pair, not on every topic."""
    key = (id(bank), who)
    hit = _DOCS.get(key)
    if hit is not None and hit[0]() is bank:
        return hit[1]
    docs: dict[str, set[str]] = {}
    for t in bank.themes:
        parts = [t.title, t.question, *t.keywords]
        for s in who:
            pos = bank.position(s, t.id)
            if pos is not None:
                parts += [pos.claim, *(r.text for r in pos.reasons), *(r.gist for r in pos.reasons)]
        docs[t.id] = bigrams_of(" ".join(parts))
    if len(_DOCS) > 256:  # a long-lived process that loads many banks: start again rather than grow
        _DOCS.clear()
    _DOCS[key] = (weakref.ref(bank), docs)
    return docs


def nearest_theme(
    bank: ArgumentBank,
    topic: str,
    a: str | None = None,
    b: str | None = None,
    min_score: float = 6.0,
    min_hits: int = 3,
) -> ThemeMatch | None:
    """For a topic whose words match no theme's keywords: the theme whose own material (title, question,
    keywords, and the two masters' claims and reasons on it) shares the most informative content bigrams
    with the topic, each bigram weighted by how few themes use it.  None below ``min_score`` or with fewer
    than ``min_hits`` shared bigrams: character bigrams are weak evidence (睡不着 shares 睡不 with a text on
    dullness), so the fallback is conservative and an unmatched topic is rather declared than guessed.
    The matched bigrams are the explanation."""
    import math

    q = _informative(bigrams_of(topic))
    if not q:
        return None
    who = (a, b) if a and b else tuple(bank.positions)  # the pair's material, or every master's (routing)
    docs = _theme_docs(bank, who)
    df = {g: sum(1 for d in docs.values() if g in d) for g in q}
    best: tuple[float, ThemeMatch] | None = None
    for t in bank.themes:
        if t.general:
            continue
        hits = sorted(g for g in q if g in docs[t.id])
        score = sum(math.log((1 + len(docs)) / (1 + df[g])) for g in hits)
        if len(hits) >= min_hits and score >= min_score and (best is None or score > best[0]):
            best = (score, ThemeMatch(theme=t.id, title=t.title, score=max(1, round(score)), terms=hits))
    return best[1] if best else None


_CHOSEN: dict[tuple[int, str, str, str, str], tuple[weakref.ref, ThemeChoice]] = {}


def debate_theme(bank: ArgumentBank, topic: str, a: str, b: str, row_theme: str = "") -> ThemeChoice:
    """The theme a debate of ``a`` and ``b`` argues ``topic`` on (symmetric in a and b), with the bank's
    case the topic is.  A case both masters answer, on a theme both hold, decides the theme (how =
    ``case``): it is the more specific evidence.  Else the theme is chosen from the topic's words, and a
    case under that theme that either master answers is kept.

    Worked out once per bank, topic and ordered pair (a debate asks at its set-up and for every speech
    plan, a batch's repeats ask again, and the choice reads every keyword of every theme and case):
    each caller gets its own copy."""
    key = (id(bank), topic, a, b, row_theme)
    hit = _CHOSEN.get(key)
    if hit is None or hit[0]() is not bank:
        if len(_CHOSEN) > 1024:  # a long-lived process that sees many topics: start again rather than grow
            _CHOSEN.clear()
        hit = _CHOSEN[key] = (weakref.ref(bank), _debate_theme(bank, topic, a, b, row_theme))
    c = hit[1]
    return replace(c, terms=list(c.terms), held_by=list(c.held_by))


def _debate_theme(bank: ArgumentBank, topic: str, a: str, b: str, row_theme: str) -> ThemeChoice:
    cases = fitting_cases(bank, topic)
    for c in cases:
        if all(c.answer(s) is not None and bank.position(s, c.theme) is not None for s in (a, b)):
            t = bank.theme(c.theme)
            return ThemeChoice(c.theme, t.title if t else c.theme, c.hits(topic), "case", [a, b], case=c.id)
    choice = _theme_choice(bank, topic, a, b, row_theme)
    choice.case = next(
        (c.id for c in cases if c.theme == choice.theme and any(c.answer(s) is not None for s in (a, b))), ""
    )
    return choice


def _theme_choice(bank: ArgumentBank, topic: str, a: str, b: str, row_theme: str = "") -> ThemeChoice:
    matches = match_themes(topic, bank.themes)
    if not matches:  # no keyword: the nearest theme by content, declared as such (how = "near")
        near = nearest_theme(bank, topic, a, b)
        if near is not None and len([s for s in (a, b) if bank.position(s, near.theme) is not None]) == 2:
            return ThemeChoice(near.theme, near.title, [], "near", [a, b])

    def holders(tid: str) -> list[str]:
        return [s for s in (a, b) if bank.position(s, tid) is not None]

    def choice(m: ThemeMatch, how: str = "topic") -> ThemeChoice:
        return ThemeChoice(m.theme, m.title, list(m.terms), how, holders(m.theme))

    both = [m for m in matches if len(holders(m.theme)) == 2]
    # of those, the themes where each aims objections at the other's claim: every speech must cite one (the
    # ammo rule), and a debate on a theme without them failed it in every round (r26: 上师 for 阿底峡 / 慧能)
    armed = [m for m in both if bank.objections(a, b, m.theme) and bank.objections(b, a, m.theme)]
    both = armed or both
    if both:
        # the best-scoring theme both hold; on a tie the one the topic names first (its subject usually
        # leads: 生气的时候…念佛还是观心 asks about anger), then the pair's table row
        top = [m for m in both if m.score == both[0].score]

        def first_hit(m: ThemeMatch) -> int:
            return min((topic.find(t) for t in m.terms if t in topic), default=len(topic))

        return choice(min(top, key=lambda m: (first_hit(m), m.theme != row_theme)))
    for tid, how in ((row_theme, "row"), (CORE_THEME, "core")):  # the pair's own question before a one-sided one
        if tid and len(holders(tid)) == 2 and (not matches or how == "row"):
            t = bank.theme(tid)
            return ThemeChoice(
                tid, t.title if t else tid, [], how, holders(tid), asked=matches[0].title if matches else ""
            )
    for m in matches:
        if holders(m.theme):
            return choice(m)
    if matches:
        return choice(matches[0])
    tid = row_theme or CORE_THEME
    t = bank.theme(tid)
    return ThemeChoice(tid, t.title if t else tid, [], "row" if row_theme else "core", holders(tid))


def material_note(
    bank: ArgumentBank, choice: ThemeChoice, names: dict[str, str], topic_matched: bool, topic: str = ""
) -> list[str]:
    """The warnings a debate carries at its top about its material (Chinese, like the debate).  They speak of
    所据资料 (the material the debate draws on), not of the 人物包: r28's and r29's readers found the engine's term
    in the line a class reads first."""
    out = []
    if choice.how == "near":
        out.append(
            f"⚠️ 本题没有直接对上所据资料里的议题；就字面最接近的是「{choice.title}」，双方就此作答，未必切中所问。"
        )
    elif choice.asked and not topic_matched:
        out.append(
            f"⚠️ 本题问的是「{choice.asked}」，所据资料里这两位没有都就此立说；改就本配对的「{choice.title}」作答，"
            "未必切中所问。"
        )
    elif not topic_matched:
        out.append(f"⚠️ 本题没有对上所据资料里的任何议题；双方改就「{choice.title}」各陈本宗宗旨，未必切中所问。")
    elif choice.how == "topic" and bank.cases and personal_question(topic):
        # the bank answers concrete questions (cases), but not this one: the reader is told before R1
        # (r9: 未必逐一回答 promised more than such a debate gives: it does not answer the situation at all)
        out.append(
            f"⚠️ 题中所问的具体情形，所据资料里没有现成的个案回答；"
            f"双方只就它所属的「{choice.title}」陈述一般的看法，不回答题中的具体情形。"
        )
    elif choice.how == "topic" and not choice.case and specific_question(topic):
        # a specific question of doctrine the bank has no answer written for: the debate argues its theme
        out.append(
            f"⚠️ 所据资料里没有就本题写好的专门回答；双方只就它所属的「{choice.title}」陈述本宗的一般看法，"
            "题中具体所问未必答到。"
        )
    case = bank.case(choice.case) if choice.case else None
    if case is not None and topic and cjk_only(case.question) != cjk_only(topic):
        # the answers were written for the bank's question, the nearest it holds: the reader is told here,
        # once, and no master announces the swap in his speech (r10: 这一问，和「…」是一类事 read as residue)
        out.append(
            f"⚠️ 所据资料里没有就本题原样写好的回答；双方的回答是就最接近的「{case.question}」写的，请对照原题读。"
        )
    for slug, name in names.items():
        if slug not in choice.held_by:
            out.append(f"⚠️ 所据资料里没有{name}关于「{choice.title}」的立场：他这一方的发言会很短，只说能说的。")
    if bank.derived:
        out.append("⚠️ 本人物包没有论证层，立场由其教言按关键词归到议题上；没有写好的答辩与共许，对辩力度有限。")
    return out
