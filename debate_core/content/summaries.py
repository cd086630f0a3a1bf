"""Round summaries: reading what an opponent's summary carries, and writing one from a plan.

An isolated round sees the other side only through his <=80-character summary.  Reading it
(``restated_points``, ``raised_objections``) finds which of the bank's points and objections it
speaks of: by the gists it holds, else (a model's summary, in its own words) by shared content
bigrams.  Writing one (``summary_of``) is what the offline engine does after each round: the stance
and what the plan cited (the seed's 立场 + 引了什么经).
"""

from __future__ import annotations

import re

from debate_core.content.text import bigrams_of, says_own_stance
from debate_core.plans import Objection, Position, SpeechPlan

__all__ = ["carried", "gist_in", "raised_objections", "restated_points", "summary_of"]

# ------------------------------------------------------------------ reading a summary


def gist_in(gist: str, summary: str) -> bool:
    """Whether the summary carries ``gist``: verbatim, or 60% of its content bigrams."""
    if not gist:
        return False
    if gist in summary:
        return True
    g = bigrams_of(gist)
    return bool(g) and len(g & bigrams_of(summary)) / len(g) >= 0.6


def _aligned(texts: list[str], summary: str) -> list[int]:
    """Indexes of ``texts`` the summary speaks of, by shared content bigrams (a model's summary)."""
    s = bigrams_of(summary)
    scored = [(len(bigrams_of(t) & s), i) for i, t in enumerate(texts)]
    return [i for n, i in sorted(scored, key=lambda x: (-x[0], x[1])) if n >= 2]


def carried(gists: list[str], summary: str) -> list[int]:
    """Indexes of the gists the summary carries: verbatim first; a near match (``gist_in``) only in what the
    verbatim ones leave (r13: 慧地亦无自性 read into a summary that said 刹那亦无自性, on 亦无自性 alone)."""
    rest = summary
    for g in sorted((g for g in gists if g and g in summary), key=len, reverse=True):
        rest = rest.replace(g, "")
    return [i for i, g in enumerate(gists) if g and (g in summary or gist_in(g, rest))]


def restated_points(opp: Position, summary: str) -> list[int]:
    """The opponent's reasons (1-based) the summary carries, in order; [0] when only his claim."""
    if not summary:
        return []
    hits = [i + 1 for i in carried([r.gist for r in opp.reasons], summary)]
    if not hits:
        hits = sorted(i + 1 for i in _aligned([r.text + r.gist for r in opp.reasons], summary)[:3])
    return hits or [0]


# the offline engine's own summary (``summary_of``): 某某驳：… / 某某答：… / 某某综合：… names every point the round
# made by its gist, so what it does not carry was not said
_OWN_FORM = re.compile(r"^[^：:，。；\s]{1,12}(?:驳|答|综合)：")


def raised_objections(objs: list[Objection], summary: str) -> list[Objection]:
    """The objections the summary speaks of: by their gists; in a model's summary (its own words) also by shared
    content bigrams. An engine summary that carries none raised none (r24: a 回应 answered 舍境仍有能所, an
    objection its 反驳 never made, found in that 反驳's summary by two shared characters)."""
    hits = [objs[i] for i in carried([o.gist for o in objs], summary)]
    if not hits and not _OWN_FORM.match(summary):
        hits = [objs[i] for i in sorted(_aligned([o.text + o.gist for o in objs], summary)[:3])]
    return hits


# ------------------------------------------------------------------ writing a summary


_TAIL = re.compile(r"[。；，、\s]+$")


def summary_of(plan: SpeechPlan, short_name: str, titles: dict[str, str], limit: int = 80) -> str:
    """The round summary a plan makes: the stance and what it cited (the seed's 立场 + 引了什么经)."""

    def tidy(x: str) -> str:
        return _TAIL.sub("", x or "")

    cited = "、".join(f"《{titles[s]}》" for s in plan.cited[:2] if titles.get(s))
    tail = f"引{cited}。" if cited else ""
    word = {"accept": "接受", "partly": "部分接受", "hold": "坚持"}
    if plan.material == "none":
        body = f"{short_name}：于「{plan.theme_title}」没有专门的立场，未展开。"
    elif plan.role == "立论":
        answer = [tidy(p.gist) for p in plan.of("case") if p.gist]
        if answer and not plan.of("stance"):  # an opening that answered the case and stated no claim
            # with the objections it raised in advance, so that the side they aim at can take them up
            ahead = [tidy(p.gist) for p in plan.of("contrast") if p.gist]
            body = f"{short_name}答：{answer[0]}" + (f"；并议{'、'.join(ahead)}" if ahead else "") + "。"
        else:
            body = (
                (f"{short_name}答：{answer[0]}；立" if answer else f"{short_name}立")
                + f"{tidy(plan.short)}："
                + "；".join(tidy(p.gist) for p in plan.of("reason"))
                + "。"
            )
    elif plan.role == "反驳":
        # (a later 反驳 on a case answers with a further objection at the other's answer: its ``contrast``)
        answers = [tidy(p.gist) for p in plan.of("answer", "contrast") if p.gist]
        own = f"另立{tidy(plan.short)}" if plan.of("reason", "support") else ""
        if answers:
            body = f"{short_name}驳：" + "；".join(answers + ([own] if own else [])) + "。"
        else:  # nothing answered: the summary says so once, not a list of 未答
            body = f"{short_name}未逐条驳" + (f"，{own}" if own else "") + "。"
    elif plan.role == "回应":
        parts = [f"{word[p.kind]}{tidy(p.target_text)}" for p in plan.of(*word)]
        # what he granted of the other's claims before turning on them (请人印证、悟后还要保任，这些我都认同):
        # the common ground the observation names (r24: 共识点 said no objection was accepted, false and no ground)
        granted = [
            f"认同{tidy(p.target_text)}一层" for p in plan.of("contrast") if p.target_text and says_own_stance(p.text)
        ][:1]
        body = (
            f"{short_name}答：" + ("；".join(parts) or f"仍持{tidy(plan.short)}") + "".join(f"；{g}" for g in granted)
        )
        body += "。"
    elif plan.of("case_difference"):  # a 综合 on a case closes on where his answer puts its weight
        body = f"{short_name}综合：看重{tidy(plan.of('case_difference')[0].text)}。"
    else:
        common, diff = plan.of("common"), plan.of("difference")
        body = (
            f"{short_name}综合："
            + (f"共许{_clause(common[0].text)}；" if common else "")
            + (f"仍异在{diff[0].target_text}层面" if diff and diff[0].target_text else f"仍持{tidy(plan.short)}")
            + "。"
        )
    text = body + tail
    if len(text) > limit:
        text = body if len(body) <= limit else body[: limit - 1] + "…"
    return text


def _clause(text: str, limit: int = 16) -> str:
    c = re.split(r"[，。；：]", text)[0]
    return c if len(c) <= limit else c[:limit]
